package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// TestEngineEventsAsOne: engine events delivered together (EngineEvents,
// an attached screen's opening burst) leave the screen as the same events
// one by one do.
func TestEngineEventsAsOne(t *testing.T) {
	evs := []any{
		view.PaneOpened{PaneID: "pane-1", Title: "lead", Lead: true},
		view.PaneOpened{PaneID: "pane-2", Title: "codex-analyser-1", DispatchID: "d-001"},
		view.PaneOpened{PaneID: "pane-3", Title: "claude-analyser-2", DispatchID: "d-002"},
		view.ViewUpdated{View: runView(
			dispatchSpec{pane: "pane-2", label: "codex-analyser-1", status: state.StatusInProgress, ago: time.Minute},
			dispatchSpec{pane: "pane-3", label: "claude-analyser-2", status: state.StatusCompleted, ago: 2 * time.Minute, ran: time.Minute},
		)},
		view.PaneClosed{PaneID: "pane-3", Reason: "reclaimed"},
		view.Notice{Text: "a notice for the status line"},
		"not an engine event",
	}
	screen := func(batch bool) string {
		a := New(Config{Now: func() time.Time { return testNow }})
		a.manual = true
		a.resizeDelay = 0
		send(a, tea.WindowSizeMsg{Width: 120, Height: 40})
		if batch {
			send(a, EngineEvents(evs))
		} else {
			for _, ev := range evs {
				send(a, ev)
			}
		}
		return ansi.Strip(a.View().Content)
	}
	one, all := screen(false), screen(true)
	if one != all {
		t.Fatalf("one by one:\n%s\ntogether:\n%s", one, all)
	}
	for _, want := range []string{"codex-analyser-1", "a notice for the status line"} {
		if !strings.Contains(all, want) {
			t.Errorf("the screen does not show %q:\n%s", want, all)
		}
	}
}
