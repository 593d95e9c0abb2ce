package tui

import (
	"strconv"

	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/panes"
)

// scrollState is scroll mode on one pane. back counts the lines the view is
// above the live bottom; 0 shows the live screen. The lines come from
// cmdFetchScroll, as reading scrollback takes the pane's lock.
type scrollState struct {
	id    string
	back  int
	wheel bool // entered by the wheel: scrolling back to the bottom leaves
	from  mode // the mode it was entered from, which leaving returns to

	// The last fetched view; it stays shown until the next fetch arrives,
	// so scrolling never flashes the live screen. first is the text line
	// (term.Pos numbering) of lines[0], end the one after the screen's
	// last row.
	valid      bool
	fetched    int
	lines      []string
	first, end int
	// plain is the text around the view (a page above and below it), from
	// line plainFirst, for the selection's motions (selection.go).
	plain      []string
	plainFirst int

	find  *findState // the search (search.go)
	sel   *selection // the selection (selection.go)
	mouse bool       // entered by a mouse drag: copying leaves
}

// scrollLinesMsg carries the rows of a scrolled view.
type scrollLinesMsg struct {
	id         string
	back       int
	lines      []string
	first, end int
	plain      []string
	plainFirst int
}

// enterScroll starts scroll mode on the focused pane, back lines up.
func (a *App) enterScroll(back int, wheel bool) {
	pv := a.focused()
	if pv == nil {
		return
	}
	from := a.mode
	if from == modeInput {
		a.setMode(modeNav) // the program loses the keyboard
	}
	a.mode = modeScroll
	a.scroll = scrollState{id: pv.id, wheel: wheel, from: from}
	a.scrollBy(back)
}

// scrollBy moves the view up (n > 0) or down, within the history.
func (a *App) scrollBy(n int) {
	pv := a.byID[a.scroll.id]
	if pv == nil {
		return
	}
	a.scroll.back = min(max(a.scroll.back+n, 0), pv.snap.ScrollbackLen)
}

// leaveScroll ends scroll mode, back to the mode it was entered from:
// scroll mode entered while typing (prefix [, the wheel) types again.
func (a *App) leaveScroll() {
	from := a.scroll.from
	a.mode = modeNav
	a.scroll = scrollState{}
	if from == modeInput {
		if pv := a.focused(); pv != nil && !pv.dead() && !a.readOnly {
			a.setMode(modeInput)
		}
	}
}

// followScroll keeps a scrolled view on the same lines while new output
// pushes lines into the history, as tmux's copy mode does; at the bottom
// the view follows the live screen. The lines pushed since prev are the
// growth of the history plus the lines a full history let go of, so the
// view holds still after the history reached its limit too.
func (a *App) followScroll(pv *paneView, prev panes.Snapshot) {
	if a.scroll.back > 0 {
		d := pv.snap.ScrollbackLen - prev.ScrollbackLen
		if pv.snap.ScrollbackDropped > prev.ScrollbackDropped {
			d += int(pv.snap.ScrollbackDropped - prev.ScrollbackDropped)
		}
		if d > 0 {
			a.scroll.back += d
		}
	}
	a.scroll.back = min(a.scroll.back, pv.snap.ScrollbackLen)
}

// scrollTag is the title bar's scroll position as tmux's copy mode shows
// it: lines above the bottom, and the history length ("[0/30]").
func (a *App) scrollTag(pv *paneView) string {
	return strconv.Itoa(a.scroll.back) + "/" + strconv.Itoa(pv.snap.ScrollbackLen)
}

// pageSize is the content height of the scrolled pane.
func (a *App) pageSize() int {
	if pv := a.byID[a.scroll.id]; pv != nil {
		return max(pv.rect.Inner().H, 1)
	}
	return 1
}

// cmdFetchScroll reads the rows of the scrolled view (history lines, then
// the live screen) and the plain text a page around them, and refreshes a
// search whose pane changed.
func (a *App) cmdFetchScroll() tea.Cmd {
	pv := a.byID[a.scroll.id]
	if a.mode != modeScroll || pv == nil || a.textOf(pv) == nil {
		return nil
	}
	id, back, h, get := pv.id, a.scroll.back, pv.rect.Inner().H, a.textOf(pv)
	fetch := func() tea.Msg {
		p, ok := get()
		if !ok {
			return nil
		}
		v := p.View(back, h, true)
		pl := p.View(max(back-h, 0), h+min(back, h)+h, false)
		return scrollLinesMsg{id: id, back: back, lines: v.Lines, first: v.First, end: v.End, plain: pl.Lines, plainFirst: pl.First}
	}
	return tea.Batch(fetch, a.cmdRefreshSearch())
}

// onScrollLines keeps fetched rows if they are still the ones wanted.
func (a *App) onScrollLines(m scrollLinesMsg) {
	if a.mode != modeScroll || m.id != a.scroll.id {
		return
	}
	a.scroll.lines = m.lines
	a.scroll.fetched = m.back
	a.scroll.valid = true
	a.scroll.first, a.scroll.end = m.first, m.end
	a.scroll.plain, a.scroll.plainFirst = m.plain, m.plainFirst
}
