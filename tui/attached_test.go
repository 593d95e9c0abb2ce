package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/panes/term"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/tui/attach"
)

func attached(c *Config) { c.Attached = true }
func readOnly(c *Config) { c.ReadOnly = true }

// endOf runs cmd (and the commands of a batch) and returns the session end
// it asks for, if any, without feeding anything back.
func endOf(cmd tea.Cmd) *attach.EndMsg {
	if cmd == nil {
		return nil
	}
	switch m := cmd().(type) {
	case attach.EndMsg:
		return &m
	case tea.BatchMsg:
		for _, c := range m {
			if e := endOf(c); e != nil {
				return e
			}
		}
	}
	return nil
}

// stillRunning fails unless every pane of mgr is open and its program runs.
func stillRunning(t *testing.T, mgr *panes.Manager, ids ...string) {
	t.Helper()
	for _, id := range ids {
		p, ok := mgr.Get(id)
		if !ok {
			t.Fatalf("%s was closed", id)
		}
		if p.Snapshot().Exited {
			t.Fatalf("%s's program ended", id)
		}
	}
}

func TestDetachWithPrefixD(t *testing.T) {
	hs := newHarness(t, 100, 30, attached)
	lead := hs.open("lead", true, "static", "LEAD")
	w := hs.open("codex-analyser-1", false, "static", "W1")
	hs.key("l", "enter") // typing into the worker
	if hs.app.mode != modeInput {
		t.Fatal("not typing into the pane")
	}
	// The model's own answer to prefix d: a command that ends the session
	// as detached.
	hs.key("ctrl+b")
	_, cmd := hs.app.Update(keyPress("d"))
	end := endOf(cmd)
	if end == nil || end.Reason != attach.ReasonDetached {
		t.Fatalf("prefix d: end = %+v, want attach.ReasonDetached", end)
	}
	if hs.quits != 0 || hs.endRuns != 0 || hs.quitted {
		t.Fatalf("detaching quit (%d) or ended the run (%d)", hs.quits, hs.endRuns)
	}
	if hs.app.ctx.Err() == nil {
		t.Fatal("detaching did not end the frame loop")
	}
	stillRunning(t, hs.mgr, lead, w)
	if vs := hs.app.ViewState(); vs.Focus != w || !vs.Input {
		t.Fatalf("view state at detach = %+v, want typing into %s", vs, w)
	}

	// From navigation, d alone (the prefix is optional there, as for every
	// navigation key).
	hs = newHarness(t, 100, 30, attached)
	hs.open("lead", true, "static", "LEAD")
	hs.key("ctrl+b", "d")
	if hs.ended == nil || hs.ended.Reason != attach.ReasonDetached {
		t.Fatalf("ctrl+b d from navigation: ended = %+v", hs.ended)
	}
}

func TestDetachFromGateDialog(t *testing.T) {
	hs := newHarness(t, 100, 30, attached)
	hs.open("lead", true, "static", "LEAD")
	v := runView()
	v.Gates = []view.Gate{authoringGate}
	hs.send(view.ViewUpdated{View: v})
	if gateOf(hs.app) == nil {
		t.Fatal("the gate dialog did not open")
	}
	hs.key("d") // in the dialog, d is the reason's text
	if hs.ended != nil || gateOf(hs.app).note.Value() != "d" {
		t.Fatalf("d in the gate dialog: ended=%+v note=%q", hs.ended, gateOf(hs.app).note.Value())
	}
	hs.key("ctrl+b", "d")
	if hs.ended == nil || hs.ended.Reason != attach.ReasonDetached {
		t.Fatalf("ctrl+b d in the gate dialog: ended = %+v", hs.ended)
	}
}

func TestDetachStandalone(t *testing.T) {
	hs := newHarness(t, 100, 30)
	hs.open("lead", true, "static", "LEAD")
	hs.key("ctrl+b", "d")
	if hs.ended != nil || hs.quitted || hs.app.ctx.Err() != nil {
		t.Fatal("a standalone screen detached")
	}
	if !strings.Contains(hs.app.notice, "nothing to detach") {
		t.Fatalf("notice = %q", hs.app.notice)
	}
	hs.app.notice = ""
	hs.key("?")
	if strings.Contains(hs.plain(), "detach") {
		t.Fatalf("a standalone screen's help offers detach:\n%s", hs.plain())
	}
}

