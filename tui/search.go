package tui

import (
	"sort"
	"strconv"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/panes/term"
)

// Search in scroll mode: / (forward) and ? (backward) type a query on the
// status line; enter searches the pane's scrollback and screen
// (panes.Pane.Search: literal, smart case, across soft wraps), every match
// is highlighted and the current one stands out; n and N go to the next
// and previous match in the search's direction, wrapping, as vi and tmux
// do; the title bar counts them ("[/query 3/17]"); esc clears it.

// searchRefresh is how often a search follows a pane that keeps changing.
const searchRefresh = time.Second

// findState is the search of the scrolled pane.
type findState struct {
	query    string
	backward bool // started with ?: n goes up
	matches  []term.Match
	cur      int // index in matches; -1 when there is none
	// seq is the pane's snapshot when the matches were found; busy says a
	// search is running, at when the last one started.
	seq  uint64
	busy bool
	at   time.Time
}

// searchDoneMsg carries a search's matches. move says what to do with them:
// moveFirst picks the first match from the view, moveKeep keeps the
// current match where it is (a refresh).
type searchDoneMsg struct {
	id       string
	query    string
	backward bool
	matches  []term.Match
	seq      uint64
	move     searchMove
	from     term.Pos // where moveFirst starts
}

type searchMove uint8

const (
	moveFirst searchMove = iota
	moveKeep
)

// startSearch searches the scrolled pane for q, from the view: forward from
// its top line, backward from its bottom line.
func (a *App) startSearch(q string, backward bool) tea.Cmd {
	pv := a.byID[a.scroll.id]
	if pv == nil {
		return nil
	}
	first, last := a.viewLines(pv)
	from := term.Pos{Line: first, Col: -1}
	if backward {
		from = term.Pos{Line: last, Col: 1 << 30}
	}
	if s := a.scroll.sel; s != nil {
		from = s.cursor
	}
	a.scroll.find = &findState{query: q, backward: backward, cur: -1, busy: true, at: a.now()}
	return a.cmdSearch(pv, q, backward, moveFirst, from)
}

// cmdSearch runs the search off the event loop (it takes the pane's lock
// and may read 10,000 lines).
func (a *App) cmdSearch(pv *paneView, q string, backward bool, move searchMove, from term.Pos) tea.Cmd {
	get := a.textOf(pv)
	if get == nil {
		return nil
	}
	id, seq := pv.id, pv.snap.Seq
	return func() tea.Msg {
		p, ok := get()
		if !ok {
			return nil
		}
		return searchDoneMsg{id: id, query: q, backward: backward, matches: p.Search(q), seq: seq, move: move, from: from}
	}
}

// cmdRefreshSearch searches again when the pane changed since the matches
// were found, at most once per searchRefresh, keeping the current match.
func (a *App) cmdRefreshSearch() tea.Cmd {
	f := a.scroll.find
	pv := a.byID[a.scroll.id]
	if f == nil || pv == nil || f.busy || f.seq == pv.snap.Seq || a.now().Sub(f.at) < searchRefresh {
		return nil
	}
	f.busy, f.at = true, a.now()
	return a.cmdSearch(pv, f.query, f.backward, moveKeep, term.Pos{})
}

// onSearchDone takes a search's matches and moves to the current one.
func (a *App) onSearchDone(m searchDoneMsg) tea.Cmd {
	f := a.scroll.find
	if a.mode != modeScroll || m.id != a.scroll.id || f == nil || f.query != m.query {
		return nil
	}
	f.busy = false
	f.seq = m.seq
	var keep term.Pos
	hadCur := f.cur >= 0 && f.cur < len(f.matches)
	if hadCur {
		keep = f.matches[f.cur].Start
	}
	f.matches = m.matches
	f.cur = -1
	if len(f.matches) == 0 {
		a.notice = "not found: " + m.query
		return nil
	}
	switch {
	case m.move == moveKeep && hadCur:
		// The same match if it is still there, else the next one on.
		f.cur = nextMatch(f.matches, term.Pos{Line: keep.Line, Col: keep.Col - 1}, false)
		return nil
	case m.move == moveKeep:
		return nil
	}
	f.cur = nextMatch(f.matches, m.from, f.backward)
	return a.showMatch()
}

