package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/panes/term"
)

// The mouse side of selection: a drag selects and copies on release, a
// double click a word, a triple click a line (selection.go has the keys).

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
		if m.Button != tea.MouseLeft || a.mouseGrab != "" {
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
