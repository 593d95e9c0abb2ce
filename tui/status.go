package tui

import (
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/state"
)

// headerLine is the top row: the run's title and backend on the left, the
// next-phase pointer on the right.
func (a *App) headerLine() string {
	w := a.width
	if !a.haveRun {
		return fit(a.st.HeaderTitle.Render(" cockpit")+a.st.Hint.Render(" · waiting for the run"), w)
	}
	v := a.run
	title := v.Title
	if title == "" {
		title = "cockpit"
	}
	left := " " + a.st.HeaderTitle.Render(title)
	if v.Backend != "" {
		left += a.st.Hint.Render(" · " + v.Backend)
	}
	if v.Err != "" {
		left += " " + a.st.HeaderErr.Render("⚠ "+v.Err)
	}
	right := ""
	if v.Next != nil {
		right = a.st.HeaderNext.Render(nextText(v.Next)) + " "
	}
	return spread(left, right, w)
}

// nextText is the next-phase pointer as the header shows it, in words:
// the status is what says whether the phase can start (CONTRACTS: read
// status, never infer from a non-empty phase), then the run's rationale.
func nextText(n *state.NextPhase) string {
	var s string
	switch {
	case n.Status == "terminal":
		s = "the run is finished"
	case n.Phase == "":
		s = "next phase " + map[string]string{"ready": "ready", "pending": "not decided yet", "blocked": "blocked"}[n.Status]
		if s == "next phase " {
			s = "next phase: — (" + n.Status + ")"
		}
	default:
		s = "next: " + n.Phase + " — " + map[string]string{"ready": "ready", "pending": "not ready yet", "blocked": "blocked"}[n.Status]
		if strings.HasSuffix(s, " — ") {
			s = "next: " + n.Phase + " (" + n.Status + ")"
		}
	}
	if n.Rationale != "" {
		s += ": " + n.Rationale
	}
	return s
}

// noticeTime is how long a notice shows on the status line, as tmux's
// display-time: then the counts have the line again.
const noticeTime = 5 * time.Second

// noticeTickMsg says a notice's time is up.
type noticeTickMsg struct{}

// say shows text as a notice, for noticeTime again even when it is the
// notice shown last (a refusal repeated).
func (a *App) say(text string) {
	a.notice, a.noticeSeen = text, ""
}

// cmdNotice times a new notice: it shows for noticeTime from now.
func (a *App) cmdNotice() tea.Cmd {
	if a.notice == a.noticeSeen {
		return nil
	}
	a.noticeSeen, a.noticeAt = a.notice, a.now()
	if a.notice == "" || a.manual {
		return nil
	}
	return tea.Tick(noticeTime, func(time.Time) tea.Msg { return noticeTickMsg{} })
}

// noticeFresh reports whether the notice is still to be shown.
func (a *App) noticeFresh() bool {
	// A notice not timed yet (cmdNotice runs at the end of Update) is new.
	return a.notice != "" && (a.notice != a.noticeSeen || a.now().Sub(a.noticeAt) < noticeTime)
}

