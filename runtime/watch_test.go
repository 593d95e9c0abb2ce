package runtime

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

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
	w, err := NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
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
	w, err := NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	result := filepath.Join(dir, "worker-results", "deep", "r.md")
	if err := w.Watch(result, EvResult); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(result), 0o755); err != nil {
		t.Fatal(err)
	}
	// Two levels appeared at once; give the watcher time to see them, then
	// write: the file must be seen though no event came for "deep".
	time.Sleep(300 * time.Millisecond)
	os.WriteFile(result, []byte("# result"), 0o644)
	deadline := time.After(3 * time.Second)
	for {
		select {
		case b := <-w.Events():
			for _, ev := range b {
				if ev.Kind == EvResult && ev.Path == result {
					return
				}
			}
		case <-deadline:
			t.Fatal("the result file in a directory created after the watch was never reported")
		}
	}
}

func TestWatcherReportsProcessExit(t *testing.T) {
	w, err := NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
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
	w, err := NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
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
	time.Sleep(200 * time.Millisecond) // let the kernel deliver everything
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
