package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// gateDialog is the question the lead asks the human, open over the panes.
// A decision is answered by choosing one of its options (recommended
// first, each with its rationale, added work and direction change) and an
// optional note; report authoring by approving or denying, with a reason
// that is required either way.
type gateDialog struct {
	id      string
	sel     int  // the chosen option; for report authoring 0 approved, 1 denied
	editing bool // the note has the keyboard
	note    []rune
	err     string // why the last answer was refused
	busy    bool   // an answer is on its way to the engine

	// Where the last drawing put things, for the mouse: the box's
	// top-left cell on screen and its size, each choice's rows (screen
	// rows, one entry per row) and the row of the answer hint.
	boxX, boxY, boxW, boxH int
	choiceAt               map[int]int // screen row → choice index
	answerTop, answerRow   int         // the rows of the keys line(s)

	// A dialog taller than the terminal scrolls its middle (gatebox.go):
	// top is the first row shown, scrolls says whether it does, shownSel
	// the choice it last scrolled to.
	top      int
	scrolls  bool
	shownSel int
	room     int // rows of the scrolled middle
}

// gateAnsweredMsg says how the engine took an answer.
type gateAnsweredMsg struct {
	id  string
	err error
}

// gateByID returns the waiting gate id, or nil.
func (a *App) gateByID(id string) *view.Gate {
	for i := range a.run.Gates {
		if a.run.Gates[i].ID == id {
			return &a.run.Gates[i]
		}
	}
	return nil
}

// syncGates follows the run view's gates: a dialog whose gate is gone
// closes, and a gate not seen before opens while the human is navigating
// (never while typing into a pane: the status line says it is waiting).
func (a *App) syncGates() {
	if a.gate != nil && a.gateByID(a.gate.id) == nil {
		a.gate = nil
	}
	for _, g := range a.run.Gates {
		if a.gatesSeen[g.ID] {
			continue
		}
		a.gatesSeen[g.ID] = true
		var lead *paneView
		if a.leadPane != "" {
			lead = a.byID[a.leadPane]
		}
		notice := a.notice
		a.raise(AlertGate, lead, "gate "+g.ID+" is waiting for your answer")
		// Not over the overview either: its keys (g, enter) would answer.
		if a.gate == nil && a.mode == modeNav && a.confirm == nil && a.overview == nil {
			a.notice = notice // the dialog says it
			a.openGate(g.ID)
		} else {
			a.notice = "gate " + g.ID + " waiting — " + a.gateKey() + " answers"
		}
	}
}

// openGate opens the dialog on gate id (the oldest waiting one if empty).
func (a *App) openGate(id string) {
	if id == "" {
		if len(a.run.Gates) == 0 {
			a.notice = "no gate is waiting"
			return
		}
		id = a.run.Gates[0].ID
	}
	a.showHelp = false
	a.gate = &gateDialog{id: id}
}

// onGateKey handles a key while the dialog is open.
func (a *App) onGateKey(msg tea.KeyPressMsg) tea.Cmd {
	d := a.gate
	g := a.gateByID(d.id)
	if g == nil {
		a.gate = nil
		return nil
	}
	if d.busy {
		return nil
	}
	n := len(g.Options)
	if g.Kind == state.GateReportAuthoring {
		n = 2
	}
	if n == 0 {
		// Nothing to choose (the engine refuses such gates; a screen fed
		// one anyway must not divide by zero): only leaving works.
		if s := msg.String(); s == "esc" || s == "q" {
			a.gate = nil
		}
		return nil
	}
	s := msg.String()
	if a.scrollGate(s) {
		return nil
	}
	if d.editing {
		switch s {
		case "enter":
			return a.submitGate(g)
		case "esc", "tab":
			d.editing = false
		case "backspace":
			if len(d.note) > 0 {
				d.note = d.note[:len(d.note)-1]
			}
		case "ctrl+u":
			d.note = nil
		case "ctrl+w":
			t := strings.TrimRight(string(d.note), " ")
			d.note = []rune(t[:strings.LastIndex(t, " ")+1])
		default:
			if msg.Text != "" && msg.Mod&^tea.ModShift == 0 {
				d.note = append(d.note, []rune(msg.Text)...)
			}
		}
		return nil
	}
	switch {
	case s == "esc" || s == "q":
		// The gate keeps waiting; g opens it again.
		a.gate = nil
	case s == "enter":
		return a.submitGate(g)
	case s == "tab" || s == "n" || s == "r":
		if a.readOnly {
			a.refuse("cannot answer gates")
		} else {
			d.editing = true
		}
	case key.Matches(msg, a.keys.Up), s == "shift+tab":
		d.sel = (d.sel - 1 + n) % n
	case key.Matches(msg, a.keys.Down):
		d.sel = (d.sel + 1) % n
	case g.Kind == state.GateReportAuthoring && s == "a":
		d.sel = 0
	case g.Kind == state.GateReportAuthoring && s == "d":
		d.sel = 1
	case len(s) == 1 && s[0] >= '1' && s[0] <= '9':
		if i := int(s[0] - '1'); i < n {
			d.sel = i
		}
	case s == "]" && len(a.run.Gates) > 1:
		a.cycleGate(1)
	case s == "[" && len(a.run.Gates) > 1:
		a.cycleGate(-1)
	}
	return nil
}

