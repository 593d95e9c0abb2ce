package panes

import (
	"errors"
	"slices"
	"testing"
)

// TestRespawn: a pane whose program runs is not respawned; once it exited,
// Respawn starts a new program under the same id and in the same place,
// with a new pid and a fresh screen, and the change signal names the pane.
func TestRespawn(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	m := NewManager()
	t.Cleanup(func() { _ = m.CloseAll() })
	first := openHelper(t, m, Config{Cols: 40, Rows: 5}, "keys")
	second := openHelper(t, m, Config{Cols: 40, Rows: 5}, "exit", "3")
	if _, err := m.Respawn(first.ID(), Config{Argv: []string{helperBin, "exit", "0"}}); !errors.Is(err, ErrRunning) {
		t.Fatalf("respawning a running pane: err = %v, want ErrRunning", err)
	}
	if _, err := m.Respawn("pane-99", Config{Argv: []string{helperBin, "exit", "0"}}); !errors.Is(err, ErrNoPane) {
		t.Fatalf("respawning an unknown pane: err = %v, want ErrNoPane", err)
	}
	if st := waitDone(t, second); st.Code != 3 {
		t.Fatalf("exit status %v, want 3", st)
	}
	waitScreen(t, second, "bye 3")
	m.TakeDirty(nil)
	p, err := m.Respawn(second.ID(), Config{Argv: []string{helperBin, "exit", "5"}, Cols: 40, Rows: 5})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	if p.ID() != second.ID() || p.Pid() == second.Pid() {
		t.Fatalf("respawned pane %s pid %d; was %s pid %d", p.ID(), p.Pid(), second.ID(), second.Pid())
	}
	if got, _ := m.Get(second.ID()); got != p {
		t.Fatal("Get does not return the respawned pane")
	}
	if l := m.List(); len(l) != 2 || l[0] != first || l[1] != p {
		t.Fatalf("List after respawn: %v", l)
	}
	if ids := m.TakeDirty(nil); !slices.Contains(ids, p.ID()) {
		t.Fatalf("TakeDirty after respawn = %v, want %s", ids, p.ID())
	}
	if st := waitDone(t, p); st.Code != 5 {
		t.Fatalf("the new program's exit status %v, want 5", st)
	}
	waitScreen(t, p, "bye 5")
	if s := p.Snapshot(); s.Pid != p.Pid() || !s.Exited || s.Status.Code != 5 {
		t.Fatalf("snapshot after respawn: pid %d exited %v status %v", s.Pid, s.Exited, s.Status)
	}
	if screenText(p) != "bye 5" {
		t.Fatalf("the respawned pane shows the old screen too:\n%s", screenText(p))
	}
}
