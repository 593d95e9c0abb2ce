package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/internal/runtest"
)

// sizeProbe is a pane program that records the terminal size it starts at
// (`stty size`: "rows cols") into a file.
func sizeProbe(out string) []string {
	return []string{"sh", "-c", `stty size > "$0"`, out}
}

// startedAt waits for pane id's program to end and returns what its probe
// wrote.
func startedAt(t *testing.T, c *Engine, id, out string) string {
	t.Helper()
	p, ok := c.Manager().Get(id)
	if !ok {
		t.Fatalf("no pane %s", id)
	}
	select {
	case <-p.Done():
	case <-time.After(testenv.Scale(10 * time.Second)):
		t.Fatalf("pane %s's program did not end", id)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// Every pane's program starts at the size the screen's layout gives its
// pane, not at a fallback size it is resized from afterwards: a full-screen
// CLI draws its first frame at the right width.
func TestPanesStartAtTheirLaidOutSize(t *testing.T) {
	t.Parallel() // beside TestFrozenEventsClientIsDropped's wait
	run, _ := runtest.StartedRun(t, 0)
	dir := t.TempDir()
	leadOut := filepath.Join(dir, "lead")
	// 160×48: header and status lines, an 8-row timeline, 38 rows of panes.
	c, err := Start(Config{Run: run, NoServer: true, ScreenCols: 160, ScreenRows: 48, Lead: sizeProbe(leadOut)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The lead alone fills the pane area (less its title bar).
	if got := startedAt(t, c, c.LeadPane(), leadOut); got != "37 160" {
		t.Fatalf("the lead started at %q (rows cols), want 37 160", got)
	}
	// A batch of two workers: the lead keeps half, the workers share the
	// other half one above the other — both start at 79×18, the first
	// one too, though it opens while it is the only worker.
	for i, following := range []int{1, 0} {
		out := filepath.Join(dir, "w"+string(rune('0'+i)))
		res, err := c.OpenPane(control.OpenPaneParams{Argv: sizeProbe(out), Title: "w", Following: following})
		if err != nil {
			t.Fatal(err)
		}
		if got := startedAt(t, c, res.PaneID, out); got != "18 79" {
			t.Fatalf("worker %d started at %q (rows cols), want 18 79", i+1, got)
		}
	}
	// The screen says it is 100×30 with the timeline hidden: a third worker
	// gets the bottom row of a two-column grid right of a 40-column lead.
	c.SetScreen(ScreenSize{Cols: 100, Rows: 30, Timeline: false})
	out := filepath.Join(dir, "w2")
	res, err := c.OpenPane(control.OpenPaneParams{Argv: sizeProbe(out), Title: "w"})
	if err != nil {
		t.Fatal(err)
	}
	if got := startedAt(t, c, res.PaneID, out); got != "13 59" {
		t.Fatalf("worker 3 started at %q (rows cols), want 13 59", got)
	}
}