func TestHelpShowsDetach(t *testing.T) {
	hs := newHarness(t, 100, 30, attached)
	hs.key("?")
	p := hs.plain()
	for _, want := range []string{"detach (the run goes on)", "ctrl+b d", "detach or end the run"} {
		if !strings.Contains(p, want) {
			t.Fatalf("help lacks %q:\n%s", want, p)
		}
	}
}

// gateRun is an attached two-pane run with gate C-003 waiting and the
// worker running; the gate dialog that opened is left for later.
func gateRun(t *testing.T, w, h int, opts ...func(*Config)) *harness {
	t.Helper()
	hs := twoPaneRun(t, w, h, append([]func(*Config){attached}, opts...)...)
	v := runView(dispatchSpec{pane: "pane-2", label: "codex-analyser-1", status: "in-progress", ago: 3*time.Minute + 7*time.Second})
	v.Gates = []view.Gate{decisionGate}
	hs.send(view.ViewUpdated{View: v})
	hs.key("esc")
	return hs
}

func TestQuitAsksDetachOrEnd(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	hs := gateRun(t, 100, 30)
	hs.key("q")
	p := hs.plain()
	for _, want := range []string{"Detach, or end the run?", "gate C-003 is waiting", "1 worker is still running", "detach: the run goes on", "end the run: every pane is closed"} {
		if !strings.Contains(p, want) {
			t.Fatalf("the q dialog lacks %q:\n%s", want, p)
		}
	}
	for _, cancel := range []string{"esc", "n", "x"} {
		hs.key(cancel)
		if confirmOf(hs.app) != nil || hs.ended != nil || hs.endRuns != 0 || hs.quits != 0 {
			t.Fatalf("%s did not just close the dialog", cancel)
		}
		hs.key("q")
	}
	hs.key("d")
	if hs.ended == nil || hs.ended.Reason != attach.ReasonDetached || hs.quits != 0 || hs.endRuns != 0 {
		t.Fatalf("q d: ended=%+v quits=%d endRuns=%d", hs.ended, hs.quits, hs.endRuns)
	}
	stillRunning(t, hs.mgr, "pane-1", "pane-2")

	for _, yes := range []string{"e", "y"} {
		hs := gateRun(t, 100, 30)
		hs.key("q", yes)
		if hs.endRuns != 1 || hs.quits != 0 {
			t.Fatalf("q %s: EndRun calls=%d Quit calls=%d", yes, hs.endRuns, hs.quits)
		}
		want := attach.EndMsg{Reason: attach.ReasonRunEnded, Message: "the run was ended from this screen"}
		if hs.ended == nil || *hs.ended != want {
			t.Fatalf("q %s: ended = %+v, want %+v", yes, hs.ended, want)
		}
		if hs.app.ctx.Err() == nil {
			t.Fatal("ending the run did not end the frame loop")
		}
	}

	// Nothing waiting: it still asks (ending a run is never one key).
	hs = newHarness(t, 100, 30, attached)
	hs.open("lead", true, "static", "LEAD")
	hs.key("q")
	if confirmOf(hs.app) == nil || !strings.Contains(hs.plain(), "no gate is waiting and no worker is running") {
		t.Fatalf("q with nothing waiting:\n%s", hs.plain())
	}

	// Without EndRun the dialog says where to end it, and e does nothing.
	hs = newHarness(t, 100, 30, attached, func(c *Config) { c.Actions.EndRun = nil })
	hs.key("q")
	if !strings.Contains(hs.plain(), "use cockpit stop") {
		t.Fatalf("no EndRun:\n%s", hs.plain())
	}
	hs.key("e")
	if hs.ended != nil || !strings.Contains(hs.app.notice, "cockpit stop") {
		t.Fatalf("e without EndRun: ended=%+v notice=%q", hs.ended, hs.app.notice)
	}
}

