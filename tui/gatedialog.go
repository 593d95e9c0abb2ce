package tui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
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
//
// The dialog has no modes: the note (or reason) field always has the
// keyboard, so a typed letter is text, never a command; the arrows and tab
// move the choice; enter sends. Above the keys it says what enter sends,
// exactly the answer the engine gets. A refused answer leaves everything
// where it was and says why; the dialog says "answered" only once the
// engine took the answer (Actions.AnswerGate returned), and an answer the
// engine could not record keeps the gate open with the reason shown.
type gateDialog struct {
	env  *screenEnv
	id   string
	sel  int // the chosen option; for report authoring 0 approved, 1 denied
	note textinput.Model
	err  string // why the last answer was refused or not recorded
	busy bool   // an answer is on its way to the engine
	// byMouse: the answer on its way was sent with a click; when the
	// dialog closes, the rest of that click (a double click's second) is
	// dropped.
	byMouse bool

	// Where the last drawing put things, for the mouse: the box's
	// top-left cell on screen and its size, each choice's rows (screen
	// rows, one entry per row) and the rows of the keys line(s).
	boxX, boxY, boxW, boxH int
	choiceAt               map[int]int // screen row → choice index
	answerTop, answerRow   int

	// A dialog taller than the terminal scrolls its middle: top is the
	// first row shown, scrolls says whether it does, shownSel the choice
	// it last scrolled to, room the rows of the scrolled middle.
	top      int
	scrolls  bool
	shownSel int
	room     int
}

// gateAnsweredMsg says how the engine took an answer.
type gateAnsweredMsg struct {
	ans view.GateAnswer
	err error
}

func newGateDialog(env *screenEnv, id string) *gateDialog {
	ti := textinput.New()
	ti.Prompt = ""
	ti.KeyMap = env.keys.Prompt.Edit
	ti.SetStyles(inputStyles(env.st))
	if !env.readOnly {
		ti.Focus()
	}
	return &gateDialog{env: env, id: id, note: ti}
}

// inputStyles are a text field's: no colour of its own, a reverse-video
// block cursor that does not blink (no timer).
func inputStyles(st Styles) textinput.Styles {
	s := textinput.DefaultDarkStyles()
	plain := st.HelpDesc
	s.Focused.Text, s.Blurred.Text = plain, plain
	s.Focused.Prompt, s.Blurred.Prompt = plain, plain
	s.Focused.Placeholder, s.Blurred.Placeholder = st.Hint, st.Hint
	s.Cursor.Color = nil
	s.Cursor.Blink = false
	return s
}

// gate is the dialog's gate in the run view, or nil once it is gone.
func (d *gateDialog) gate() *view.Gate {
	for i := range d.env.run.Gates {
		if d.env.run.Gates[i].ID == d.id {
			return &d.env.run.Gates[i]
		}
	}
	return nil
}

// choices counts what there is to choose from.
func choices(g *view.Gate) int {
	if g.Kind == state.GateReportAuthoring {
		return 2
	}
	return len(g.Options)
}

// answer is what enter sends now.
func (d *gateDialog) answer(g *view.Gate) view.GateAnswer {
	ans := view.GateAnswer{GateID: g.ID, Option: d.sel, Note: strings.TrimSpace(d.note.Value())}
	if g.Kind == state.GateReportAuthoring {
		ans.Option = -1
		ans.Status = "approved"
		if d.sel == 1 {
			ans.Status = "denied"
		}
	}
	return ans
}

// HandleMsg takes the dialog's keys, the mouse, a paste, and the engine's
// answer to a sent answer.
func (d *gateDialog) HandleMsg(msg tea.Msg) action {
	if m, ok := msg.(gateAnsweredMsg); ok {
		return d.onAnswered(m)
	}
	g := d.gate()
	if g == nil {
		return actClose{}
	}
	switch msg := msg.(type) {
	case envChanged:
		return nil
	case tea.PasteMsg:
		if d.busy || d.env.readOnly {
			if d.env.readOnly {
				return actRefuse{"cannot answer gates"}
			}
			return nil
		}
		d.note, _ = d.note.Update(tea.PasteMsg{Content: strings.Join(strings.Fields(msg.Content), " ")})
		return nil
	case tea.MouseMsg:
		return d.onMouse(msg, g)
	case tea.KeyPressMsg:
		return d.onKey(msg, g)
	}
	return nil
}

