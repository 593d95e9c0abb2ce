package tui

import (
	"testing"

	"github.com/okstra/cockpit/runtime/view"
)

// TestPanesNumberedInOpeningOrder: the screen numbers the engine's panes
// in the order the engine opened them (pane-N by N), whatever order it
// hears of them in — a frame's snapshots of panes opened before the screen
// started come in no order, and pane 2 was Claude in one run and Codex in
// the next. A replayed log pane goes after them.
func TestPanesNumberedInOpeningOrder(t *testing.T) {
	hs := newHarness(t, 80, 24)
	for _, m := range []view.PaneOpened{
		{PaneID: "pane-1", Title: "lead", Lead: true},
		{PaneID: "pane-4", Title: "Claude analyser"},
		{PaneID: "pane-2", Title: "Codex analyser"},
	} {
		hs.send(m)
	}
	hs.app.addPaneView(&paneView{id: "log-dispatch-009", title: "log"})
	hs.send(view.PaneOpened{PaneID: "pane-3", Title: "Antigravity analyser"})
	var got []string
	for _, pv := range hs.app.panes {
		got = append(got, pv.id)
	}
	want := []string{"pane-1", "pane-2", "pane-3", "pane-4", "log-dispatch-009"}
	if len(got) != len(want) {
		t.Fatalf("display order %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("display order %v, want %v", got, want)
		}
	}
}