// A standalone screen's q asks when a gate waits, even with no worker
// running, and names it.
func TestQuitStandaloneWithGate(t *testing.T) {
	hs := newHarness(t, 120, 30)
	hs.open("lead", true, "static", "LEAD")
	w := hs.open("codex-analyser-1", false, "exit", "0")
	hs.waitFor("the worker to exit", func() bool { return hs.app.byID[w].snap.Exited })
	v := runView()
	v.Gates = []view.Gate{decisionGate}
	hs.send(view.ViewUpdated{View: v})
	hs.key("esc") // the dialog opened on the gate; later
	hs.key("q")
	if hs.quitted || confirmOf(hs.app) == nil {
		t.Fatal("q with a waiting gate quit without asking")
	}
	if want := "gate C-003 is waiting — quit anyway?"; !strings.Contains(hs.plain(), want) {
		t.Fatalf("the question lacks %q:\n%s", want, hs.plain())
	}
	hs.key("q")
	if !hs.quitted || hs.quits != 1 {
		t.Fatalf("q q: quitted=%v Quit calls=%d", hs.quitted, hs.quits)
	}

	// Gates and workers both named.
	hs = newHarness(t, 160, 30)
	hs.open("lead", true, "static", "LEAD")
	hs.open("codex-analyser-1", false, "static", "W1")
	hs.open("codex-analyser-2", false, "static", "W2")
	v.Gates = append(v.Gates, view.Gate{ID: "C-004", Kind: "decision", Statement: "s", Options: decisionGate.Options})
	hs.send(view.ViewUpdated{View: v})
	hs.key("esc", "q")
	if want := "2 gates are waiting: C-003, C-004, 2 worker panes are still running — quit anyway?"; !strings.Contains(hs.plain(), want) {
		t.Fatalf("the question lacks %q:\n%s", want, hs.plain())
	}
}

func TestEndDialogGolden(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	for _, size := range [][2]int{{60, 20}, {80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			hs := gateRun(t, size[0], size[1])
			hs.key("q")
			golden.RequireEqual(t, screen(hs))
		})
	}
}

func TestReadOnlyGolden(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	hs := gateRun(t, 80, 24, readOnly)
	hs.key("q")
	golden.RequireEqual(t, screen(hs))
}