// statusLine is the bottom row: the mode badge, then on the right the keys
// of the current mode, pinned (they lose whole items from their end only
// when the line cannot hold them and the badge, and the first, the way
// out, stays); a fresh notice takes what is left for noticeTime (as
// tmux's display-message), next to the counts when both fit; otherwise the
// batch counts (or that no worker was dispatched yet), the batch kind, its
// elapsed time, the run's cost and the waiting gates, which lose the kind,
// the time and the cost first, then the "phase-5-poll" word, then are cut
// with "…". A question or the search prompt takes the whole line.
func (a *App) statusLine() string {
	w := a.width
	if t, ok := a.top().(statusTaker); ok {
		if l := t.StatusLine(w); l != "" {
			return l
		}
	}
	badge := a.mode.String()
	if h, ok := a.top().(hinter); ok {
		badge = h.Badge()
	}
	if a.prefixed {
		badge = "PREFIX"
	}
	if a.zoom {
		badge += " ZOOM"
	}
	left := a.st.ModeBadge.Render(" "+badge+" ") + " "
	if a.readOnly {
		left += a.st.Prompt.Render("read-only") + " "
	}
	lw := ansi.StringWidth(left)
	right := ""
	if room := w - lw - 1; room > 0 {
		// The keys take at most 2/5 of the line (their first item always).
		h := a.hint()
		first := ansi.StringWidth(strings.Split(h, " · ")[0])
		if h = fitHint(h, min(max(room*2/5, first), room)); h != "" {
			right = a.st.Hint.Render(h) + " "
		}
	}
	rest := w - lw - ansi.StringWidth(right) - 1
	sep := a.st.Hint.Render(" · ")
	counts, gates := a.countsText(rest)
	var mid string
	if a.noticeFresh() {
		notice := a.st.Notice.Render(a.notice)
		nw := ansi.StringWidth(notice)
		g := strings.TrimPrefix(gates, sep)
		if g != "" {
			g += sep
		}
		switch {
		case counts+gates != "" && ansi.StringWidth(counts+gates)+3+nw <= rest:
			mid = counts + gates + sep + notice
		case rest-ansi.StringWidth(g) >= 12:
			// The gates stay (they say the key); the notice takes the rest.
			mid = g + ansi.Truncate(notice, rest-ansi.StringWidth(g), "…")
		default:
			mid = ansi.Truncate(notice, max(rest, 0), "…")
		}
	} else {
		mid = counts + gates
		if ansi.StringWidth(mid) > rest {
			// The gates stay whole (they say the key); the counts are cut.
			room := rest - ansi.StringWidth(gates)
			switch {
			case gates == "":
				mid = ansi.Truncate(counts, max(rest, 0), "…")
			case room >= 8:
				mid = ansi.Truncate(counts, room, "…") + gates
			default:
				mid = ansi.Truncate(strings.TrimPrefix(gates, sep), max(rest, 0), "…")
			}
		}
	}
	return spread(left+mid, right, w)
}

// countsText is the batch counts with what fits of the kind, the elapsed
// time and the cost in w cells, and the waiting gates (after a separator).
func (a *App) countsText(w int) (counts, gates string) {
	if !a.haveRun {
		return "", ""
	}
	v := a.run
	sep := a.st.Hint.Render(" · ")
	counts = "no workers dispatched yet"
	if len(v.Dispatches) > 0 {
		counts = "phase-5-poll pending=" + strconv.Itoa(v.Batch.Pending) + " done=" + strconv.Itoa(v.Batch.Done)
	}
	if n := len(v.Gates); n > 0 {
		gates = sep + a.st.Prompt.Render(a.gateText(n))
	}
	// Optional parts, dropped in this order when the line is short.
	var opt []string
	if v.BatchKind != "" && len(v.Dispatches) > 0 {
		opt = append(opt, string(v.BatchKind))
	}
	if d, ok := a.batchElapsed(); ok {
		opt = append(opt, formatElapsed(d))
	}
	if c := a.totalCost(); c != "" {
		opt = append(opt, c)
	}
	for len(opt) > 0 && ansi.StringWidth(counts+sep+strings.Join(opt, sep)+gates) > w {
		opt = opt[1:]
	}
	if short, ok := strings.CutPrefix(counts, "phase-5-poll "); ok && len(opt) == 0 && ansi.StringWidth(counts+gates) > w {
		counts = short
	}
	if len(opt) > 0 {
		counts += sep + strings.Join(opt, sep)
	}
	return counts, gates
}

// fitHint keeps the items of a key hint ("a: x · b: y") that fit in w
// cells, dropping whole items from the end: a hint is never cut mid-word,
// except its first item (the way out), which is cut with … rather than
// dropped.
func fitHint(h string, w int) string {
	items := strings.Split(h, " · ")
	for len(items) > 1 && ansi.StringWidth(strings.Join(items, " · ")) > w {
		items = items[:len(items)-1]
	}
	out := strings.Join(items, " · ")
	if ansi.StringWidth(out) > w {
		out = ansi.Truncate(out, max(w, 0), "…")
	}
	return out
}

// gateText counts the waiting gates with the key that opens the dialog
// from the current mode: g while navigating, the prefix then g while
// typing into a pane or scrolling (where g is the pane's or "top").
func (a *App) gateText(n int) string {
	k := "(" + a.gateKey() + ")"
	if overlayOf[*gateDialog](a) != nil {
		k = "" // the dialog is open
	}
	if n == 1 {
		return strings.TrimSpace("1 gate waiting " + k)
	}
	return strings.TrimSpace(strconv.Itoa(n) + " gates waiting " + k)
}

