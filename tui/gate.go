package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

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
	answerRow              int
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
		a.alert = "cockpit: gate " + g.ID + " is waiting for your answer"
		if a.gate == nil && a.mode == modeNav && a.confirm == nil {
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

// gateBox draws the dialog: the question, the choices (the chosen one
// with every detail, the others on one line when space is short), the note,
// the keys, and the engine's refusal if any.
func (a *App) gateBox() []string {
	d := a.gate
	g := a.gateByID(d.id)
	if g == nil {
		return nil
	}
	w := min(a.width-4, 100)
	inner := max(w-4, 20) // border and padding
	st := a.st
	wrap := func(s string, indent int) []string {
		if s == "" {
			return nil
		}
		lines := strings.Split(ansi.Wordwrap(s, inner-indent, " "), "\n")
		for i := range lines {
			lines[i] = blank(indent) + lines[i]
		}
		return lines
	}

	var head []string
	title := "Gate " + g.ID
	if g.Kind != "" && string(g.Kind) != g.ID {
		title += " · " + string(g.Kind)
	}
	count := ""
	if n := len(a.run.Gates); n > 1 {
		for i := range a.run.Gates {
			if a.run.Gates[i].ID == g.ID {
				count = strconv.Itoa(i+1) + " of " + strconv.Itoa(n) + " · [ ]: other gates"
			}
		}
	}
	head = append(head, spread(st.HelpTitle.Render(title), st.Hint.Render(count), inner))
	head = append(head, wrap(g.Statement, 0)...)
	if g.ExpectedForm != "" {
		head = append(head, wrap(st.Hint.Render("expected: ")+g.ExpectedForm, 0)...)
	}
	if g.ReasonHint != "" {
		head = append(head, wrap(st.Hint.Render("why asked: ")+g.ReasonHint, 0)...)
	}
	head = append(head, "")

	// Choices: full details for every option if they fit, else for the
	// chosen one only.
	choice := func(i int, full bool) []string {
		mark := "  "
		style := st.HelpDesc
		if i == d.sel {
			mark = st.HelpKey.Render("▸ ")
			style = st.HelpTitle
		}
		if g.Kind == state.GateReportAuthoring {
			return []string{mark + style.Render([]string{"approve", "deny"}[i])}
		}
		o := g.Options[i]
		role := ""
		if o.Role != "" {
			role = "[" + o.Role + "] "
		}
		lines := wrap(mark+style.Render(strconv.Itoa(i+1)+". "+role)+o.Answer, 0)
		if !full {
			return lines[:1]
		}
		add := func(label, v string) {
			if v != "" {
				lines = append(lines, wrap(st.Hint.Render(label+": ")+v, 5)...)
			}
		}
		add("why", o.Rationale)
		add("added work", o.AddedWork)
		add("direction change", o.DirectionChange)
		extra := o.Reach
		if len(o.ScopeEffects) > 0 {
			extra = strings.TrimPrefix(extra+" · scope: "+strings.Join(o.ScopeEffects, ", "), " · ")
		}
		add("reach", extra)
		return lines
	}
	n := len(g.Options)
	if g.Kind == state.GateReportAuthoring {
		n = 2
	}

	noteLabel := "note (optional): "
	if g.Kind == state.GateReportAuthoring {
		noteLabel = "reason (required): "
	}
	cursor := ""
	if d.editing {
		cursor = st.HelpKey.Render("▏")
	}
	var foot []string
	foot = append(foot, "")
	foot = append(foot, wrap(st.Hint.Render(noteLabel)+string(d.note)+cursor, 0)...)
	if d.err != "" {
		foot = append(foot, wrap(st.HeaderErr.Render(d.err), 0)...)
	}
	keys := "↑↓/1-9/click: choose · tab: note · enter/click again: answer · esc: later"
	switch {
	case d.busy:
		keys = "answering…"
	case d.editing:
		keys = "type the note · enter: answer · tab/esc: back to the choices"
	case a.readOnly:
		keys = "read-only screen: answer from another one · ↑↓: options · esc: close"
	case g.Kind == state.GateReportAuthoring:
		keys = "a/d or ↑↓ choose · tab: reason · enter: answer · esc: later"
	}
	foot = append(foot, st.Hint.Render(keys))

	room := a.height - 2 - 2 - len(head) - len(foot) // border rows, one row of margin
	var body []string
	rowChoice := map[int]int{} // content row → choice, for the mouse
	build := func(full func(i int) bool) {
		body, rowChoice = body[:0], map[int]int{}
		for i := range n {
			for _, l := range choice(i, full(i)) {
				rowChoice[len(head)+len(body)] = i
				body = append(body, l)
			}
		}
	}
	build(func(int) bool { return true })
	if len(body) > room {
		build(func(i int) bool { return i == d.sel })
	}
	lines := append(append(head, body...), foot...)
	for i := range lines {
		lines[i] = fit(lines[i], inner)
	}
	box := strings.Split(st.GateBox.Render(strings.Join(lines, "\n")), "\n")
	// The box sits where overlay centres it; its border and padding put
	// content row r at box row r+1, column 2.
	d.boxW, d.boxH = ansi.StringWidth(box[0]), len(box)
	d.boxX = max((a.width-d.boxW)/2, 0)
	d.boxY = max((a.height-d.boxH)/2, 0)
	d.choiceAt = map[int]int{}
	for r, i := range rowChoice {
		d.choiceAt[d.boxY+1+r] = i
	}
	d.answerRow = d.boxY + 1 + len(lines) - 1
	return box
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
	if m.Y == d.answerRow {
		return a.submitGate(g)
	}
	return nil
}
