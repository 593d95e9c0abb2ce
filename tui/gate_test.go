package tui

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/okstra/cockpit/runtime/view"
)

// decisionGate is a decision with a recommended option and two
// alternatives, each with everything needed to choose.
var decisionGate = view.Gate{
	ID: "C-003", Kind: "decision", ClarificationID: "C-003",
	Statement:    "The analysers disagree on where the session cache lives. Which layout should the plan assume?",
	ExpectedForm: "one of the options",
	Options: []view.GateOption{
		{Role: "recommended", Answer: "Keep the cache in the gateway", Rationale: "Two of three analysers traced every read path through the gateway; moving it touches nothing else.",
			Reach: "in-repo", AddedWork: "none", DirectionChange: "none"},
		{Role: "alternative", Answer: "Move the cache to the session service", Rationale: "Matches the service boundaries in the 2025 design note.",
			Reach: "cross-repo", ScopeEffects: []string{"session-service", "gateway"}, AddedWork: "a migration and a second deploy", DirectionChange: "reverses the gateway-first plan"},
		{Role: "alternative", Answer: "Drop the cache", Rationale: "The hit rate in the traces is below 20%.",
			Reach: "in-repo", AddedWork: "load test", DirectionChange: "removes the caching work package"},
	},
}

var authoringGate = view.Gate{
	ID: "report-authoring", Kind: "report-authoring",
	Statement:  "May the lead write the final report itself?",
	ReasonHint: "the report-writer worker timed out twice",
}

// gateApp is a dry app (two panes, no Manager) whose AnswerGate records
// answers and returns err.
func gateApp(t *testing.T, w, h int, err error) (*App, *[]view.GateAnswer) {
	t.Helper()
	var got []view.GateAnswer
	a := dryApp(t, w, h, 1)
	a.actions.AnswerGate = func(ans view.GateAnswer) error {
		got = append(got, ans)
		return err
	}
	return a, &got
}

// run feeds msg to a and runs the commands it returns, feeding their
// messages back (no Manager: nothing else runs).
func run(a *App, msg tea.Msg) {
	_, cmd := a.Update(msg)
	var exec func(tea.Cmd)
	exec = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch m := c().(type) {
		case nil:
		case tea.BatchMsg:
			for _, sub := range m {
				exec(sub)
			}
		default:
			run(a, m)
		}
	}
	exec(cmd)
}

func runKeys(a *App, names ...string) {
	for _, n := range names {
		run(a, keyPress(n))
	}
}

func typeText(a *App, s string) {
	for _, r := range s {
		if r == ' ' {
			run(a, keyPress("space"))
		} else {
			run(a, keyPress(string(r)))
		}
	}
}

func withGates(gates ...view.Gate) view.ViewUpdated {
	v := runView()
	v.Gates = gates
	return view.ViewUpdated{View: v}
}

func TestGateGolden(t *testing.T) {
	t.Run("decision_120x40", func(t *testing.T) {
		a, _ := gateApp(t, 120, 40, nil)
		run(a, withGates(decisionGate, authoringGate))
		runKeys(a, "j")
		golden.RequireEqual(t, a.View().Content)
	})
	t.Run("decision_80x24", func(t *testing.T) {
		// Too short for every option's details: only the chosen one's.
		a, _ := gateApp(t, 80, 24, nil)
		run(a, withGates(decisionGate))
		runKeys(a, "tab")
		typeText(a, "gateway first")
		golden.RequireEqual(t, a.View().Content)
	})
	t.Run("authoring_refused", func(t *testing.T) {
		a, _ := gateApp(t, 100, 30, nil)
		run(a, withGates(authoringGate))
		runKeys(a, "enter")
		golden.RequireEqual(t, a.View().Content)
	})
	t.Run("nocolor", func(t *testing.T) {
		a, _ := gateApp(t, 100, 40, nil)
		a.st = NewStyles(DefaultPalette(), true)
		a.glyphs, a.attn = styleGlyphs(a.st)
		run(a, withGates(decisionGate))
		golden.RequireEqual(t, a.View().Content)
	})
}

func TestGateDecision(t *testing.T) {
	a, got := gateApp(t, 120, 40, nil)
	run(a, withGates(decisionGate))
	if a.gate == nil || a.gate.id != "C-003" {
		t.Fatal("a new gate did not open while navigating")
	}
	runKeys(a, "3", "k", "tab")
	typeText(a, "importers first")
	runKeys(a, "enter")
	want := view.GateAnswer{GateID: "C-003", Option: 1, Note: "importers first"}
	if len(*got) != 1 || (*got)[0].GateID != want.GateID || (*got)[0].Option != want.Option || (*got)[0].Note != want.Note {
		t.Fatalf("answers = %+v, want [%+v]", *got, want)
	}
	if a.gate != nil || !strings.Contains(a.notice, "answered") || len(a.run.Gates) != 0 {
		t.Fatalf("after the answer: dialog %v, notice %q, gates %d", a.gate, a.notice, len(a.run.Gates))
	}
	// The same gate in a run view built before the engine dropped it does
	// not open again.
	run(a, withGates(decisionGate))
	if a.gate != nil {
		t.Fatal("an answered gate opened again")
	}
}

