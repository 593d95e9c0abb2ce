package tui

import (
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/panes/term"
)

// Selection and copy, as tmux's copy-mode-vi: in scroll mode v or space
// starts selecting at a cursor, V selects whole lines, the vi motions move
// the cursor (h j k l w b e 0 ^ $ g G H M L, ctrl+u/d, ctrl+b/f), o goes to
// the other end, y or enter copies and leaves scroll mode, esc drops the
// selection. With the mouse, a drag in a pane's cells selects (no shift
// needed; scroll mode comes and goes with it) and the release copies; a
// double click copies a word, a triple click a line. A program typing
// into which asked for the mouse gets the mouse instead, as in tmux.
//
// The copy goes to the outer terminal's clipboard as OSC 52 (bubbletea's
// SetClipboard), which terminals, ssh and tmux (set-clipboard on) pass on;
// the text comes from the pane (panes.Pane.Text: soft-wrapped lines
// joined, trailing blanks trimmed).

// selection is the selection of the scrolled pane: from anchor to cursor,
// both cells included (lines: their whole lines).
type selection struct {
	anchor, cursor term.Pos
	lines          bool
	want           int // the column j and k aim for (vi's curswant)
}

// ends are the selection's first and last cells, in text order.
func (s *selection) ends() (term.Pos, term.Pos) {
	if s.cursor.Less(s.anchor) {
		return s.cursor, s.anchor
	}
	return s.anchor, s.cursor
}

// mouseSel follows a press of the left button in a pane's cells: a drag
// from it selects; presses close in time and place count as double and
// triple clicks.
type mouseSel struct {
	id       string
	press    term.Pos
	pressed  bool
	dragging bool
	wasInput bool // typing into the pane when the drag began

	lastAt        time.Time
	lastX, lastY  int
	clicks        int
	lastClickPane string
}

// doubleClick is the longest gap between the clicks of a double click.
const doubleClick = 400 * time.Millisecond

// cell is one character of a line of text: its first column and width.
type cell struct {
	col, w int
	text   string
}

// cellsOf splits a line (styled or plain) into its characters.
func cellsOf(line string) []cell {
	s := ansi.Strip(line)
	var cells []cell
	col := 0
	for len(s) > 0 {
		g, w := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
		if len(g) == 0 {
			break
		}
		s = s[len(g):]
		if w == 0 {
			if len(cells) > 0 {
				cells[len(cells)-1].text += g
			}
			continue
		}
		cells = append(cells, cell{col: col, w: w, text: g})
		col += w
	}
	return cells
}

// lineCells are the characters of text line l as far as the screen knows
// them: the plain text around the scrolled view, the view itself, or the
// live screen; ok is false for a line it does not have.
func (a *App) lineCells(l int) ([]cell, bool) {
	sc := &a.scroll
	if i := l - sc.plainFirst; sc.plain != nil && i >= 0 && i < len(sc.plain) {
		return cellsOf(sc.plain[i]), true
	}
	if i := l - sc.first; sc.valid && i >= 0 && i < len(sc.lines) {
		return cellsOf(sc.lines[i]), true
	}
	pv := a.byID[sc.id]
	if pv == nil {
		pv = a.focused()
	}
	if pv != nil {
		end := a.textEnd(pv)
		if i := l - (end - len(pv.snap.Lines)); i >= 0 && i < len(pv.snap.Lines) {
			return cellsOf(pv.snap.Lines[i]), true
		}
	}
	return nil, false
}

// cellIndex is the index of the character covering column col, or the
// last one when col is past the text (-1 for an empty line).
func cellIndex(cells []cell, col int) int {
	for i, c := range cells {
		if col < c.col+c.w {
			return i
		}
	}
	return len(cells) - 1
}

// cellWidthAt is the width of the character at p (1 when unknown).
func (a *App) cellWidthAt(p term.Pos) int {
	cells, ok := a.lineCells(p.Line)
	if !ok {
		return 1
	}
	for _, c := range cells {
		if p.Col >= c.col && p.Col < c.col+c.w {
			return c.w
		}
	}
	return 1
}

