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
		runKeys(a, "down")
		golden.RequireEqual(t, a.View().Content)
	})
	t.Run("decision_80x24", func(t *testing.T) {
		// Too short for every option's details: only the chosen one's.
		a, _ := gateApp(t, 80, 24, nil)
		run(a, withGates(decisionGate))
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
	if gateOf(a) == nil || gateOf(a).id != "C-003" {
		t.Fatal("a new gate did not open while navigating")
	}
	runKeys(a, "up", "up") // wraps to the third, then the second
	typeText(a, "importers first")
	if got := sendsLine(a); got != "enter sends: 2. Move the cache to the session service · note “importers first”" {
		t.Fatalf("the dialog says it sends %q", got)
	}
	runKeys(a, "enter")
	want := view.GateAnswer{GateID: "C-003", Option: 1, Note: "importers first"}
	if len(*got) != 1 || (*got)[0] != want {
		t.Fatalf("answers = %+v, want [%+v]", *got, want)
	}
	if gateOf(a) != nil || !strings.Contains(a.notice, "answered") || len(a.run.Gates) != 0 {
		t.Fatalf("after the answer: dialog %v, notice %q, gates %d", gateOf(a), a.notice, len(a.run.Gates))
	}
	// The same gate in a run view built before the engine dropped it does
	// not open again.
	run(a, withGates(decisionGate))
	if gateOf(a) != nil {
		t.Fatal("an answered gate opened again")
	}
}

// sendsLine is the dialog's line saying what enter sends.
func sendsLine(a *App) string {
	for _, l := range strings.Split(ansi.Strip(a.View().Content), "\n") {
		for _, lead := range []string{"enter sends: ", "sending: "} {
			if i := strings.Index(l, lead); i >= 0 {
				return strings.TrimRight(strings.TrimSuffix(strings.TrimRight(l[i:], " "), "│"), " ")
			}
		}
	}
	return ""
}

// TestGateDenyIsWhatWasShown is the trial's deny (issue 17, finding 1): a
// refused empty reason moves nothing; every letter typed is the reason's,
// never a command; the dialog shows the choice and text enter sends, and
// what the engine gets is exactly that.
func TestGateDenyIsWhatWasShown(t *testing.T) {
	a, got := gateApp(t, 100, 30, nil)
	run(a, withGates(authoringGate))
	runKeys(a, "enter")
	d := gateOf(a)
	if len(*got) != 0 || !strings.Contains(d.err, "reason is required") || d.sel != 0 {
		t.Fatalf("no reason: answers %+v, err %q, choice %d", *got, d.err, d.sel)
	}
	if s := sendsLine(a); s != "enter sends: approve · no reason yet (required)" {
		t.Fatalf("before the reason, the dialog says it sends %q", s)
	}
	// The trial typed d meaning deny: here it is the reason's first letter.
	typeText(a, "diter must retry first")
	if s := sendsLine(a); s != "enter sends: approve · reason “diter must retry first”" {
		t.Fatalf("the dialog says it sends %q", s)
	}
	runKeys(a, "ctrl+w", "ctrl+w", "ctrl+w", "ctrl+w")
	typeText(a, "the writer must retry first")
	runKeys(a, "down")
	shown := sendsLine(a)
	if shown != "enter sends: deny · reason “the writer must retry first”" {
		t.Fatalf("after down, the dialog says it sends %q", shown)
	}
	runKeys(a, "enter")
	want := view.GateAnswer{GateID: "report-authoring", Option: -1, Status: "denied", Note: "the writer must retry first"}
	if len(*got) != 1 || (*got)[0] != want {
		t.Fatalf("answers = %+v, want %+v (shown: %q)", *got, want, shown)
	}
}

func TestGateReportAuthoringPaste(t *testing.T) {
	a, got := gateApp(t, 100, 30, nil)
	run(a, withGates(authoringGate))
	run(a, tea.PasteMsg{Content: "the report-writer\ntimed out twice"})
	runKeys(a, "tab", "enter")
	if len(*got) != 1 || (*got)[0] != (view.GateAnswer{GateID: "report-authoring", Option: -1, Status: "denied", Note: "the report-writer timed out twice"}) {
		t.Fatalf("answers = %+v", *got)
	}
}

func TestGateRefused(t *testing.T) {
	a, got := gateApp(t, 100, 30, errors.New("choose one of the 3 options"))
	run(a, withGates(decisionGate))
	runKeys(a, "enter")
	if len(*got) != 1 || gateOf(a) == nil || gateOf(a).busy || !strings.Contains(gateOf(a).err, "choose one of the 3 options") {
		t.Fatalf("refused answer: %d calls, dialog %+v", len(*got), gateOf(a))
	}
	if !strings.Contains(ansi.Strip(a.View().Content), "choose one of the 3 options") {
		t.Fatal("the refusal is not shown")
	}
}

// TestGateAnsweredOnlyWhenRecorded (issue 19, item 4): while the engine
// records the answer the dialog says what it is sending and nothing says
// "answered"; an answer the engine could not record keeps the gate open,
// with the reason, and the same answer can be sent again.
func TestGateAnsweredOnlyWhenRecorded(t *testing.T) {
	fail := errors.New("write .okstra/user-response-C-003.md: no space left on device")
	a, got := gateApp(t, 120, 40, fail)
	run(a, withGates(decisionGate))
	_, cmd := a.Update(keyPress("enter")) // the command is the engine's call: not run yet
	scr := ansi.Strip(a.View().Content)
	if !strings.Contains(scr, "recording the answer…") || !strings.HasPrefix(sendsLine(a), "sending: 1. Keep the cache in the gateway") || strings.Contains(a.notice, "answered") {
		t.Fatalf("while the engine records it: notice %q, screen:\n%s", a.notice, scr)
	}
	for _, m := range collect(cmd) {
		run(a, m)
	}
	d := gateOf(a)
	if len(*got) != 1 || d == nil || d.busy || len(a.run.Gates) != 1 || strings.Contains(a.notice, "answered") {
		t.Fatalf("not recorded: answers %d, dialog %+v, gates %d, notice %q", len(*got), d, len(a.run.Gates), a.notice)
	}
	if scr := ansi.Strip(a.View().Content); !strings.Contains(scr, "not recorded: write .okstra/user-response-C-003.md: no space left") || !strings.Contains(scr, "the gate is still") {
		t.Fatalf("the failure is not shown:\n%s", scr)
	}
	// The disk has room again: the same answer goes through.
	a.actions.AnswerGate = func(ans view.GateAnswer) error { *got = append(*got, ans); return nil }
	runKeys(a, "enter")
	if len(*got) != 2 || (*got)[1] != (*got)[0] || gateOf(a) != nil || !strings.Contains(a.notice, "gate C-003 answered") {
		t.Fatalf("the retry: answers %+v, dialog %v, notice %q", *got, gateOf(a) != nil, a.notice)
	}
}

// TestGateNextAfterAnswer (issue 17, finding 8): with two gates waiting,
// answering one shows the other.
func TestGateNextAfterAnswer(t *testing.T) {
	a, got := gateApp(t, 120, 40, nil)
	run(a, withGates(decisionGate, authoringGate))
	runKeys(a, "enter")
	if len(*got) != 1 || gateOf(a) == nil || gateOf(a).id != "report-authoring" {
		t.Fatalf("after answering C-003: answers %+v, dialog %+v", *got, gateOf(a))
	}
	if !strings.Contains(ansi.Strip(a.View().Content), "May the lead write the final report itself?") {
		t.Fatal("the second gate's dialog does not show")
	}
}

// TestGateDoubleClick (issue 17, finding 8): answering with a double
// click leaves the screen as it was: the rest of the click is not a
// selection in the pane under it.
func TestGateDoubleClick(t *testing.T) {
	hs := newHarness(t, 120, 40)
	hs.open("lead", true, "static", "LEAD")
	hs.waitDrawn()
	var got []view.GateAnswer
	hs.app.actions.AnswerGate = func(ans view.GateAnswer) error { got = append(got, ans); return nil }
	hs.send(withGates(decisionGate))
	hs.app.View()
	y := screenRow(t, hs.app, "Keep the cache in the gateway")
	x := 60
	hs.send(click(x, y)) // the chosen option: it answers, and the dialog closes
	if len(got) != 1 || gateOf(hs.app) != nil {
		t.Fatalf("the first click: answers %+v, dialog open %v", got, gateOf(hs.app) != nil)
	}
	hs.send(tea.MouseReleaseMsg{X: x, Y: y, Button: tea.MouseLeft})
	hs.send(click(x, y))
	hs.send(tea.MouseMotionMsg{X: x + 3, Y: y, Button: tea.MouseLeft})
	if hs.app.mode != modeNav || hs.app.msel.pressed {
		t.Fatalf("the double click's second click started a selection: mode %v", hs.app.mode)
	}
	hs.send(tea.MouseReleaseMsg{X: x + 3, Y: y, Button: tea.MouseLeft})
	if hs.app.mode != modeNav || len(hs.clipboard) != 0 {
		t.Fatalf("after the double click: mode %v, copied %q", hs.app.mode, hs.clipboard)
	}
}

func TestGateLaterAndWhileTyping(t *testing.T) {
	a, _ := gateApp(t, 100, 30, nil)
	runKeys(a, "l", "enter") // typing into the worker
	run(a, withGates(decisionGate))
	if gateOf(a) != nil || a.mode != modeInput {
		t.Fatal("a gate opened while the human was typing into a pane")
	}
	// In input mode g goes to the pane: the status line names the key
	// that works (issue 12, part 5), once (issue 17, finding 19).
	status := ansi.Strip(a.statusLine())
	if !strings.Contains(a.notice, "gate C-003 is waiting") || strings.Count(status, "ctrl+b g") != 1 || !strings.Contains(status, "1 gate waiting (ctrl+b g)") {
		t.Fatalf("notice %q, status %q", a.notice, status)
	}
	runKeys(a, "ctrl+b", "g")
	if gateOf(a) == nil {
		t.Fatal("prefix g did not open the gate")
	}
	runKeys(a, "esc")
	if gateOf(a) != nil || len(a.run.Gates) != 1 || a.mode != modeInput {
		t.Fatal("esc did not close the dialog back to typing, or dropped the gate")
	}
	runKeys(a, "ctrl+b", "g")
	if gateOf(a) == nil {
		t.Fatal("g did not reopen the gate")
	}
	// The engine withdrew the gate: the dialog closes.
	run(a, withGates())
	if gateOf(a) != nil {
		t.Fatal("the dialog stayed open on a withdrawn gate")
	}
}

func TestGateWithoutEngine(t *testing.T) {
	a := dryApp(t, 100, 30, 1)
	run(a, withGates(decisionGate))
	runKeys(a, "enter")
	if gateOf(a) == nil || !strings.Contains(gateOf(a).err, "user-response write") {
		t.Fatalf("no engine: dialog %+v", gateOf(a))
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
	if gateOf(a) == nil || gateOf(a).sel != 1 || len(*got) != 0 {
		t.Fatalf("a click on the second option: dialog %+v, answers %+v", gateOf(a), *got)
	}
	// A click on a detail row of the third option selects it too.
	y = screenRow(t, a, "The hit rate in the traces is below 20%.")
	run(a, click(60, y))
	if gateOf(a).sel != 2 {
		t.Fatalf("a click on the third option's rationale selected %d", gateOf(a).sel)
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
	if gateOf(b) != nil || len(*none) != 0 || len(b.run.Gates) != 1 {
		t.Fatalf("a click outside: dialog %+v, answers %+v", gateOf(b), *none)
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
