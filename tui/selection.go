package tui

import (
	"strconv"
	"time"
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
	if s := a.scroll.sel; s != nil {
		if cmd, ok := a.onSelectKey(s, msg); ok {
			return cmd, true
		}
	}
	f, sel := a.keys.Search, a.keys.Select
	switch {
	case key.Matches(msg, f.Forward), key.Matches(msg, f.Backward):
		last := ""
		if a.scroll.find != nil {
			last = a.scroll.find.query
		}
		return a.push(newSearchPrompt(&a.screenEnv, key.Matches(msg, f.Backward), last)), true
	case key.Matches(msg, f.Next), key.Matches(msg, f.Prev):
		if a.scroll.find != nil {
			return a.searchStep(key.Matches(msg, f.Prev)), true
		}
		return nil, true
	case key.Matches(msg, sel.Start), key.Matches(msg, sel.Lines):
		a.startSelection(key.Matches(msg, sel.Lines))
		return a.cmdFetchScroll(), true
	case key.Matches(msg, f.Clear):
		if a.clearSearch() {
			return nil, true
		}
	}
	return nil, false
}

// onSelectKey handles a key while selecting.
func (a *App) onSelectKey(s *selection, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	pv := a.byID[a.scroll.id]
	if pv == nil {
		return nil, false
	}
	k := a.keys.Select
	switch {
	case key.Matches(msg, k.Cancel):
		a.scroll.sel = nil
		return nil, true
	case key.Matches(msg, k.Copy):
		return a.copySelection(), true
	case key.Matches(msg, k.Swap):
		s.anchor, s.cursor = s.cursor, s.anchor
		s.want = s.cursor.Col
	case key.Matches(msg, k.Start) && !key.Matches(msg, k.Anchor), key.Matches(msg, k.Lines):
		lines := key.Matches(msg, k.Lines)
		if s.lines == lines {
			a.scroll.sel = nil
			return nil, true
		}
		s.lines = lines
		return nil, true
	case key.Matches(msg, k.Anchor):
		s.anchor = s.cursor
		return nil, true
	default:
		if !a.moveCursor(pv, s, msg) {
			return nil, false
		}
	}
	a.revealLine(pv, s.cursor.Line, false)
	return a.cmdFetchScroll(), true
}

// moveCursor applies a vi motion to the selection's cursor; false for a
// key that is not one.
func (a *App) moveCursor(pv *paneView, s *selection, msg tea.KeyPressMsg) bool {
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
	k := a.keys.Select
	is := func(b key.Binding) bool { return key.Matches(msg, b) }
	switch {
	case is(k.Left):
		if i > 0 {
			c.Col = cells[i-1].col
		}
		s.want = c.Col
	case is(k.Right):
		if i+1 < len(cells) {
			c.Col = cells[i+1].col
		}
		s.want = c.Col
	case is(k.Down):
		setLine(c.Line + 1)
	case is(k.Up):
		setLine(c.Line - 1)
	case is(k.LineStart):
		c.Col, s.want = 0, 0
	case is(k.FirstChar):
		c.Col = 0
		for _, x := range cells {
			if class(x.text) != 0 {
				c.Col = x.col
				break
			}
		}
		s.want = c.Col
	case is(k.LineEnd):
		c.Col = 0
		if len(cells) > 0 {
			c.Col = cells[len(cells)-1].col
		}
		s.want = 1 << 30
	case is(k.WordNext), is(k.BigNext):
		*c = a.wordForward(*c, is(k.BigNext))
		s.want = c.Col
	case is(k.WordBack), is(k.BigBack):
		*c = a.wordBackward(*c, is(k.BigBack))
		s.want = c.Col
	case is(k.WordEnd), is(k.BigEnd):
		*c = a.wordEnd(*c, is(k.BigEnd))
		s.want = c.Col
	case is(k.Top):
		s.want = 0
		a.scroll.back = pv.snap.ScrollbackLen
		setLine(top)
	case is(k.Bottom):
		s.want = 0
		a.scroll.back = 0
		setLine(end - 1)
	case is(k.ViewTop), is(k.ViewMiddle), is(k.ViewBottom):
		first, last := a.viewLines(pv)
		switch {
		case is(k.ViewTop):
			setLine(first)
		case is(k.ViewMiddle):
			setLine((first + last) / 2)
		default:
			setLine(last)
		}
	case is(k.HalfUp):
		page(-h / 2)
	case is(k.HalfDown):
		page(h / 2)
	case is(k.PageUp):
		page(-h)
	case is(k.PageDown):
		page(h)
	default:
		return false
	}
	return true
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
	what := "copied " + strconv.Itoa(n) + " chars"
	if n == 1 {
		what = "copied 1 char"
	}
	if a.alerts.Tmux {
		// tmux's default (set-clipboard external) drops OSC 52 from the
		// programs it runs (issue 17, finding 5).
		what += " (inside tmux only with set -s set-clipboard on)"
	}
	a.say(what)
	return tea.SetClipboard(m.text)
}

// scrollHint is the key hint of scroll mode.
func (a *App) scrollHint() string {
	switch {
	case a.scroll.sel != nil:
		return "esc: cancel · y: copy · hjkl w b e 0 $: move"
	case a.scroll.find != nil:
		return "q: leave · esc: clear · n/N: next/prev · v: select"
	}
	return "q: leave · / ?: search · v: select"
}
