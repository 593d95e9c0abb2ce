package control

import (
	"encoding/json"
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
