package panes

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestManagerIDs(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	m := NewManager()
	a := openHelper(t, m, Config{}, "winch")
	b := openHelper(t, m, Config{}, "winch")
	if a.ID() != "pane-1" || b.ID() != "pane-2" {
		t.Fatalf("ids %s, %s; want pane-1, pane-2", a.ID(), b.ID())
	}
	if err := m.Close("pane-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Open(Config{Argv: []string{"/nonexistent"}}); err == nil {
		t.Fatal("open of a missing program succeeded")
	}
	c := openHelper(t, m, Config{}, "winch")
	if c.ID() != "pane-4" {
		t.Fatalf("id after a close and a failed open = %s, want pane-4 (ids are never reused)", c.ID())
	}
	var ids []string
	for _, p := range m.List() {
		ids = append(ids, p.ID())
	}
	if !slices.Equal(ids, []string{"pane-2", "pane-4"}) {
		t.Fatalf("List = %v", ids)
	}
	if p, ok := m.Get("pane-4"); !ok || p != c {
		t.Fatal("Get(pane-4) failed")
	}
	if _, ok := m.Get("pane-1"); ok {
		t.Fatal("closed pane still found")
	}
	if err := m.Close("pane-9"); !errors.Is(err, ErrNoPane) {
		t.Fatalf("Close(unknown) = %v, want ErrNoPane", err)
	}
}

func TestTakeDirtyOrderAndReset(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	m := NewManager()
	var ps []*Pane
	for range 3 {
		p := openHelper(t, m, Config{}, "winch")
		waitScreen(t, p, "size=")
		ps = append(ps, p)
	}
	waitFor(t, "panes reported dirty", 10*time.Second, func() bool { return len(m.Dirty()) == 1 })
	if got := m.TakeDirty(nil); !slices.Equal(got, []string{"pane-1", "pane-2", "pane-3"}) {
		t.Fatalf("TakeDirty = %v", got)
	}
	if got := m.TakeDirty(nil); len(got) != 0 || len(m.Dirty()) != 0 {
		t.Fatalf("second TakeDirty = %v, signal pending %d", got, len(m.Dirty()))
	}
	// Only the pane that changed is reported.
	if err := ps[1].Resize(81, 24); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, ps[1], "size=81x24")
	<-m.Dirty()
	if got := m.TakeDirty(nil); !slices.Equal(got, []string{"pane-2"}) {
		t.Fatalf("TakeDirty after resizing pane-2 = %v", got)
	}
}

func TestDirtySignalCoalesces(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	m := NewManager()
	const lines = 10000
	p := openHelper(t, m, Config{}, "flood", "10000")

	// The UI loop: wait for a frame, snapshot the dirty panes.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	frames := 0
	for !p.Exited() || len(m.Dirty()) > 0 {
		ids, err := m.WaitDirty(ctx, 10*time.Millisecond)
		if err != nil {
			t.Fatalf("after %d frames: %v", frames, err)
		}
		frames++
		for _, id := range ids {
			if q, ok := m.Get(id); ok {
				q.Snapshot()
			}
		}
	}
	reads := p.reads.Load()
	t.Logf("%d lines written, %d PTY reads, %d frames", lines, reads, frames)
	if frames >= lines/10 {
		t.Fatalf("%d frames for %d writes: the signal does not coalesce", frames, lines)
	}
	// One frame for the open and one for the exit, at most one per read.
	if int64(frames) > reads+2 {
		t.Fatalf("%d frames for %d reads: more notifications than changes", frames, reads)
	}
	if text := screenText(p); !slices.Contains(p.Capture(false), "done") {
		t.Fatalf("last screen lacks the end of the output:\n%s", text)
	}
}

func TestDirtyNotificationsPerChange(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	// Without frame pacing, a pane is reported at most once per change the
	// UI has not taken yet: never more notifications than PTY reads.
	m := NewManager()
	p := openHelper(t, m, Config{}, "flood", "10000")
	notes := 0
	for !p.Exited() || len(m.Dirty()) > 0 {
		select {
		case <-m.Dirty():
			notes++
			m.TakeDirty(nil)
		case <-time.After(10 * time.Second):
			t.Fatal("no notification")
		}
	}
	// One for the open, one for the exit, at most one per read.
	if reads := p.reads.Load(); int64(notes) > reads+2 {
		t.Fatalf("%d notifications for %d reads", notes, reads)
	}
	t.Logf("%d notifications, %d reads, 10000 writes", notes, p.reads.Load())
}

func TestIdlePaneIsNeverDirty(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	m := NewManager()
	p := openHelper(t, m, Config{}, "winch")
	waitScreen(t, p, "size=")
	waitFor(t, "output settled", 10*time.Second, func() bool {
		return p.reads.Load() > 0 && p.feeds.Load() == p.reads.Load()
	})
	m.TakeDirty(nil)
	// Snapshots and input-mode queries are reads: they must not mark the
	// pane.
	for range 100 {
		p.Snapshot()
		p.Modes()
	}
	// An idle program produces nothing for the UI. Asserting an absence
	// needs some window; no event can legitimately arrive in it.
	select {
	case <-m.Dirty():
		t.Fatalf("idle pane reported dirty: %v", m.TakeDirty(nil))
	case <-time.After(200 * time.Millisecond):
	}
	if p.dirty.Load() {
		t.Fatal("idle pane marked dirty")
	}
}

func TestSnapshotReusesRows(t *testing.T) {
	m := NewManager()
	p := openHelper(t, m, Config{}, "keys")
	waitScreen(t, p, "ready")
	waitFor(t, "output settled", 10*time.Second, func() bool { return p.feeds.Load() == p.reads.Load() })
	s1 := p.Snapshot()
	if s2 := p.Snapshot(); s2.Seq != s1.Seq || &s2.Lines[0] != &s1.Lines[0] {
		t.Fatal("unchanged pane: snapshot rebuilt")
	}
	if n := testing.AllocsPerRun(100, func() { p.Snapshot() }); n != 0 {
		t.Fatalf("unchanged snapshot allocates %v times", n)
	}
	if err := p.SendKey(Key{Code: 'q'}); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, p, "in=71")
	s3 := p.Snapshot()
	if s3.Seq == s1.Seq {
		t.Fatal("Seq did not change")
	}
	// s1 is immutable: the pane copied the row slice before changing it.
	if s1.Lines[1] != "" || s3.Lines[1] != "in=71" {
		t.Fatalf("rows: old %q new %q", s1.Lines[1], s3.Lines[1])
	}
}
