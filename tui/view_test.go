package tui

import (
	"fmt"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// screen is what a golden file holds: the view, and the cursor when shown.
func screen(hs *harness) string {
	v := hs.app.View()
	out := v.Content
	if v.Cursor != nil {
		out += fmt.Sprintf("\n--- cursor at %d,%d", v.Cursor.X, v.Cursor.Y)
	}
	return out
}

// twoPaneRun opens the lead and one running worker.
func twoPaneRun(t *testing.T, w, h int, opts ...func(*Config)) *harness {
	hs := newHarness(t, w, h, opts...)
	hs.open("lead", true, "static", "LEAD")
	w1 := hs.open("codex-analyser-1", false, "static", "WORKER-1", "color")
	hs.send(view.ViewUpdated{View: runView(
		dispatchSpec{pane: w1, label: "codex-analyser-1", status: "in-progress", ago: 3*time.Minute + 7*time.Second},
	)})
	hs.waitDrawn()
	return hs
}

// ninePaneRun opens the lead and eight workers in every state: done,
// running, error, timeout, not run, needing attention, and one with a cost.
func ninePaneRun(t *testing.T, w, h int, opts ...func(*Config)) *harness {
	hs := newHarness(t, w, h, opts...)
	hs.open("lead", true, "static", "LEAD")
	labels := []string{
		"codex-analyser-1", "claude-analyser-2", "gemini-analyser-3", "grok-critic-4",
		"kimi-critic-5", "codex-verifier-6", "claude-verifier-7", "codex-report-writer-8",
	}
	statuses := []state.Status{"completed", "in-progress", "error", "timeout", "not-run", "in-progress", "in-progress", "in-progress"}
	var specs []dispatchSpec
	ids := make([]string, len(labels))
	for i, l := range labels {
		if l == "codex-verifier-6" {
			ids[i] = hs.open(l, false, "notify", "needs-you")
		} else {
			ids[i] = hs.open(l, false, "static", fmt.Sprintf("W%d", i+1))
		}
		specs = append(specs, dispatchSpec{pane: ids[i], label: l, status: statuses[i], ago: time.Duration(10-i) * time.Minute, ran: time.Duration(4*60+i*17) * time.Second})
	}
	v := runView(specs...)
	v.Gates = []view.Gate{{ID: "C-003", Kind: "decision"}}
	hs.send(view.ViewUpdated{View: v})
	hs.key("esc") // the gate opened; leave it waiting (the status line says so)
	hs.send(PaneCost{PaneID: ids[7], USD: 1.375})
	hs.waitFor("the notification", func() bool { return hs.app.byID[ids[5]].attention })
	hs.waitDrawn()
	return hs
}

func TestLayoutGolden(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	for _, size := range [][2]int{{60, 20}, {80, 24}, {160, 48}} {
		name := fmt.Sprintf("%dx%d", size[0], size[1])
		t.Run("2pane_"+name, func(t *testing.T) {
			hs := twoPaneRun(t, size[0], size[1])
			golden.RequireEqual(t, screen(hs))
		})
		t.Run("9pane_"+name, func(t *testing.T) {
			hs := ninePaneRun(t, size[0], size[1])
			golden.RequireEqual(t, screen(hs))
		})
	}
}

func TestZoomGolden(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	hs := ninePaneRun(t, 80, 24)
	hs.key("3", "z")
	hs.waitDrawn()
	golden.RequireEqual(t, screen(hs))
}

func TestTinyGolden(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	hs := newHarness(t, 30, 8)
	hs.open("lead", true, "static", "LEAD")
	hs.open("codex-analyser-1", false, "static", "W1")
	hs.open("claude-analyser-2", false, "static", "W2")
	hs.key("tab")
	hs.waitDrawn()
	golden.RequireEqual(t, screen(hs))
}

func TestInputModeGolden(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	hs := twoPaneRun(t, 80, 24)
	hs.key("l", "enter")
	golden.RequireEqual(t, screen(hs))
}

// TestScrollGolden: scroll mode, its tag as tmux's copy mode says it
// ([lines above the bottom/history], finding 19), its keys pinned.
func TestScrollGolden(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	for _, size := range [][2]int{{60, 20}, {80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			hs := newHarness(t, size[0], size[1])
			hs.open("lead", true, "static", "LEAD")
			id := hs.open("codex-analyser-1", false, "history", "200")
			hs.waitFor("the history", func() bool {
				pv := hs.app.byID[id]
				return pv.snap.ScrollbackLen > 150
			})
			hs.waitDrawn()
			hs.key("l", "[", "pgup", "k", "k")
			hs.waitFor("the scrolled view", func() bool { return hs.app.scroll.valid && hs.app.scroll.fetched == hs.app.scroll.back })
			golden.RequireEqual(t, screen(hs))
		})
	}
}

func TestHelpGolden(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	for _, size := range [][2]int{{60, 20}, {80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			hs := twoPaneRun(t, size[0], size[1])
			hs.key("?")
			golden.RequireEqual(t, screen(hs))
		})
	}
}

func TestNoColorGolden(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	t.Run("2pane", func(t *testing.T) {
		hs := twoPaneRun(t, 80, 24, func(c *Config) { c.NoColor = true })
		golden.RequireEqual(t, screen(hs))
	})
	t.Run("9pane", func(t *testing.T) {
		hs := ninePaneRun(t, 160, 48, func(c *Config) { c.NoColor = true })
		golden.RequireEqual(t, screen(hs))
	})
}

func TestQuitConfirmGolden(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	hs := twoPaneRun(t, 80, 24)
	hs.key("q")
	golden.RequireEqual(t, screen(hs))
}