// snapCol moves col onto the start of a character of line l, within its
// text (column 0 for an empty line).
func (a *App) snapCol(l, col int) int {
	cells, ok := a.lineCells(l)
	if !ok {
		return max(col, 0)
	}
	if i := cellIndex(cells, col); i >= 0 {
		return cells[i].col
	}
	return 0
}

// startSelection starts selecting at the cursor: the current search match
// when there is one in view, else the pane's cursor on the live screen,
// else the start of the view's bottom line.
func (a *App) startSelection(lines bool) {
	pv := a.byID[a.scroll.id]
	if pv == nil {
		return
	}
	first, last := a.viewLines(pv)
	p := term.Pos{Line: last}
	if f := a.scroll.find; f != nil && f.cur >= 0 && f.cur < len(f.matches) && f.matches[f.cur].Start.Line >= first && f.matches[f.cur].Start.Line <= last {
		p = f.matches[f.cur].Start
	} else if a.scroll.back == 0 && pv.snap.Cursor.Y < len(pv.snap.Lines) {
		p = term.Pos{Line: a.textEnd(pv) - len(pv.snap.Lines) + pv.snap.Cursor.Y, Col: pv.snap.Cursor.X}
	}
	p.Col = a.snapCol(p.Line, p.Col)
	a.scroll.sel = &selection{anchor: p, cursor: p, lines: lines, want: p.Col}
}

// onFindKey handles the search and selection keys of scroll mode; handled
// is false for the keys scroll mode handles itself.
func (a *App) onFindKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if a.scroll.prompt != nil {
		return a.onPromptKey(msg), true
	}
	k := msg.String()
	if key.Matches(msg, a.keys.Prefix) {
		return nil, false // leaves scroll mode, even while selecting (ctrl+b)
	}
	if s := a.scroll.sel; s != nil {
		if cmd, ok := a.onSelectKey(s, k); ok {
			return cmd, true
		}
	}
	switch k {
	case "/", "?":
		a.openPrompt(k == "?")
		return nil, true
	case "n", "N":
		if a.scroll.find != nil {
			return a.searchStep(k == "N"), true
		}
		return nil, true
	case "v", "space", "V":
		a.startSelection(k == "V")
		return a.cmdFetchScroll(), true
	case "esc":
		if a.clearSearch() {
			return nil, true
		}
	}
	return nil, false
}

// onSelectKey handles a key while selecting.
func (a *App) onSelectKey(s *selection, k string) (tea.Cmd, bool) {
	pv := a.byID[a.scroll.id]
	if pv == nil {
		return nil, false
	}
	switch k {
	case "esc", "ctrl+c":
		a.scroll.sel = nil
		return nil, true
	case "y", "enter":
		return a.copySelection(), true
	case "o":
		s.anchor, s.cursor = s.cursor, s.anchor
		s.want = s.cursor.Col
	case "v", "V":
		if s.lines == (k == "V") {
			a.scroll.sel = nil
			return nil, true
		}
		s.lines = k == "V"
		return nil, true
	case "space":
		s.anchor = s.cursor
		return nil, true
	default:
		if !a.moveCursor(pv, s, k) {
			return nil, false
		}
	}
	a.revealLine(pv, s.cursor.Line, false)
	return a.cmdFetchScroll(), true
}

