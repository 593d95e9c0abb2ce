package tui

import (
	"slices"
	"testing"
	"time"

	"github.com/okstra/cockpit/panes"
)

// waitSignal waits for sub's change signal, failing after a deadline.
func waitSignal(t *testing.T, sub *dirtySub, what string) {
	t.Helper()
	select {
	case <-sub.signal():
	case <-time.After(10 * time.Second):
		t.Fatalf("no change signal: %s", what)
	}
}

// TestDirtyAfterAScreenLeft: a screen that ends between a wake-up and its
// take leaves the pane marked (a marked pane does not signal again); the
// next screen still gets it, and its later changes.
func TestDirtyAfterAScreenLeft(t *testing.T) {
	mgr := panes.NewManager()
	t.Cleanup(func() { _ = mgr.CloseAll() })
	first := subscribeDirty(mgr)
	p, err := mgr.Open(panes.Config{Argv: []string{paneprog(), "static", "X"}, Cols: 20, Rows: 5, CloseGrace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	waitSignal(t, first, "the pane opened")
	first.close() // without taking

	next := subscribeDirty(mgr)
	t.Cleanup(next.close)
	waitSignal(t, next, "a new screen")
	deadline := time.Now().Add(10 * time.Second)
	for ids := next.take(nil); !slices.Contains(ids, p.ID()); ids = next.take(nil) {
		if time.Now().After(deadline) {
			t.Fatal("the marked pane never came")
		}
		waitSignal(t, next, "the marked pane")
	}
	if err := p.Resize(30, 6); err != nil { // the program draws again
		t.Fatal(err)
	}
	for ids := []string(nil); !slices.Contains(ids, p.ID()); ids = next.take(nil) {
		waitSignal(t, next, "the pane's change after the take")
	}
}

// TestDirtySharedTake: a take by one screen hands the change and the
// pane's events to the other, and signals it.
func TestDirtySharedTake(t *testing.T) {
	mgr := panes.NewManager()
	t.Cleanup(func() { _ = mgr.CloseAll() })
	a, b := subscribeDirty(mgr), subscribeDirty(mgr)
	t.Cleanup(a.close)
	t.Cleanup(b.close)
	p, err := mgr.Open(panes.Config{Argv: []string{paneprog(), "notify", "hello"}, Cols: 20, Rows: 5, CloseGrace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// Only a takes; b gets the pane and the bell from a's takes.
	deadline := time.Now().Add(10 * time.Second)
	for {
		waitSignal(t, a, "the pane")
		a.take(nil)
		b.mu.Lock()
		n := len(b.events[p.ID()])
		b.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no bell")
		}
	}
	if evs := a.takeEvents(p.ID()); len(evs) == 0 {
		t.Fatal("a did not get the bell")
	}
	select {
	case <-b.signal():
	default:
		t.Fatal("b was not signalled by a's take")
	}
	if ids := b.take(nil); !slices.Contains(ids, p.ID()) {
		t.Fatalf("b's take: %v, want %s", ids, p.ID())
	}
	if evs := b.takeEvents(p.ID()); len(evs) == 0 {
		t.Fatal("b did not get the bell")
	}
}
