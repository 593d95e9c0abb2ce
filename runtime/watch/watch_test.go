package watch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/state"
)

func nextBatch(t *testing.T, w *Watcher, within time.Duration) []FileEvent {
	t.Helper()
	select {
	case b := <-w.Events():
		return b
	case <-time.After(within):
		t.Fatalf("no event within %s", within)
		return nil
	}
}

func noBatch(t *testing.T, w *Watcher, within time.Duration) {
	t.Helper()
	select {
	case b := <-w.Events():
		t.Fatalf("unexpected events %+v", b)
	case <-time.After(within):
	}
}

func TestWatcherSeesRenamesIntoPlaceOnly(t *testing.T) {
	dir := t.TempDir()
	w := newWatcher(t)
	sidecar := filepath.Join(dir, "p.md.status.json")
	if err := w.Watch(sidecar, EvSidecar); err != nil {
		t.Fatal(err)
	}
	// Another file in the same directory is not reported.
	os.WriteFile(filepath.Join(dir, "other.json"), []byte("{}"), 0o644)
	noBatch(t, w, 150*time.Millisecond)
	// An atomic write (temp file + rename) is one event for the watched name.
	if err := state.WriteSidecar(sidecar, &state.Sidecar{Status: "started"}); err != nil {
		t.Fatal(err)
	}
	b := nextBatch(t, w, 2*time.Second)
	if len(b) != 1 || b[0].Kind != EvSidecar || b[0].Path != sidecar {
		t.Fatalf("batch %+v", b)
	}
}

func TestWatcherWaitsForMissingDirectories(t *testing.T) {
	dir := t.TempDir()
	w := newWatcher(t)
	result := filepath.Join(dir, "worker-results", "deep", "r.md")
	if err := w.Watch(result, EvResult); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(result), 0o755); err != nil {
		t.Fatal(err)
	}
	// Two levels appeared at once and the file is written at once: it must
	// be seen though no event may come for "deep", and though the watcher
	// may still be adding its watches when the file is written.
	os.WriteFile(result, []byte("# result"), 0o644)
	waitEvent(t, w, EvResult, result, "the result file in a directory created after the watch was never reported")
}