// moveCursor applies a vi motion to the selection's cursor; false for a
// key that is not one.
func (a *App) moveCursor(pv *paneView, s *selection, k string) bool {
	h := max(pv.rect.Inner().H, 1)
	end := a.textEnd(pv)
	top := end - len(pv.snap.Lines) - pv.snap.ScrollbackLen
	c := &s.cursor
	setLine := func(l int) {
		c.Line = min(max(l, top), end-1)
		c.Col = a.snapCol(c.Line, s.want)
	}
	page := func(n int) {
		a.scrollBy(-n)
		setLine(c.Line + n)
	}
	cells, _ := a.lineCells(c.Line)
	i := cellIndex(cells, c.Col)
	switch k {
	case "h", "left", "backspace":
		if i > 0 {
			c.Col = cells[i-1].col
		}
		s.want = c.Col
	case "l", "right":
		if i+1 < len(cells) {
			c.Col = cells[i+1].col
		}
		s.want = c.Col
	case "j", "down", "ctrl+n", "ctrl+j":
		setLine(c.Line + 1)
	case "k", "up", "ctrl+p":
		setLine(c.Line - 1)
	case "0", "home":
		c.Col, s.want = 0, 0
	case "^":
		c.Col = 0
		for _, x := range cells {
			if class(x.text) != 0 {
				c.Col = x.col
				break
			}
		}
		s.want = c.Col
	case "$", "end":
		c.Col = 0
		if len(cells) > 0 {
			c.Col = cells[len(cells)-1].col
		}
		s.want = 1 << 30
	case "w", "W":
		*c = a.wordForward(*c, k == "W")
		s.want = c.Col
	case "b", "B":
		*c = a.wordBackward(*c, k == "B")
		s.want = c.Col
	case "e", "E":
		*c = a.wordEnd(*c, k == "E")
		s.want = c.Col
	case "g":
		s.want = 0
		a.scroll.back = pv.snap.ScrollbackLen
		setLine(top)
	case "G":
		s.want = 0
		a.scroll.back = 0
		setLine(end - 1)
	case "H", "M", "L":
		first, last := a.viewLines(pv)
		switch k {
		case "H":
			setLine(first)
		case "M":
			setLine((first + last) / 2)
		default:
			setLine(last)
		}
	case "ctrl+u":
		page(-h / 2)
	case "ctrl+d":
		page(h / 2)
	case "ctrl+b", "pgup":
		page(-h)
	case "ctrl+f", "pgdown":
		page(h)
	default:
		return false
	}
	return true
}

// class is a character's vi class: 0 blank, 1 punctuation, 2 a word
// character (letter, digit, _). With big (W, B, E) any non-blank is one
// class.
func class(text string) int {
	r, _ := utf8.DecodeRuneInString(text)
	switch {
	case text == "" || r == ' ' || r == '\t' || r == 0:
		return 0
	case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || utf8.RuneCountInString(text) > 1 && unicode.IsLetter(r):
		return 2
	}
	return 1
}

// textWalk steps through the characters of the lines the screen knows,
// with the end of each line as one blank between lines.
type textWalk struct {
	a     *App
	line  int
	cells []cell
	i     int // index in cells; len(cells) is the line's end
	ok    bool
}

func (a *App) walkAt(p term.Pos) *textWalk {
	cells, ok := a.lineCells(p.Line)
	w := &textWalk{a: a, line: p.Line, cells: cells, ok: ok}
	w.i = max(cellIndex(cells, p.Col), 0)
	return w
}

func (w *textWalk) class(big bool) int {
	if w.i >= len(w.cells) {
		return 0
	}
	c := class(w.cells[w.i].text)
	if big && c > 0 {
		return 1
	}
	return c
}

func (w *textWalk) pos() term.Pos {
	if w.i < len(w.cells) {
		return term.Pos{Line: w.line, Col: w.cells[w.i].col}
	}
	col := 0
	if len(w.cells) > 0 {
		col = w.cells[len(w.cells)-1].col
	}
	return term.Pos{Line: w.line, Col: col}
}

// next moves one character on; false at the end of what is known.
func (w *textWalk) next() bool {
	if w.i < len(w.cells) {
		w.i++
		return true
	}
	cells, ok := w.a.lineCells(w.line + 1)
	if !ok {
		return false
	}
	w.line, w.cells, w.i = w.line+1, cells, 0
	return true
}

// prev moves one character back; false at the start of what is known.
func (w *textWalk) prev() bool {
	if w.i > 0 {
		w.i--
		return true
	}
	cells, ok := w.a.lineCells(w.line - 1)
	if !ok {
		return false
	}
	w.line, w.cells, w.i = w.line-1, cells, len(cells)
	return true
}

// wordForward is vi's w: the start of the next word.
func (a *App) wordForward(p term.Pos, big bool) term.Pos {
	w := a.walkAt(p)
	c := w.class(big)
	for c != 0 && w.class(big) == c {
		if !w.next() {
			return w.pos()
		}
	}
	for w.class(big) == 0 {
		if !w.next() {
			return w.pos()
		}
	}
	return w.pos()
}

