package tui

import (
	"strings"
	"testing"

	"github.com/okstra/cockpit/runtime/view"
)

// The attached screen's q dialog counts what still waits: every waiting
// gate (named, at most three) and only the worker panes whose program
// still runs, whether q comes from navigation or after the prefix while
// typing into a pane.
func TestQuitDialogCountsGatesAndWorkers(t *testing.T) {
	hs := newHarness(t, 120, 30, attached)
	hs.open("lead", true, "static", "LEAD")
	hs.open("codex-analyser-1", false, "static", "W1")
	hs.open("codex-analyser-2", false, "static", "W2")
	done := hs.open("codex-analyser-3", false, "exit", "0")
	hs.waitFor("the third worker to exit", func() bool { return hs.app.byID[done].snap.Exited })
	v := runView()
	for _, id := range []string{"C-003", "C-004", "C-005", "R-001"} {
		v.Gates = append(v.Gates, view.Gate{ID: id, Kind: "decision", Statement: "s", Options: decisionGate.Options})
	}
	hs.send(view.ViewUpdated{View: v})
	hs.key("esc") // the dialog that opened on the first gate: later
	for _, keys := range [][]string{{"q"}, {"ctrl+c"}, {"enter", "ctrl+b", "q"}} {
		hs.key(keys...)
		p := hs.plain()
		for _, want := range []string{"Detach, or end the run?", "4 gates are waiting: C-003, C-004, C-005, …", "2 workers are still running"} {
			if !strings.Contains(p, want) {
				t.Fatalf("%v: the dialog lacks %q:\n%s", keys, want, p)
			}
		}
		if strings.Contains(p, "3 workers") || strings.Contains(p, "no gate is waiting") {
			t.Fatalf("%v: the dialog miscounts:\n%s", keys, p)
		}
		hs.key("esc")
		if confirmOf(hs.app) != nil || hs.ended != nil || hs.endRuns != 0 {
			t.Fatalf("%v then esc did not just close the dialog", keys)
		}
	}
}
