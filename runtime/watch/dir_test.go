package watch

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// waitEvent takes batches until one holds an event for path, failing after
// within.
func waitDirEvent(t *testing.T, w *Watcher, path string, within time.Duration) FileEvent {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case b := <-w.Events():
			for _, ev := range b {
				if ev.Path == path {
					return ev
				}
			}
		case <-deadline:
			t.Fatalf("no event for %s within %s", path, within)
		}
	}
}

// TestWatchDir: every entry of a WatchDir directory is reported with its
// kind (not the entries of a subdirectory); a directory made after the call
// is waited for, and what it holds by then is reported.
func TestWatchDir(t *testing.T) {
	base := t.TempDir()
	w := newWatcher(t)
	day := filepath.Join(base, "sessions", "2026", "12", "01")
	if err := w.WatchDir(day, EvUsage); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	early := filepath.Join(day, "rollout-a.jsonl")
	os.WriteFile(early, []byte("{}\n"), 0o644)
	if ev := waitDirEvent(t, w, early, 5*time.Second); ev.Kind != EvUsage {
		t.Fatalf("event %+v", ev)
	}
	// An append to an entry is an event too.
	f, _ := os.OpenFile(early, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{}\n")
	f.Close()
	waitDirEvent(t, w, early, 5*time.Second)
	// A subdirectory's entries are not.
	sub := filepath.Join(day, "sub")
	os.Mkdir(sub, 0o755)
	waitDirEvent(t, w, sub, 5*time.Second)
	os.WriteFile(filepath.Join(sub, "x"), nil, 0o644)
	noBatch(t, w, 150*time.Millisecond)
}