// wordEnd is vi's e: the last character of this or the next word.
func (a *App) wordEnd(p term.Pos, big bool) term.Pos {
	w := a.walkAt(p)
	if !w.next() {
		return w.pos()
	}
	for w.class(big) == 0 {
		if !w.next() {
			return w.pos()
		}
	}
	c := w.class(big)
	for {
		save := *w
		if !w.next() || w.class(big) != c {
			*w = save
			return w.pos()
		}
	}
}

// wordBackward is vi's b: the start of this or the previous word.
func (a *App) wordBackward(p term.Pos, big bool) term.Pos {
	w := a.walkAt(p)
	if !w.prev() {
		return w.pos()
	}
	for w.class(big) == 0 {
		if !w.prev() {
			return w.pos()
		}
	}
	c := w.class(big)
	for {
		save := *w
		if !w.prev() || w.class(big) != c {
			*w = save
			return w.pos()
		}
	}
}

// copySelection copies the selection and leaves scroll mode.
func (a *App) copySelection() tea.Cmd {
	s := a.scroll.sel
	pv := a.byID[a.scroll.id]
	if s == nil || pv == nil {
		return nil
	}
	from, to := s.ends()
	to.Col += a.cellWidthAt(to)
	cmd := a.cmdCopy(pv.id, from, to, s.lines)
	back := a.msel.wasInput && a.scroll.mouse
	a.leaveScroll()
	if back {
		a.setMode(modeInput)
	}
	return cmd
}

// copiedMsg carries the text to copy.
type copiedMsg struct{ text string }

// cmdCopy reads the text between two positions of pane id.
func (a *App) cmdCopy(id string, from, to term.Pos, lines bool) tea.Cmd {
	pv := a.byID[id]
	if pv == nil || a.textOf(pv) == nil {
		return nil
	}
	get := a.textOf(pv)
	return func() tea.Msg {
		p, ok := get()
		if !ok {
			return nil
		}
		return copiedMsg{text: p.Text(from, to, lines)}
	}
}

// onCopied puts the text on the outer terminal's clipboard (OSC 52) and
// says so.
func (a *App) onCopied(m copiedMsg) tea.Cmd {
	n := utf8.RuneCountInString(m.text)
	if n == 0 {
		a.notice = "nothing to copy"
		return nil
	}
	if n == 1 {
		a.notice = "copied 1 char"
	} else {
		a.notice = "copied " + strconv.Itoa(n) + " chars"
	}
	return tea.SetClipboard(m.text)
}

// posAt is the text position under screen cell (x, y) of pv, clamped to
// its cells.
func (a *App) posAt(pv *paneView, x, y int) term.Pos {
	in := pv.rect.Inner()
	row := min(max(y-in.Y, 0), max(in.H-1, 0))
	col := min(max(x-in.X, 0), max(in.W-1, 0))
	var l int
	if a.mode == modeScroll && a.scroll.id == pv.id && a.scroll.valid {
		l = a.scroll.first + row
	} else {
		first, _ := a.viewLines(pv)
		if a.mode != modeScroll || a.scroll.id != pv.id {
			first = a.textEnd(pv) - len(pv.snap.Lines)
		}
		l = first + row
	}
	cells, ok := a.lineCells(l)
	if ok {
		for _, c := range cells {
			if col >= c.col && col < c.col+c.w {
				col = c.col
			}
		}
	}
	return term.Pos{Line: l, Col: col}
}

