package procgov

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
)

// procs is how many processors the process runs on now.
func procs() int { return runtime.GOMAXPROCS(0) }

// TestQuietNarrowBusyWide: started, the process runs on one processor;
// a window of output over busyBytes gives it all of them; output that
// stays under it for calm puts it back on one; stop gives them back.
func TestQuietNarrowBusyWide(t *testing.T) {
	before := procs()
	defer runtime.GOMAXPROCS(before)
	calm = 50 * time.Millisecond
	defer func() { calm = time.Second }()

	var mu sync.Mutex
	var told []int
	stop := start(4, func(n int) { mu.Lock(); told = append(told, n); mu.Unlock() })
	if got := procs(); got != 1 {
		t.Fatalf("started: GOMAXPROCS %d, want 1", got)
	}
	// Quiet output: many small reads, under busyBytes a window.
	now := time.Now()
	for i := range 100 {
		note(1024, now.Add(time.Duration(i)*window))
	}
	if Wide() || procs() != 1 {
		t.Fatalf("1 KB a window made it wide (GOMAXPROCS %d)", procs())
	}
	// A flood: busyBytes within one window.
	now = time.Now()
	for i := range 64 {
		note(busyBytes/64, now.Add(time.Duration(i)*time.Millisecond))
	}
	testenv.Wait(t, "all four processors under a flood", 10*time.Second, func() bool { return Wide() && procs() == 4 })
	// Still flooding: it stays wide past calm.
	for range 3 {
		Note(busyBytes)
		time.Sleep(calm / 2) // the flood's pace, not a wait for an effect
		if !Wide() {
			t.Fatal("went back to one processor while output still flooded in")
		}
	}
	testenv.Wait(t, "one processor once output stayed quiet for calm", 10*time.Second, func() bool { return !Wide() && procs() == 1 })
	// A second flood widens again.
	note(busyBytes, time.Now().Add(time.Hour))
	testenv.Wait(t, "all processors again", 10*time.Second, func() bool { return Wide() && procs() == 4 })
	stop()
	if got := procs(); got != 4 || Wide() {
		t.Fatalf("stopped: GOMAXPROCS %d (wide %v), want 4", got, Wide())
	}
	mu.Lock()
	if want := []int{1, 4, 1, 4}; !slices.Equal(told, want) {
		t.Errorf("told of the changes %v, want %v", told, want)
	}
	mu.Unlock()
	// Stopped, output changes nothing.
	Note(busyBytes)
	runtime.Gosched()
	if Wide() {
		t.Fatal("a stopped governor widened")
	}
}

// TestStartLeavesAUserSetting: GOMAXPROCS in the environment is the
// user's, and one processor has nothing to govern.
func TestStartLeavesAUserSetting(t *testing.T) {
	before := procs()
	defer runtime.GOMAXPROCS(before)
	t.Setenv("GOMAXPROCS", "2")
	runtime.GOMAXPROCS(2)
	stop := Start(nil)
	if got := procs(); got != 2 {
		t.Fatalf("GOMAXPROCS=2 in the environment: running on %d", got)
	}
	stop()
	stop = start(1, nil)
	if got := procs(); got != 2 {
		t.Fatalf("start(1) changed GOMAXPROCS to %d", got)
	}
	stop()
}
