package control

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/okstra/cockpit/runtime/view"
)

// TestUsageEvents: a worker whose usage changed gets one usage event with
// the run's total; an unchanged one none; the line for people names the
// model and the costs.
func TestUsageEvents(t *testing.T) {
	var w Wire
	a := view.RunView{Usage: map[string]view.Usage{
		"dispatch-001": {Input: 100, Output: 10, Model: "gpt-6.1-sol", CostUSD: 0.30000000000000004, Priced: true},
	}}
	if msgs := w.Next(view.ViewUpdated{View: a}); len(msgs) != 0 {
		t.Fatalf("the baseline view emitted %v", msgs)
	}
	b := view.RunView{Usage: map[string]view.Usage{
		"dispatch-001": a.Usage["dispatch-001"],
		"dispatch-002": {Input: 5, Output: 1, Model: "gemini-3.1-pro"},
		"dispatch-003": {Input: 7, Output: 2, Model: "claude-sonnet-4-6", CostUSD: 0.125, Priced: true},
	}}
	msgs := w.Next(view.ViewUpdated{View: b})
	if len(msgs) != 2 || msgs[0].Event != EventUsage || msgs[1].Event != EventUsage {
		t.Fatalf("events = %v", msgs)
	}
	var ev UsageEvent
	if err := json.Unmarshal(msgs[1].Data, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.DispatchID != "dispatch-003" || ev.Output != 2 || ev.TotalUSD != 0.425 || ev.Unpriced != 1 || !ev.Priced {
		t.Fatalf("usage event = %+v", ev)
	}
	if got, want := EventLine(msgs[0]), "usage dispatchId=dispatch-002 model=gemini-3.1-pro totalUsd=0.425"; got != want {
		t.Fatalf("line = %q, want %q", got, want)
	}
	if got, want := EventLine(msgs[1]), "usage dispatchId=dispatch-003 model=claude-sonnet-4-6 costUsd=0.125 totalUsd=0.425"; got != want {
		t.Fatalf("line = %q, want %q", got, want)
	}
}

// TestPaneIDs: "pane-N" ids order by N (pane-10 after pane-9), and an id
// of another form is not a pane number.
func TestPaneIDs(t *testing.T) {
	ids := []string{"pane-10", "pane-2", "x", "pane-9", "pane-1"}
	slices.SortFunc(ids, ComparePaneIDs)
	if want := []string{"x", "pane-1", "pane-2", "pane-9", "pane-10"}; !slices.Equal(ids, want) {
		t.Fatalf("sorted %v, want %v", ids, want)
	}
	for id, want := range map[string]int{"pane-7": 7, "pane-": -1, "pane-x": -1, "pane--1": -1, "7": -1} {
		n, ok := PaneNumber(id)
		if (want >= 0) != ok || (ok && n != want) {
			t.Errorf("PaneNumber(%q) = %d, %v", id, n, ok)
		}
	}
}

// TestWireHandlesEveryEvent: every kind of engine event has its wire
// events (a view after a baseline view): no kind is silently dropped.
func TestWireHandlesEveryEvent(t *testing.T) {
	for _, ev := range view.Events() {
		var w Wire
		w.Next(view.ViewUpdated{})
		if vu, ok := ev.(view.ViewUpdated); ok {
			vu.View.Gates = []view.Gate{{ID: "C-001"}}
			ev = vu
		}
		if len(w.Next(ev)) == 0 {
			t.Errorf("%T makes no wire event", ev)
		}
	}
}

// TestCheckpointEventsOfAKeptTimeline: the view keeps only the newest
// checkpoints of a long ledger, so its length stays the same as lines
// arrive; the checkpoints appended are counted by the ledger's total and
// each becomes one event (before, a timeline at its cap emitted none).
func TestCheckpointEventsOfAKeptTimeline(t *testing.T) {
	entries := func(from, n int) []view.TimelineEntry {
		var out []view.TimelineEntry
		for i := range n {
			out = append(out, view.TimelineEntry{Line: "PROGRESS: phase-5-poll i=" + string(rune('a'+from+i))})
		}
		return out
	}
	var w Wire
	w.Next(view.ViewUpdated{View: view.RunView{Timeline: entries(0, 3), TimelineTotal: 10}})
	msgs := w.Next(view.ViewUpdated{View: view.RunView{Timeline: entries(2, 3), TimelineTotal: 12}})
	if len(msgs) != 2 || EventLine(msgs[0]) != "checkpoint progressLine=PROGRESS: phase-5-poll i=d" || EventLine(msgs[1]) != "checkpoint progressLine=PROGRESS: phase-5-poll i=e" {
		t.Fatalf("events = %v", msgs)
	}
	// A view without a total counts its timeline, as before.
	w = Wire{}
	w.Next(view.ViewUpdated{View: view.RunView{Timeline: entries(0, 1)}})
	if msgs := w.Next(view.ViewUpdated{View: view.RunView{Timeline: entries(0, 2)}}); len(msgs) != 1 {
		t.Fatalf("events = %v", msgs)
	}
}
