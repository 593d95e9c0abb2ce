package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/runtime/view"
)

// TestRespawnLead: the lead's command is not started again while it runs;
// once it exited, RespawnLead runs it again in the same pane, with the
// argv, environment and working directory it started with, and announces
// it; the pane's exit is followed again.
func TestRespawnLead(t *testing.T) {
	t.Parallel() // beside TestFrozenEventsClientIsDropped's wait
	run, _ := runtest.StartedRun(t, 0)
	dir := t.TempDir()
	runs, gate := filepath.Join(dir, "runs"), filepath.Join(dir, "go")
	// Each run appends a line (its env and cwd) and waits for the go file,
	// then exits 3.
	lead := []string{"/bin/sh", "-c", `echo "$LEAD_MARK $(pwd) $COCKPIT_PANE" >> "$1"; while [ ! -f "$2" ]; do sleep 0.02; done; rm -f "$2"; exit 3`, "lead", runs, gate}
	c, err := Start(Config{Run: run, NoServer: true, Lead: lead, LeadEnv: []string{"LEAD_MARK=mark-1"}, CloseGrace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	events, stop := c.Subscribe()
	defer stop()
	id := c.LeadPane()
	first, _ := c.Manager().Get(id)
	lines := func(n int) []string {
		t.Helper()
		var ls []string
		waitUntil(t, "the lead's run "+string(rune('0'+n)), func() bool {
			data, _ := os.ReadFile(runs)
			ls = strings.Split(strings.TrimSpace(string(data)), "\n")
			return len(ls) >= n && ls[0] != ""
		})
		return ls
	}
	lines(1)
	if err := c.RespawnLead(); !errors.Is(err, ErrLeadRunning) {
		t.Fatalf("RespawnLead while the lead runs: %v, want ErrLeadRunning", err)
	}
	_ = os.WriteFile(gate, nil, 0o644)
	<-first.Done()
	if err := c.RespawnLead(); err != nil {
		t.Fatal(err)
	}
	ls := lines(2)
	want := "mark-1 " + run.Root.Dir() + " " + id
	if len(ls) != 2 || ls[0] != want || ls[1] != want {
		t.Fatalf("the lead's runs wrote %q, want twice %q", ls, want)
	}
	second, ok := c.Manager().Get(id)
	if !ok || second == first || second.Pid() == first.Pid() || c.LeadPane() != id {
		t.Fatalf("after respawn: pane %v (first %p, second %p), lead pane %q", ok, first, second, c.LeadPane())
	}
	for _, p := range c.ListPanes().Panes {
		if p.PaneID == id && (p.PID != second.Pid() || p.Exited) {
			t.Fatalf("list-panes after respawn: %+v, want pid %d running", p, second.Pid())
		}
	}
	noticed := false
	for !noticed {
		select {
		case ev := <-events:
			if n, ok := ev.(view.Notice); ok && n.PaneID == id {
				noticed = true
			}
		case <-time.After(testenv.Scale(10 * time.Second)):
			t.Fatal("no notice for the respawned lead")
		}
	}
	_ = os.WriteFile(gate, nil, 0o644)
	<-second.Done()
	if st, _ := second.Status(); st.Code != 3 {
		t.Fatalf("the second run exited %v, want 3", st)
	}
	if err := c.RespawnLead(); err != nil {
		t.Fatalf("a second respawn: %v", err)
	}
	lines(3)
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testenv.Scale(15 * time.Second))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