func TestGateReportAuthoring(t *testing.T) {
	a, got := gateApp(t, 100, 30, nil)
	run(a, withGates(authoringGate))
	runKeys(a, "enter")
	if len(*got) != 0 || !strings.Contains(a.gate.err, "reason is required") || !a.gate.editing {
		t.Fatalf("no reason: answers %+v, err %q", *got, a.gate.err)
	}
	run(a, tea.PasteMsg{Content: "the report-writer\ntimed out twice"})
	runKeys(a, "esc", "d", "enter")
	if len(*got) != 1 || (*got)[0] != (view.GateAnswer{GateID: "report-authoring", Option: -1, Status: "denied", Note: "the report-writer timed out twice"}) {
		t.Fatalf("answers = %+v", *got)
	}
}

func TestGateRefused(t *testing.T) {
	a, got := gateApp(t, 100, 30, errors.New("choose one of the 3 options"))
	run(a, withGates(decisionGate))
	runKeys(a, "enter")
	if len(*got) != 1 || a.gate == nil || a.gate.busy || a.gate.err != "choose one of the 3 options" {
		t.Fatalf("refused answer: %d calls, dialog %+v", len(*got), a.gate)
	}
	if !strings.Contains(ansi.Strip(a.View().Content), "choose one of the 3 options") {
		t.Fatal("the refusal is not shown")
	}
}

func TestGateLaterAndWhileTyping(t *testing.T) {
	a, _ := gateApp(t, 100, 30, nil)
	runKeys(a, "l", "enter") // typing into the worker
	run(a, withGates(decisionGate))
	if a.gate != nil || a.mode != modeInput {
		t.Fatal("a gate opened while the human was typing into a pane")
	}
	// In input mode g goes to the pane: the status line names the key
	// that works (issue 12, part 5).
	if !strings.Contains(a.notice, "ctrl+b g answers") || !strings.Contains(ansi.Strip(a.statusLine()), "1 gate waiting (ctrl+b g)") {
		t.Fatalf("notice %q, status %q", a.notice, ansi.Strip(a.statusLine()))
	}
	runKeys(a, "ctrl+b", "g")
	if a.gate == nil {
		t.Fatal("prefix g did not open the gate")
	}
	runKeys(a, "esc")
	if a.gate != nil || len(a.run.Gates) != 1 {
		t.Fatal("esc did not close the dialog, or dropped the gate")
	}
	runKeys(a, "g")
	if a.gate == nil {
		t.Fatal("g did not reopen the gate")
	}
	// The engine withdrew the gate: the dialog closes.
	run(a, withGates())
	if a.gate != nil {
		t.Fatal("the dialog stayed open on a withdrawn gate")
	}
}

func TestGateWithoutEngine(t *testing.T) {
	a := dryApp(t, 100, 30, 1)
	run(a, withGates(decisionGate))
	runKeys(a, "enter")
	if a.gate == nil || !strings.Contains(a.gate.err, "user-response write") {
		t.Fatalf("no engine: dialog %+v", a.gate)
	}
}

// screenRow finds the screen row showing text.
func screenRow(t *testing.T, a *App, text string) int {
	t.Helper()
	for y, l := range strings.Split(ansi.Strip(a.View().Content), "\n") {
		if strings.Contains(l, text) {
			return y
		}
	}
	t.Fatalf("%q is not on screen", text)
	return -1
}

func click(x, y int) tea.MouseClickMsg {
	return tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft}
}

func TestGateMouse(t *testing.T) {
	a, got := gateApp(t, 120, 40, nil)
	run(a, withGates(decisionGate))
	y := screenRow(t, a, "Move the cache to the session service")
	run(a, click(60, y))
	if a.gate == nil || a.gate.sel != 1 || len(*got) != 0 {
		t.Fatalf("a click on the second option: dialog %+v, answers %+v", a.gate, *got)
	}
	// A click on a detail row of the third option selects it too.
	y = screenRow(t, a, "The hit rate in the traces is below 20%.")
	run(a, click(60, y))
	if a.gate.sel != 2 {
		t.Fatalf("a click on the third option's rationale selected %d", a.gate.sel)
	}
	// A second click on the chosen option answers with it.
	run(a, click(60, y))
	if len(*got) != 1 || (*got)[0].Option != 2 || (*got)[0].GateID != "C-003" {
		t.Fatalf("answers %+v", *got)
	}

	// A click outside the box leaves the gate waiting, as esc does.
	b, none := gateApp(t, 120, 40, nil)
	run(b, withGates(decisionGate))
	run(b, click(1, 1))
	if b.gate != nil || len(*none) != 0 || len(b.run.Gates) != 1 {
		t.Fatalf("a click outside: dialog %+v, answers %+v", b.gate, *none)
	}
}

// collect runs cmd and gathers every message it and its batches produce.
func collect(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch m := cmd().(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range m {
			out = append(out, collect(c)...)
		}
		return out
	default:
		return []tea.Msg{m}
	}
}

func TestGateRingsAndNotifies(t *testing.T) {
	a, _ := gateApp(t, 120, 40, nil)
	_, cmd := a.Update(withGates(decisionGate))
	var raw []string
	for _, m := range collect(cmd) {
		if r, ok := m.(tea.RawMsg); ok {
			raw = append(raw, r.Msg.(string))
		}
	}
	if len(raw) != 1 || !strings.HasPrefix(raw[0], "\a\x1b]9;cockpit: gate C-003") || !strings.HasSuffix(raw[0], "\x07") {
		t.Fatalf("a new gate must ring the bell and send an OSC 9 notification, sent %q", raw)
	}
	// The same gate in the next view does not ring again.
	_, cmd = a.Update(withGates(decisionGate))
	for _, m := range collect(cmd) {
		if _, ok := m.(tea.RawMsg); ok {
			t.Fatal("the bell rang again for a gate already announced")
		}
	}
}
