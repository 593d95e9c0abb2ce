package tui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/state"
)

// gateBox draws the dialog: the question, the choices (the chosen one
// with every detail, the others on one line when space is short), the note,
// the keys, and the engine's refusal if any. It fits the terminal: words
// wrap (a choice's answer under its text, the keys by whole items), text
// cut at the box's edge ends with …, and a dialog still taller than the
// terminal keeps its title and its note and keys in place and scrolls the
// rest (the statement and the choices), following the chosen choice;
// pgup/pgdn and the wheel scroll it, ▲/▼ say there is more.
func (a *App) gateBox() []string {
	d := a.gate
	g := a.gateByID(d.id)
	if g == nil {
		return nil
	}
	w := min(a.width-4, 100)
	inner := max(w-4, 10) // border and padding
	st := a.st
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
	if n := len(a.run.Gates); n > 1 {
		for i := range a.run.Gates {
			if a.run.Gates[i].ID == g.ID {
				count = strconv.Itoa(i+1) + " of " + strconv.Itoa(n) + " · [ ]: other gates"
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
	foot = append(foot, wrap(st.Hint.Render(noteLabel)+string(d.note)+cursor, 0)...)
	if d.err != "" {
		foot = append(foot, wrap(st.HeaderErr.Render(d.err), 0)...)
	}
	keys := []string{"↑↓/1-9/click: choose", "tab: note", "enter/click again: answer", "esc: later"}
	switch {
	case d.busy:
		keys = []string{"answering…"}
	case d.editing:
		keys = []string{"type the note", "enter: answer", "tab/esc: back to the choices"}
	case a.readOnly:
		keys = []string{"read-only screen: answer from another one", "↑↓: options", "esc: close"}
	case g.Kind == state.GateReportAuthoring:
		keys = []string{"a/d or ↑↓ choose", "tab: reason", "enter: answer", "esc: later"}
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
	if fixed+len(body)+2+2 > a.height { // border rows, a row of margin each side
		build(func(i int) bool { return i == d.sel })
	}

	var lines []string
	rowChoice := map[int]int{} // content row → choice
	if fixed+len(body)+2 <= a.height {
		d.scrolls, d.top = false, 0
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
		if len(keys) > 1 && !d.busy {
			// Shorter keys: the rows are the gate's.
			keys = []string{"↑↓ choose", "enter answer", "tab note", "esc later"}
			if d.editing {
				keys = []string{"type the note", "enter answer", "tab/esc back"}
			}
		}
		keyLines = hint(st.Hint.Render, wrapItems(keys, inner))
		intro = intro[:len(intro)-1] // no blank row to spare
		lines = a.gateScrolled(d, titleLine, intro, body, bodyChoice, n, foot, keyLines, inner, rowChoice)
	}
	for i := range lines {
		lines[i] = fitCut(lines[i], inner)
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
	d.answerTop = d.answerRow - len(keyLines) + 1
	return box
}

// gateScrolled lays out a dialog taller than the terminal: the title row,
// a window on intro and body that keeps the chosen choice in sight, the
// note and the keys. The keys shrink to one line cut with … when even
// that does not leave a row for the window.
func (a *App) gateScrolled(d *gateDialog, title string, intro, body []string, bodyChoice []int, choices int, foot, keys []string, inner int, rowChoice map[int]int) []string {
	avail := max(a.height-2, 1) // content rows inside the border
	if 1+len(foot)+len(keys)+1 > avail && len(keys) > 1 {
		keys = []string{a.st.Hint.Render(ansi.Truncate(ansi.Strip(strings.Join(keys, " · ")), inner, "…"))}
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
			l = fitCut(l, inner-2) + " " + a.st.HelpKey.Render(more)
		}
		if k >= len(intro) {
			rowChoice[len(lines)] = bodyChoice[k-len(intro)]
		}
		lines = append(lines, l)
	}
	lines = append(lines, foot...)
	return append(lines, keys...)
}

// scrollGate scrolls a dialog taller than the terminal (pgup, pgdn, the
// wheel) and reports whether the key was such a scroll.
func (a *App) scrollGate(s string) bool {
	d := a.gate
	step := 0
	switch s {
	case "pgup":
		step = -max(d.room-1, 1)
	case "pgdown":
		step = max(d.room-1, 1)
	case "up-wheel":
		step = -wheelLines
	case "down-wheel":
		step = wheelLines
	default:
		return false
	}
	if d.scrolls {
		d.top = max(d.top+step, 0) // gateScrolled clamps the end
	}
	return true
}

// wrapWords wraps s (styled) at spaces to width cells: the first line
// indented by first, the others by rest. A word wider than a line is left
// whole on its own line (the caller cuts it with …); words are never split.
func wrapWords(s string, width, first, rest int) []string {
	var lines []string
	cur, curW := blank(first), first
	empty := true
	for _, word := range strings.Split(s, " ") {
		ww := ansi.StringWidth(word)
		if !empty && curW+1+ww > width {
			lines = append(lines, cur)
			cur, curW, empty = blank(rest), rest, true
		}
		if !empty {
			cur += " "
			curW++
		}
		cur += word
		curW += ww
		empty = false
	}
	return append(lines, cur)
}

// wrapItems joins items with " · " into lines of at most width cells,
// breaking only between items; an item wider than a line is cut with ….
func wrapItems(items []string, width int) []string {
	var lines []string
	cur := ""
	for _, it := range items {
		if ansi.StringWidth(it) > width {
			it = ansi.Truncate(it, width, "…")
		}
		switch {
		case cur == "":
			cur = it
		case ansi.StringWidth(cur)+3+ansi.StringWidth(it) > width:
			lines = append(lines, cur)
			cur = it
		default:
			cur += " · " + it
		}
	}
	return append(lines, cur)
}

// fitCut makes s exactly w cells wide: padded, or cut with … at the end.
func fitCut(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return fit(s, w)
	}
	t := ansi.Truncate(s, w, "…")
	if strings.IndexByte(t, '\x1b') >= 0 {
		t += "\x1b[m"
	}
	return t + blank(w-ansi.StringWidth(t))
}

// hint styles each line.
func hint(style func(...string) string, lines []string) []string {
	for i, l := range lines {
		lines[i] = style(l)
	}
	return lines
}