// gateKey is the key that opens the gate dialog from the current mode.
func (a *App) gateKey() string {
	g := a.keys.Nav.Gate.Help().Key
	if a.mode == modeNav && a.top() == nil {
		return g
	}
	return a.keys.Prefix.Help().Key + " " + g
}

// hint names the keys of the current mode, the way out first.
func (a *App) hint() string {
	p := a.keys.Prefix.Help().Key
	if a.prefixed {
		h := "?: all keys · esc: navigation · z: zoom · ←↓↑→: focus · [: scroll · w: overview"
		if a.attached {
			h += " · d: detach"
		}
		return h
	}
	if h, ok := a.top().(hinter); ok {
		return h.Hint()
	}
	switch a.mode {
	case modeInput:
		h := p + " esc: navigation · " + p + " ?: keys"
		if a.attached {
			h += " · " + p + " d: detach"
		}
		return h + " · " + p + " [: scroll"
	case modeScroll:
		return a.scrollHint()
	}
	switch {
	case a.readOnly && a.attached:
		return "?: help · w: overview · d: detach"
	case a.readOnly:
		return "?: help · w: overview"
	case a.attached:
		return "?: help · enter: type · w: overview · d: detach · q: detach or end"
	}
	return "?: help · enter: type · w: overview · q: quit"
}

// tabStrip lists the panes when only the focused one fits: number,
// glyph and label, the focused one highlighted. When they do not all fit,
// the strip shows a window around the focused tab and counts the panes
// left out on each side.
func (a *App) tabStrip(w int) string {
	strip, _ := a.tabLayout(w)
	return strip
}

// tabSpan is where pane i's tab lies in the strip, [x0, x1).
type tabSpan struct{ i, x0, x1 int }

// tabLayout draws the tab strip and says where each shown tab is, so a
// click can find its pane.
func (a *App) tabLayout(w int) (string, []tabSpan) {
	if len(a.panes) == 0 {
		return blank(w), nil
	}
	maxLabel := max(w/4, 8)
	tabs := make([]string, len(a.panes))
	widths := make([]int, len(a.panes))
	for i, pv := range a.panes {
		g := a.glyph(pv)
		text := " " + strconv.Itoa(i+1) + ":" + ansi.Truncate(pv.label(), maxLabel, "…") + " "
		style := a.st.Tab
		if i == a.focus {
			style = a.st.TabFocused
		}
		tabs[i] = g.styled + style.Render(text)
		widths[i] = ansi.StringWidth(g.plain) + ansi.StringWidth(text)
	}
	const marker = 4 // room for "‹12 " or " +12"
	focus := min(max(a.focus, 0), len(tabs)-1)
	start, end := focus, focus+1
	used := widths[focus]
	for {
		grown := false
		if end < len(tabs) && used+widths[end]+marker*2 <= w {
			used += widths[end]
			end++
			grown = true
		}
		if start > 0 && used+widths[start-1]+marker*2 <= w {
			start--
			used += widths[start]
			grown = true
		}
		if !grown {
			break
		}
	}
	var b strings.Builder
	x := 0
	if start > 0 {
		m := "‹" + strconv.Itoa(start) + " "
		b.WriteString(a.st.Tab.Render(m))
		x += ansi.StringWidth(m)
	}
	spans := make([]tabSpan, 0, end-start)
	for i := start; i < end; i++ {
		b.WriteString(tabs[i])
		spans = append(spans, tabSpan{i, x, x + widths[i]})
		x += widths[i]
	}
	if end < len(tabs) {
		b.WriteString(a.st.Tab.Render(" +" + strconv.Itoa(len(tabs)-end)))
	}
	return fit(b.String(), w), spans
}

// spread puts left and right on one line of w cells. When both do not
// fit, right is cut first (down to a third of the line), then left.
func spread(left, right string, w int) string {
	lw, rw := ansi.StringWidth(left), ansi.StringWidth(right)
	if lw+rw+1 > w {
		if keep := max(w-lw-1, w/3); rw > keep {
			right = ansi.Truncate(right, keep, "…")
			rw = ansi.StringWidth(right)
		}
		if lw+rw+1 > w {
			left = ansi.Truncate(left, max(w-rw-1, 0), "…")
			lw = ansi.StringWidth(left)
		}
	}
	return left + blank(w-lw-rw) + right
}