// onGatePaste types a paste into the note (line breaks become spaces).
func (a *App) onGatePaste(text string) {
	if d := a.gate; d != nil && d.editing && !d.busy {
		d.note = append(d.note, []rune(strings.Join(strings.Fields(text), " "))...)
	}
}

// cycleGate shows the next (or previous) waiting gate.
func (a *App) cycleGate(step int) {
	for i, g := range a.run.Gates {
		if g.ID == a.gate.id {
			n := len(a.run.Gates)
			a.gate = &gateDialog{id: a.run.Gates[((i+step)%n+n)%n].ID}
			return
		}
	}
}

// submitGate checks the answer and sends it to the engine. A report
// authoring answer needs a reason even on approval (the user-response
// contract); the engine checks again and its refusal is shown.
func (a *App) submitGate(g *view.Gate) tea.Cmd {
	d := a.gate
	if a.readOnly {
		a.refuse("cannot answer gates")
		return nil
	}
	ans := view.GateAnswer{GateID: g.ID, Option: d.sel, Note: strings.TrimSpace(string(d.note))}
	if g.Kind == state.GateReportAuthoring {
		ans.Option = -1
		ans.Status = "approved"
		if d.sel == 1 {
			ans.Status = "denied"
		}
		if ans.Note == "" {
			d.err = "a reason is required, also when approving (tab to write it)"
			d.editing = true
			return nil
		}
	}
	d.err = ""
	d.busy = true
	return a.cmdAnswerGate(ans)
}

// cmdAnswerGate delivers an answer through Actions.AnswerGate.
func (a *App) cmdAnswerGate(ans view.GateAnswer) tea.Cmd {
	answer := a.actions.AnswerGate
	return func() tea.Msg {
		if answer == nil {
			return gateAnsweredMsg{id: ans.GateID, err: fmt.Errorf("this screen has no engine to answer gates; use cockpit user-response write")}
		}
		return gateAnsweredMsg{id: ans.GateID, err: answer(ans)}
	}
}

// onGateAnswered closes the dialog once the engine took the answer, or
// shows why it did not.
func (a *App) onGateAnswered(m gateAnsweredMsg) {
	d := a.gate
	if m.err != nil {
		if d != nil && d.id == m.id {
			d.busy = false
			d.err = m.err.Error()
		} else {
			a.notice = "gate " + m.id + ": " + m.err.Error()
		}
		return
	}
	a.notice = "gate " + m.id + " answered"
	if d != nil && d.id == m.id {
		a.gate = nil
	}
	// The engine drops the gate; until its next run view says so, it is
	// not shown again.
	a.gatesSeen[m.id] = true
	var left []view.Gate
	for _, g := range a.run.Gates {
		if g.ID != m.id {
			left = append(left, g)
		}
	}
	a.run.Gates = left
}

// onGateMouse lets the mouse answer too: a click on a choice selects it, a
// second click on the selected choice (or a click on the keys line)
// answers; a click outside the box leaves the gate waiting, as esc does.
func (a *App) onGateMouse(msg tea.MouseMsg) tea.Cmd {
	d := a.gate
	g := a.gateByID(d.id)
	if g == nil || d.busy {
		return nil
	}
	if w, ok := msg.(tea.MouseWheelMsg); ok {
		switch w.Button {
		case tea.MouseWheelUp:
			a.scrollGate("up-wheel")
		case tea.MouseWheelDown:
			a.scrollGate("down-wheel")
		}
		return nil
	}
	click, ok := msg.(tea.MouseClickMsg)
	if !ok || click.Button != tea.MouseLeft {
		return nil
	}
	m := click.Mouse()
	inside := m.X >= d.boxX && m.X < d.boxX+d.boxW && m.Y >= d.boxY && m.Y < d.boxY+d.boxH
	if !inside {
		a.gate = nil
		return nil
	}
	if i, ok := d.choiceAt[m.Y]; ok {
		if i == d.sel && !d.editing {
			return a.submitGate(g)
		}
		d.sel, d.editing = i, false
		return nil
	}
	if m.Y >= d.answerTop && m.Y <= d.answerRow {
		return a.submitGate(g)
	}
	return nil
}