func (d *gateDialog) onKey(msg tea.KeyPressMsg, g *view.Gate) action {
	d.byMouse = false
	k := d.env.keys.Gate
	n := choices(g)
	switch {
	case key.Matches(msg, k.Later):
		// The gate keeps waiting; g opens it again.
		return actClose{}
	case key.Matches(msg, k.ScrollUp):
		d.scrollBy(-max(d.room-1, 1))
		return nil
	case key.Matches(msg, k.ScrollDown):
		d.scrollBy(max(d.room-1, 1))
		return nil
	case d.busy:
		return nil
	case n == 0:
		// Nothing to choose (the engine refuses such gates; a screen fed
		// one anyway must not divide by zero): only leaving works.
		return nil
	case key.Matches(msg, k.Up):
		d.sel = (d.sel - 1 + n) % n
	case key.Matches(msg, k.Down):
		d.sel = (d.sel + 1) % n
	case key.Matches(msg, k.NextGate):
		return d.otherGate(1)
	case key.Matches(msg, k.PrevGate):
		return d.otherGate(-1)
	case key.Matches(msg, k.Answer):
		return d.submit(g)
	case d.env.readOnly:
		if msg.Text != "" {
			return actRefuse{"cannot answer gates"}
		}
	default:
		d.err = ""
		d.note, _ = d.note.Update(msg)
	}
	return nil
}

// otherGate shows the next (or previous) waiting gate.
func (d *gateDialog) otherGate(step int) action {
	gs := d.env.run.Gates
	if len(gs) < 2 {
		return nil
	}
	for i, g := range gs {
		if g.ID == d.id {
			next := gs[((i+step)%len(gs)+len(gs))%len(gs)].ID
			return actions{actClose{}, actPush{newGateDialog(d.env, next)}}
		}
	}
	return nil
}

// submit checks the answer and sends it. A report authoring answer needs
// a reason even on approval (the user-response contract); the engine
// checks again and its refusal is shown. Nothing moves on a refusal.
func (d *gateDialog) submit(g *view.Gate) action {
	if d.env.readOnly {
		return actRefuse{"cannot answer gates"}
	}
	ans := d.answer(g)
	if g.Kind == state.GateReportAuthoring && ans.Note == "" {
		d.err = "a reason is required, also when approving: type it, then enter"
		return nil
	}
	d.err = ""
	d.busy = true
	return actAnswer{ans}
}

// onAnswered: the engine took the answer (the dialog closes, and the next
// waiting gate's opens), or did not (the gate stays open, with why).
func (d *gateDialog) onAnswered(m gateAnsweredMsg) action {
	if m.ans.GateID != d.id {
		return nil
	}
	d.busy = false
	if m.err != nil {
		d.err = "not recorded: " + m.err.Error() + " — the gate is still open; enter tries again"
		return nil
	}
	acts := actions{actClose{}}
	if d.byMouse {
		acts = append(acts, actQuietMouse{})
	}
	for _, g := range d.env.run.Gates {
		if g.ID != d.id {
			acts = append(acts, actPush{newGateDialog(d.env, g.ID)})
			break
		}
	}
	return acts
}