// onSelectMouse handles the left button in a pane's cells: press, drag
// and release select and copy, double and triple clicks copy a word and a
// line. handled is false for what is not a selection's (another button,
// a title bar, a program that asked for the mouse while typing into it).
func (a *App) onSelectMouse(msg tea.MouseMsg) (tea.Cmd, bool) {
	m := msg.Mouse()
	ms := &a.msel
	switch msg.(type) {
	case tea.MouseClickMsg:
		ms.pressed, ms.dragging = false, false
		if m.Button != tea.MouseLeft || a.confirm != nil || a.showHelp || a.mouseGrab != "" {
			return nil, false
		}
		i, pv := a.paneAt(m.X, m.Y)
		if pv == nil || !pv.rect.Inner().Contains(m.X, m.Y) {
			return nil, false
		}
		if a.mode == modeInput && pv.snap.Modes.Mouse != term.MouseNone {
			return nil, false
		}
		a.setFocus(i)
		now := time.Now()
		if ms.clicks > 0 && ms.lastClickPane == pv.id && now.Sub(ms.lastAt) < doubleClick && m.X == ms.lastX && m.Y == ms.lastY {
			ms.clicks++
		} else {
			ms.clicks = 1
		}
		ms.lastAt, ms.lastX, ms.lastY, ms.lastClickPane = now, m.X, m.Y, pv.id
		p := a.posAt(pv, m.X, m.Y)
		switch ms.clicks {
		case 2:
			from, to := a.wordAt(p)
			return a.cmdCopy(pv.id, from, to, false), true
		case 3:
			return a.cmdCopy(pv.id, p, p, true), true
		}
		*ms = mouseSel{id: pv.id, press: p, pressed: true, wasInput: a.mode == modeInput,
			lastAt: ms.lastAt, lastX: ms.lastX, lastY: ms.lastY, clicks: ms.clicks, lastClickPane: ms.lastClickPane}
		return nil, true
	case tea.MouseMotionMsg:
		if !ms.pressed {
			return nil, false
		}
		pv := a.byID[ms.id]
		if pv == nil {
			ms.pressed = false
			return nil, true
		}
		if !ms.dragging {
			ms.dragging = true
			if a.mode != modeScroll || a.scroll.id != pv.id {
				a.setMode(modeNav)
				a.enterScroll(0, false)
				a.scroll.mouse = true
			}
			a.scroll.sel = &selection{anchor: ms.press, cursor: ms.press}
		}
		// Dragging past the top or the bottom of the pane scrolls it.
		in := pv.rect.Inner()
		if m.Y < in.Y {
			a.scrollBy(1)
		} else if m.Y >= in.Y+in.H {
			a.scrollBy(-1)
		}
		if s := a.scroll.sel; s != nil {
			s.cursor = a.posAt(pv, m.X, m.Y)
			s.want = s.cursor.Col
		}
		return a.cmdFetchScroll(), true
	case tea.MouseReleaseMsg:
		if !ms.pressed {
			return nil, false
		}
		ms.pressed = false
		if !ms.dragging {
			return nil, true
		}
		ms.dragging = false
		if a.mode != modeScroll || a.scroll.sel == nil {
			return nil, true
		}
		if !a.scroll.mouse && !a.scroll.wheel {
			// Scroll mode was the human's before the drag: copy and stay.
			s := a.scroll.sel
			a.scroll.sel = nil
			from, to := s.ends()
			to.Col += a.cellWidthAt(to)
			return a.cmdCopy(a.scroll.id, from, to, false), true
		}
		a.scroll.mouse = true
		return a.copySelection(), true
	}
	return nil, false
}

// wordAt is the word (a run of one vi class) around p, End exclusive.
func (a *App) wordAt(p term.Pos) (term.Pos, term.Pos) {
	cells, ok := a.lineCells(p.Line)
	i := cellIndex(cells, p.Col)
	if !ok || i < 0 || p.Col >= cells[len(cells)-1].col+cells[len(cells)-1].w {
		return p, term.Pos{Line: p.Line, Col: p.Col + 1}
	}
	c := class(cells[i].text)
	j, k := i, i
	for j > 0 && class(cells[j-1].text) == c {
		j--
	}
	for k+1 < len(cells) && class(cells[k+1].text) == c {
		k++
	}
	return term.Pos{Line: p.Line, Col: cells[j].col}, term.Pos{Line: p.Line, Col: cells[k].col + cells[k].w}
}

// scrollHint is the key hint of scroll mode.
func (a *App) scrollHint() string {
	switch {
	case a.scroll.sel != nil:
		return "y: copy · esc: cancel · hjkl w b e 0 $: move"
	case a.scroll.find != nil:
		return "n/N: next/prev · esc: clear · v: select · q: leave"
	}
	return "/ ?: search · v: select · q: leave"
}