// TestReadOnlyRefuses checks every refused action on a dry screen, where
// the queued ops are exactly what would reach the panes.
func TestReadOnlyRefuses(t *testing.T) {
	var answers, ends, closes int
	a := New(Config{
		Now:      func() time.Time { return testNow },
		Attached: true,
		ReadOnly: true,
		Actions: Actions{
			AnswerGate: func(view.GateAnswer) error { answers++; return nil },
			EndRun:     func() { ends++ },
			ClosePane:  func(string) { closes++ },
		},
	})
	a.manual = true
	a.resizeDelay = 0
	run := func(msg tea.Msg) *attach.EndMsg {
		_, cmd := a.Update(msg)
		return endOf(cmd)
	}
	run(tea.WindowSizeMsg{Width: 120, Height: 40})
	run(view.PaneOpened{PaneID: "pane-1", Title: "lead", Lead: true})
	run(view.PaneOpened{PaneID: "pane-2", Title: "worker"})
	// The worker's program asked for the mouse.
	run(framesMsg{snaps: []paneSnap{{id: "pane-2", snap: panes.Snapshot{Cols: 59, Rows: 20, Lines: make([]string, 20), Modes: term.Modes{Mouse: term.MouseNormal}}}}})
	a.ops = nil
	if !strings.Contains(ansi.Strip(a.statusLine()), "read-only") {
		t.Fatalf("no read-only marker: %q", ansi.Strip(a.statusLine()))
	}
	refused := func(what string) {
		t.Helper()
		if !strings.Contains(a.notice, "read-only screen") {
			t.Fatalf("%s: notice = %q, want a read-only refusal", what, a.notice)
		}
		a.notice = ""
		for _, op := range a.ops {
			if op.kind != opResize {
				t.Fatalf("%s: queued %+v for a pane", what, op)
			}
		}
		if a.mode == modeInput {
			t.Fatalf("%s: typing into a pane", what)
		}
	}
	keys(a, "l")
	if focusedID(a) != "pane-2" {
		t.Fatal("focus did not move")
	}
	keys(a, "enter")
	refused("enter")
	keys(a, "i")
	refused("i")
	keys(a, "ctrl+b", "ctrl+b")
	if a.mode == modeInput || len(a.ops) != 0 {
		t.Fatal("prefix twice typed into the pane")
	}
	run(tea.PasteMsg{Content: "rm -rf /"})
	refused("paste")
	in := a.byID["pane-2"].rect.Inner()
	run(tea.MouseClickMsg{X: in.X + 2, Y: in.Y + 2, Button: tea.MouseLeft})
	run(tea.MouseReleaseMsg{X: in.X + 2, Y: in.Y + 2, Button: tea.MouseLeft})
	if len(a.ops) != 0 {
		t.Fatalf("a click reached the program: %+v", a.ops)
	}
	keys(a, "x")
	refused("x")
	if confirmOf(a) != nil {
		t.Fatal("x asked to close")
	}

	// A gate: the dialog shows it, answering is refused.
	v := runView()
	v.Gates = []view.Gate{decisionGate}
	run(view.ViewUpdated{View: v})
	if gateOf(a) == nil {
		t.Fatal("the gate dialog did not open")
	}
	keys(a, "down")
	if gateOf(a).sel != 1 {
		t.Fatal("could not look at the options")
	}
	keys(a, "enter")
	refused("answering a gate")
	keys(a, "n")
	refused("writing a note")
	if gateOf(a).note.Value() != "" {
		t.Fatal("writing the note")
	}
	run(tea.PasteMsg{Content: "note"})
	refused("pasting a note")
	// Clicking the chosen option answers, elsewhere.
	a.View()
	for y, i := range gateOf(a).choiceAt {
		if i == gateOf(a).sel {
			run(tea.MouseClickMsg{X: gateOf(a).boxX + 3, Y: y, Button: tea.MouseLeft})
			break
		}
	}
	refused("clicking an answer")
	keys(a, "esc")

	// Ending the run.
	keys(a, "q")
	if confirmOf(a) == nil || confirmOf(a).kind != confirmEnd {
		t.Fatal("q did not ask")
	}
	if !strings.Contains(ansi.Strip(strings.Join(confirmOf(a).endBox(), "\n")), "not from a read-only screen") {
		t.Fatal("the dialog offers to end the run")
	}
	if end := run(keyPress("e")); end != nil {
		t.Fatalf("e ended the session: %+v", end)
	}
	refused("ending the run")

	// What works: zoom, scroll, timeline, help, focus, detach.
	keys(a, "z")
	if !a.zoom {
		t.Fatal("z did not zoom")
	}
	keys(a, "z", "t")
	if a.showTimeline {
		t.Fatal("t did not hide the timeline")
	}
	keys(a, "[")
	if a.mode != modeScroll {
		t.Fatal("[ did not scroll")
	}
	keys(a, "q", "?")
	if !helpOpen(a) {
		t.Fatal("? did not show help")
	}
	keys(a, "esc", "h")
	if focusedID(a) != "pane-1" {
		t.Fatal("focus did not move back")
	}
	end := run(keyPress("d"))
	if end == nil || end.Reason != attach.ReasonDetached {
		t.Fatalf("d on a read-only screen: %+v", end)
	}
	// The commands of the refused actions never ran either.
	if answers != 0 || ends != 0 || closes != 0 {
		t.Fatalf("answers=%d ends=%d closes=%d", answers, ends, closes)
	}
}

// A read-only screen given a view state that was typing comes back in
// navigation.
func TestReadOnlyRestoresNoInput(t *testing.T) {
	mgr := panes.NewManager()
	first := newHarnessOn(t, mgr, 100, 30)
	first.open("lead", true, "static", "LEAD")
	w := first.open("codex-analyser-1", false, "static", "W1")
	vs := ViewState{Focus: w, Input: true}
	hs := newHarnessOn(t, mgr, 100, 30, readOnly, func(c *Config) { c.Restore = &vs })
	if focusedID(hs.app) != w || hs.app.mode != modeNav {
		t.Fatalf("focus=%s mode=%v", focusedID(hs.app), hs.app.mode)
	}
}

// On a short terminal the dialog drops its spacing, keeping every key.
func TestEndDialogShort(t *testing.T) {
	a := dryApp(t, 50, 8, 1)
	a.attached = true
	keys(a, "q")
	p := ansi.Strip(a.View().Content)
	for _, want := range []string{"Detach, or end", "detach", "end the run", "stay"} {
		if !strings.Contains(p, want) {
			t.Fatalf("the dialog at 50×8 lacks %q:\n%s", want, p)
		}
	}
}