// onMouse lets the mouse answer too: a click on a choice selects it, a
// second click on the selected choice (or a click on the keys line)
// answers; a click outside the box leaves the gate waiting, as esc does.
func (d *gateDialog) onMouse(msg tea.MouseMsg, g *view.Gate) action {
	if d.busy {
		return nil
	}
	if w, ok := msg.(tea.MouseWheelMsg); ok {
		switch w.Button {
		case tea.MouseWheelUp:
			d.scrollBy(-wheelLines)
		case tea.MouseWheelDown:
			d.scrollBy(wheelLines)
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
		return actClose{}
	}
	if i, ok := d.choiceAt[m.Y]; ok {
		if i == d.sel {
			d.byMouse = true
			return d.submit(g)
		}
		d.sel = i
		return nil
	}
	if m.Y >= d.answerTop && m.Y <= d.answerRow {
		d.byMouse = true
		return d.submit(g)
	}
	return nil
}

// scrollBy scrolls a dialog taller than the terminal.
func (d *gateDialog) scrollBy(step int) {
	if d.scrolls {
		d.top = max(d.top+step, 0) // scrolled clamps the end
	}
}

func (d *gateDialog) Hint() string  { return "" }
func (d *gateDialog) Badge() string { return "GATE" }

// Draw draws the dialog centred over the screen.
func (d *gateDialog) Draw(rows []string) {
	drawBox(rows, d.env.width, d.box())
}

// sends is the line saying what enter sends, exactly.
func (d *gateDialog) sends(g *view.Gate) string {
	st := d.env.st
	ans := d.answer(g)
	what := ""
	if g.Kind == state.GateReportAuthoring {
		what = []string{"approve", "deny"}[min(max(d.sel, 0), 1)]
	} else if d.sel < len(g.Options) {
		what = strconv.Itoa(d.sel+1) + ". " + g.Options[d.sel].Answer
	}
	label, missing := "note", "no note"
	if g.Kind == state.GateReportAuthoring {
		label, missing = "reason", "no reason yet (required)"
	}
	text := st.HelpKey.Render(what) + " · "
	if ans.Note == "" {
		text += st.Hint.Render(missing)
	} else {
		text += label + " “" + ans.Note + "”"
	}
	lead := "enter sends: "
	if d.busy {
		lead = "sending: "
	}
	return st.Hint.Render(lead) + text
}

// box draws the dialog: the question, the choices (the chosen one with
// every detail, the others on one line when space is short), the note,
// what enter sends, the keys, and the engine's refusal if any. It fits the
// terminal: words wrap (a choice's answer under its text, the keys by
// whole items), text cut at the box's edge ends with …, and a dialog still
// taller than the terminal keeps its title, its note and keys in place and
// scrolls the rest (the statement and the choices), following the chosen
// choice; pgup/pgdn and the wheel scroll it, ▲/▼ say there is more.
func (d *gateDialog) box() []string {
	env := d.env
	g := d.gate()
	if g == nil {
		return nil
	}
	w := min(env.width-4, 100)
	inner := max(w-4, 10) // border and padding
	st := env.st
	wrap := func(s string, indent int) []string {
		if s == "" {
			return nil
		}
		return wrapWords(s, inner, indent, indent)
	}

	title := "Gate " + g.ID
	if g.Kind != "" && string(g.Kind) != g.ID {
		title += " · " + string(g.Kind)
	}
	count := ""
	if n := len(env.run.Gates); n > 1 {
		for i := range env.run.Gates {
			if env.run.Gates[i].ID == g.ID {
				count = strconv.Itoa(i+1) + " of " + strconv.Itoa(n) + " · " + env.keys.Gate.NextGate.Help().Key + ": others"
			}
		}
	}
	titleLine := spread(st.HelpTitle.Render(title), st.Hint.Render(count), inner)
	var intro []string
	intro = append(intro, wrap(g.Statement, 0)...)
	if g.ExpectedForm != "" {
		intro = append(intro, wrap(st.Hint.Render("expected: ")+g.ExpectedForm, 0)...)
	}
	if g.ReasonHint != "" {
		intro = append(intro, wrap(st.Hint.Render("why asked: ")+g.ReasonHint, 0)...)
	}
	intro = append(intro, "")

	// A choice: its answer wrapped under its own text; its details.
	answer := func(i int, width int) []string {
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
		return wrapWords(mark+style.Render(strconv.Itoa(i+1)+". "+role)+o.Answer, width, 0, 5)
	}
	details := func(i int) []string {
		if g.Kind == state.GateReportAuthoring {
			return nil
		}
		o := g.Options[i]
		var lines []string
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
	choice := func(i int, full bool) []string {
		if !full {
			// One line, cut with … at the box's edge.
			return answer(i, 1<<20)
		}
		return append(answer(i, inner), details(i)...)
	}
	n := choices(g)

	noteLabel := "note (optional): "
	if g.Kind == state.GateReportAuthoring {
		noteLabel = "reason (required): "
	}
	d.note.SetWidth(max(inner-ansi.StringWidth(noteLabel)-1, 1))
	var foot []string
	foot = append(foot, st.Hint.Render(noteLabel)+d.note.View())
	sends := d.sends(g)
	foot = append(foot, sends)
	// What enter sends is wrapped, not cut, when the dialog has the rows
	// (finding 1: exactly what will be sent, before it is sent); a
	// dialog taller than the terminal keeps it on one line.
	var sendsWrapped []string
	if ansi.StringWidth(sends) > inner {
		sendsWrapped = wrapBreak(ansi.Strip(sends), inner)
	}
	if d.err != "" {
		// A path wider than the box is broken, not cut: it names the file
		// to fix.
		foot = append(foot, hint(st.HeaderErr.Render, wrapBreak(d.err, inner))...)
	}
	kind := "note"
	if g.Kind == state.GateReportAuthoring {
		kind = "reason"
	}
	keys := []string{"↑↓/tab/click: choose", "type the " + kind, "enter/click again: send", "esc: later"}
	short := []string{"↑↓ choose", "type the " + kind, "enter send", "esc later"}
	switch {
	case d.busy:
		keys = []string{"recording the answer…"}
		short = keys
	case env.readOnly:
		keys = []string{"read-only screen: answer from another one", "↑↓: options", "esc: close"}
		short = []string{"read-only", "↑↓ options", "esc close"}
	}
	keyLines := wrapItems(keys, inner)

	// Choices: full details for every option if they fit, else for the
	// chosen one only; the rows each choice takes, for the mouse.
	var body []string
	var bodyChoice []int
	build := func(full func(i int) bool) {
		body, bodyChoice = body[:0], bodyChoice[:0]
		for i := range n {
			for _, l := range choice(i, full(i)) {
				body = append(body, l)
				bodyChoice = append(bodyChoice, i)
			}
		}
	}
	fixed := 1 + len(intro) + 1 + len(foot) + len(keyLines) // title, intro, blank, foot
	build(func(int) bool { return true })
	if fixed+len(body)+2+2 > env.height { // border rows, a row of margin each side
		build(func(i int) bool { return i == d.sel })
	}

	var lines []string
	rowChoice := map[int]int{} // content row → choice
	if fixed+len(body)+2 <= env.height {
		d.scrolls, d.top = false, 0
		if extra := len(sendsWrapped) - 1; extra > 0 && fixed+extra+len(body)+2 <= env.height {
			foot = append(append(foot[:1:1], sendsWrapped...), foot[2:]...)
		}
		lines = append(lines, titleLine)
		lines = append(lines, intro...)
		for k, l := range body {
			rowChoice[len(lines)] = bodyChoice[k]
			lines = append(lines, l)
		}
		lines = append(lines, "")
		lines = append(lines, foot...)
		keyLines = hint(st.Hint.Render, keyLines)
		lines = append(lines, keyLines...)
	} else {
		// Too tall: the title, the note and the keys stay; the middle
		// (statement, the choices one line each, then the chosen one's
		// details) scrolls.
		body, bodyChoice = body[:0], bodyChoice[:0]
		for i := range n {
			body = append(body, choice(i, false)[0])
			bodyChoice = append(bodyChoice, i)
		}
		for _, l := range details(d.sel) {
			body = append(body, l)
			bodyChoice = append(bodyChoice, d.sel)
		}
		keyLines = hint(st.Hint.Render, wrapItems(short, inner))
		intro = intro[:len(intro)-1] // no blank row to spare
		lines = d.scrolled(titleLine, intro, body, bodyChoice, n, foot, keyLines, inner, rowChoice)
	}
	for i := range lines {
		lines[i] = fitCut(lines[i], inner)
	}
	box := strings.Split(st.GateBox.Render(strings.Join(lines, "\n")), "\n")
	// The box sits where overlay centres it; its border and padding put
	// content row r at box row r+1, column 2.
	d.boxW, d.boxH = ansi.StringWidth(box[0]), len(box)
	d.boxX = max((env.width-d.boxW)/2, 0)
	d.boxY = max((env.height-d.boxH)/2, 0)
	d.choiceAt = map[int]int{}
	for r, i := range rowChoice {
		d.choiceAt[d.boxY+1+r] = i
	}
	d.answerRow = d.boxY + 1 + len(lines) - 1
	d.answerTop = d.answerRow - len(keyLines) + 1
	return box
}

// scrolled lays out a dialog taller than the terminal: the title row, a
// window on intro and body that keeps the chosen choice in sight, the note
// and the keys. The keys shrink to one line cut with … when even that does
// not leave a row for the window; then what enter sends goes before the
// note does.
func (d *gateDialog) scrolled(title string, intro, body []string, bodyChoice []int, choices int, foot, keys []string, inner int, rowChoice map[int]int) []string {
	avail := max(d.env.height-2, 1) // content rows inside the border
	if 1+len(foot)+len(keys)+1 > avail && len(keys) > 1 {
		keys = []string{d.env.st.Hint.Render(ansi.Truncate(ansi.Strip(strings.Join(keys, " · ")), inner, "…"))}
	}
	for 1+len(foot)+len(keys)+1 > avail && len(foot) > 1 {
		foot = foot[:len(foot)-1]
	}
	room := max(avail-1-len(foot)-len(keys), 1)
	middle := append(append([]string(nil), intro...), body...)
	// Show every choice when they fit (they come first in body, one row
	// each), else the chosen one.
	first, last := len(intro), len(intro)+choices-1
	if choices > room {
		first, last = len(intro)+d.sel, len(intro)+d.sel
	}
	if !d.scrolls || d.shownSel != d.sel {
		if first < d.top {
			d.top = first
		}
		if end := min(last, first+room-1); end >= d.top+room {
			d.top = end - room + 1
		}
		d.shownSel = d.sel
	}
	d.scrolls = true
	d.top = min(max(d.top, 0), max(len(middle)-room, 0))
	d.room = room
	lines := []string{title}
	for k := d.top; k < min(d.top+room, len(middle)); k++ {
		l := middle[k]
		more := ""
		switch {
		case k == d.top && d.top > 0:
			more = "▲"
		case k == d.top+room-1 && k < len(middle)-1:
			more = "▼"
		}
		if more != "" {
			l = fitCut(l, inner-2) + " " + d.env.st.HelpKey.Render(more)
		}
		if k >= len(intro) {
			rowChoice[len(lines)] = bodyChoice[k-len(intro)]
		}
		lines = append(lines, l)
	}
	lines = append(lines, foot...)
	return append(lines, keys...)
}