func TestWatcherReportsProcessExit(t *testing.T) {
	w := newWatcher(t)
	cmd := exec.Command("sleep", "0.2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.WatchPID(cmd.Process.Pid)
	go cmd.Wait()
	b := nextBatch(t, w, 5*time.Second)
	if len(b) != 1 || b[0].Kind != EvProcessExit || b[0].PID != cmd.Process.Pid {
		t.Fatalf("batch %+v", b)
	}
}

func TestWatcherCoalescesWhileBusy(t *testing.T) {
	dir := t.TempDir()
	w := newWatcher(t)
	var paths []string
	for i := 0; i < 20; i++ {
		p := filepath.Join(dir, "s"+string(rune('a'+i))+".json")
		paths = append(paths, p)
		w.Watch(p, EvSidecar)
	}
	// Nobody reads while 20 files are written 5 times each.
	for round := 0; round < 5; round++ {
		for _, p := range paths {
			state.WriteSidecar(p, &state.Sidecar{Status: "started"})
		}
	}
	// The consumer stays away a while: that absence is the case under test
	// (not a wait for an effect), and the bound below allows for events
	// the kernel still delivers after it.
	time.Sleep(200 * time.Millisecond)
	seen := map[string]bool{}
	batches := 0
	for len(seen) < len(paths) {
		b := nextBatch(t, w, 2*time.Second)
		batches++
		for _, ev := range b {
			seen[ev.Path] = true
		}
	}
	if batches > 10 {
		t.Fatalf("100 writes while the consumer was away arrived as %d batches; they should merge", batches)
	}
}

func TestWatcherCloseEndsEverything(t *testing.T) {
	w, err := NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	w.WatchPID(cmd.Process.Pid)
	w.Watch(filepath.Join(t.TempDir(), "x"), EvOther)
	done := make(chan struct{})
	go func() { w.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("Close hung on a pidfd wait")
	}
}

// A directory created after the watch, with the file written into it at
// once, is reported every time, at any depth and whatever the timing
// (the watcher adds each new level's watch, then looks at what is there).
func TestWatcherSeesFilesInNewDirectoriesWrittenAtOnce(t *testing.T) {
	rounds := testenv.Shrink(200, 50) // each round is one chance at the race; the full tier takes 200
	for i := 0; i < rounds; i++ {
		dir := t.TempDir()
		w, err := NewWatcher()
		if err != nil {
			t.Fatal(err)
		}
		depth := 1 + i%3
		parts := []string{dir}
		for d := 0; d < depth; d++ {
			parts = append(parts, fmt.Sprintf("l%d", d))
		}
		result := filepath.Join(append(parts, "r.md")...)
		sidecar := filepath.Join(append(parts, "r.md.status.json")...)
		if err := w.Watch(result, EvResult); err != nil {
			t.Fatal(err)
		}
		if err := w.Watch(sidecar, EvSidecar); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(result), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(result, []byte("# result"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := state.WriteSidecar(sidecar, &state.Sidecar{Status: "completed"}); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		deadline := time.After(5 * time.Second)
		for !seen[result] || !seen[sidecar] {
			select {
			case b := <-w.Events():
				for _, ev := range b {
					seen[ev.Path] = true
				}
			case <-deadline:
				t.Fatalf("round %d (depth %d): saw %v; the files in the new directory were never reported", i, depth, seen)
			}
		}
		w.Close()
	}
}

// A watched directory that is removed and made again is watched again.
func TestWatcherFollowsARecreatedDirectory(t *testing.T) {
	dir := t.TempDir()
	w := newWatcher(t)
	sub := filepath.Join(dir, "results")
	os.Mkdir(sub, 0o755)
	result := filepath.Join(sub, "r.md")
	if err := w.Watch(result, EvResult); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(sub, 0o755)
	os.WriteFile(result, []byte("x"), 0o644)
	deadline := time.After(5 * time.Second)
	for {
		select {
		case b := <-w.Events():
			for _, ev := range b {
				if ev.Path == result {
					return
				}
			}
		case <-deadline:
			t.Fatal("the file in the recreated directory was never reported")
		}
	}
}

// The watcher remembers the pids it saw exit: a zombie (exited, not yet
// reaped by its parent) is Exited, and not Alive, though kill(pid, 0)
// still finds it.
func TestWatcherRemembersExitsOfUnreapedChildren(t *testing.T) {
	w := newWatcher(t)
	pid, kill, reap := runtest.StartZombie(t)
	w.WatchPID(pid)
	if w.Exited(pid) || !w.Alive(pid) {
		t.Fatal("a running child is reported exited")
	}
	kill()
	b := nextBatch(t, w, 5*time.Second)
	if len(b) != 1 || b[0].Kind != EvProcessExit || b[0].PID != pid {
		t.Fatalf("batch %+v", b)
	}
	if syscall.Kill(pid, 0) != nil {
		t.Fatal("the child was reaped: this test needs it a zombie")
	}
	if !w.Exited(pid) || w.Alive(pid) {
		t.Fatalf("pid %d exited (a zombie) but the watcher says alive", pid)
	}
	// Watching it again reports nothing new, and the answer holds after
	// the reap.
	w.WatchPID(pid)
	reap()
	if !w.Exited(pid) || w.Alive(pid) {
		t.Fatal("a reaped child is reported alive")
	}
	// A pid that is already gone is reported at once, and remembered.
	gone := exec.Command("true")
	gone.Run()
	w.WatchPID(gone.Process.Pid)
	b = nextBatch(t, w, 5*time.Second)
	if len(b) != 1 || b[0].PID != gone.Process.Pid || !w.Exited(gone.Process.Pid) {
		t.Fatalf("batch %+v", b)
	}
}

// threads is this process's OS thread count.
func threads(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no Threads line in /proc/self/status")
	return 0
}

// Watching 256 worker processes costs goroutines parked on the runtime's
// poller, not one OS thread each, and every exit is reported.
func TestWatcherWatches256PIDsWithoutAThreadEach(t *testing.T) {
	n := testenv.Shrink(256, 64) // a thread each would still be 4× the 16 allowed
	w := newWatcher(t)
	cmds := make([]*exec.Cmd, n)
	for i := range cmds {
		cmds[i] = exec.Command("sleep", "120")
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	})
	before := threads(t)
	for _, c := range cmds {
		w.WatchPID(c.Process.Pid)
	}
	// A waiter that blocks a thread in poll(2) takes its thread for good;
	// the runtime hands its P to a new thread within tens of microseconds.
	// Look at the thread count for a while after the watches started: it
	// must stay near where it was, not grow by one per pid.
	most := 0
	for end := time.Now().Add(500 * time.Millisecond); time.Now().Before(end); {
		most = max(most, threads(t))
		time.Sleep(10 * time.Millisecond)
	}
	if grew := most - before; grew > 16 {
		t.Fatalf("watching %d pids grew the process from %d to %d threads", n, before, most)
	}
	for _, c := range cmds {
		c.Process.Kill()
	}
	seen := map[int]bool{}
	deadline := time.After(20 * time.Second)
	for len(seen) < n {
		select {
		case b := <-w.Events():
			for _, ev := range b {
				if ev.Kind == EvProcessExit {
					seen[ev.PID] = true
				}
			}
		case <-deadline:
			t.Fatalf("%d of %d exits reported", len(seen), n)
		}
	}
	for _, c := range cmds {
		if !seen[c.Process.Pid] || !w.Exited(c.Process.Pid) {
			t.Fatalf("pid %d: exit not reported", c.Process.Pid)
		}
	}
	if after := threads(t); after-before > 16 {
		t.Fatalf("after the exits: %d threads, %d before", after, before)
	}
}

// The window between finding a level missing and watching the level above
// it: a directory created right there gets no event, yet the file written
// into it must be reported. The hook creates the directories exactly in
// that window.
func TestWatcherSeesADirectoryCreatedWhileTheWatchIsAdded(t *testing.T) {
	dir := t.TempDir()
	result := filepath.Join(dir, "worker-results", "deep", "r.md")
	testHookMissing = func(missing string) {
		if missing == filepath.Join(dir, "worker-results") {
			os.MkdirAll(filepath.Dir(result), 0o755)
		}
	}
	defer func() { testHookMissing = nil }()
	w := newWatcher(t)
	if err := w.Watch(result, EvResult); err != nil {
		t.Fatal(err)
	}
	testHookMissing = nil
	if err := os.WriteFile(result, []byte("# result"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, w, EvResult, result, "a file in a directory created while the watch was being added was never reported")
}

// Two files wait for the same directory; it appears, with the first file
// already in it, while the second file's watch is being added: the first
// file must be reported too, not only the one whose walk found the
// directory.
func TestWatcherServesEveryFileWaitingForADirectory(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "worker-results")
	result := filepath.Join(sub, "r.md")
	sidecar := filepath.Join(sub, "r.md.status.json")
	calls := 0
	testHookMissing = func(missing string) {
		if missing != sub {
			return
		}
		if calls++; calls == 2 { // the second file's walk
			os.Mkdir(sub, 0o755)
			os.WriteFile(result, []byte("# result"), 0o644)
		}
	}
	defer func() { testHookMissing = nil }()
	w := newWatcher(t)
	if err := w.Watch(result, EvResult); err != nil {
		t.Fatal(err)
	}
	if err := w.Watch(sidecar, EvSidecar); err != nil {
		t.Fatal(err)
	}
	testHookMissing = nil
	if calls != 2 {
		t.Fatalf("the hook ran %d times; the test no longer drives the window", calls)
	}
	waitEvent(t, w, EvResult, result, "a file written while another file's watch found its directory was never reported")
}

// A pid the watcher saw exit that now names another process (the kernel
// reused it; the cockpit's watcher lives for hours) is that other process:
// alive, and watched anew.
func TestWatcherForgetsAnExitWhenThePIDIsReused(t *testing.T) {
	w := newWatcher(t)
	pid, kill, _ := runtest.StartZombie(t)
	start, ok := procStart(pid)
	if !ok {
		t.Fatal("no start time for a running child")
	}
	// As if an earlier process under this pid had been watched and exited.
	w.mu.Lock()
	w.pids[pid], w.exited[pid], w.starts[pid] = true, true, start-1
	w.mu.Unlock()
	if w.Exited(pid) || !w.Alive(pid) {
		t.Fatal("the new process under a reused pid is taken for the one that exited")
	}
	w.WatchPID(pid)
	kill()
	b := nextBatch(t, w, 5*time.Second)
	if len(b) != 1 || b[0].PID != pid || !w.Exited(pid) {
		t.Fatalf("the new process's exit: batch %+v, exited %v", b, w.Exited(pid))
	}
}

func TestProcessAliveSaysAZombieIsGone(t *testing.T) {
	pid, kill, _ := runtest.StartZombie(t)
	if !ProcessAlive(pid) {
		t.Fatal("a running child is not alive")
	}
	kill()
	testenv.WaitZombie(t, pid)
	if ProcessAlive(pid) {
		t.Fatalf("pid %d exited (a zombie not yet reaped) but ProcessAlive says alive", pid)
	}
}

// waitEvent waits up to 3 s for the watcher to report an event of kind on
// path, and fails with never (what was never reported) otherwise.
func waitEvent(t *testing.T, w *Watcher, kind EventKind, path, never string) {
	t.Helper()
	deadline := time.After(3 * time.Second)
	for {
		select {
		case b := <-w.Events():
			for _, ev := range b {
				if ev.Kind == kind && ev.Path == path {
					return
				}
			}
		case <-deadline:
			t.Fatal(never)
		}
	}
}

// newWatcher is a watcher closed when the test ends.
func newWatcher(t *testing.T) *Watcher {
	t.Helper()
	w, err := NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}