// nextMatch is the index of the first match after from (before it when
// backward), wrapping around the ends.
func nextMatch(ms []term.Match, from term.Pos, backward bool) int {
	if backward {
		i := sort.Search(len(ms), func(i int) bool { return !ms[i].Start.Less(from) }) - 1
		if i < 0 {
			i = len(ms) - 1
		}
		return i
	}
	i := sort.Search(len(ms), func(i int) bool { return from.Less(ms[i].Start) })
	if i == len(ms) {
		i = 0
	}
	return i
}

// searchStep moves to the next match in the search's direction (n), or
// the other way (N).
func (a *App) searchStep(reverse bool) tea.Cmd {
	f := a.scroll.find
	if f == nil || len(f.matches) == 0 {
		if f != nil {
			a.notice = "not found: " + f.query
		}
		return nil
	}
	from := f.matches[max(f.cur, 0)].Start
	if f.cur < 0 {
		first, _ := a.viewLines(a.byID[a.scroll.id])
		from = term.Pos{Line: first}
	}
	f.cur = nextMatch(f.matches, from, f.backward != reverse)
	return tea.Batch(a.showMatch(), a.cmdRefreshSearch())
}

// showMatch scrolls the current match into view (to the middle when it is
// off screen) and moves the selection's cursor to it.
func (a *App) showMatch() tea.Cmd {
	f := a.scroll.find
	pv := a.byID[a.scroll.id]
	if f == nil || f.cur < 0 || pv == nil {
		return nil
	}
	mt := f.matches[f.cur]
	if s := a.scroll.sel; s != nil {
		s.cursor = mt.Start
	}
	a.revealLine(pv, mt.Start.Line, true)
	return a.cmdFetchScroll()
}

// revealLine scrolls so text line l is in view; center puts it in the
// middle when it was not.
func (a *App) revealLine(pv *paneView, l int, center bool) {
	first, last := a.viewLines(pv)
	if l >= first && l <= last {
		return
	}
	end := a.textEnd(pv)
	h := max(pv.rect.Inner().H, 1)
	var back int
	switch {
	case center:
		back = end - 1 - l - (h-1)/2
	case l < first:
		back = end - l - h
	default:
		back = end - 1 - l
	}
	a.scroll.back = min(max(back, 0), pv.snap.ScrollbackLen)
}

// textEnd is the number after the pane's last text line (term.Pos
// numbering), as of its snapshot.
func (a *App) textEnd(pv *paneView) int {
	return int(pv.snap.ScrollbackDropped) + pv.snap.ScrollbackLen + len(pv.snap.Lines)
}

// viewLines are the first and last text lines the scrolled view shows.
func (a *App) viewLines(pv *paneView) (int, int) {
	if pv == nil {
		return 0, 0
	}
	end := a.textEnd(pv)
	top := end - len(pv.snap.Lines) - pv.snap.ScrollbackLen
	h := max(pv.rect.Inner().H, 1)
	last := end - 1 - a.scroll.back
	return max(last-h+1, top), last
}

// clearSearch ends the search; it reports whether there was one.
func (a *App) clearSearch() bool {
	had := a.scroll.find != nil
	a.scroll.find = nil
	return had
}

// searchTag is the title bar's search tag: the query and the current
// match's number ("/needle 3/17", "?needle 0/0" when nothing matched).
func (a *App) searchTag() string {
	f := a.scroll.find
	if f == nil {
		return ""
	}
	lead := "/"
	if f.backward {
		lead = "?"
	}
	q := f.query
	if utf8.RuneCountInString(q) > 16 {
		q = ansi.Truncate(q, 15, "…")
	}
	if f.busy && f.matches == nil {
		return lead + q + " …"
	}
	return lead + q + " " + strconv.Itoa(f.cur+1) + "/" + strconv.Itoa(len(f.matches))
}
