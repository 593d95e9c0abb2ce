package tui

import (
	"strconv"
	"strings"

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

// nextText is the next-phase pointer as the header shows it. The status is
// what says whether the phase can start (CONTRACTS: read status, never infer
// from a non-empty phase); a pointer without a phase shows a dash.
func nextText(n *state.NextPhase) string {
	phase := n.Phase
	if phase == "" {
		phase = "—"
	}
	s := "next: " + phase + " (" + n.Status + ")"
	if n.Rationale != "" {
		s += " " + n.Rationale
	}
	return s
}

// statusLine is the bottom row: the mode, the batch counts (or that no
// worker was dispatched yet), the batch kind, its elapsed time, the run's
// cost, waiting gates, the last notice, and on the right the keys that
// work now. A pending confirmation takes the whole line. When space is
// short the key hint loses items from its end, then the batch kind, the
// elapsed time and the cost go, then the notice is cut with "…"; the
// counts and gates stay.
func (a *App) statusLine() string {
	w := a.width
	if p := a.promptLine(); p != "" {
		return p
	}
	if a.confirm != nil && a.confirm.kind != confirmEnd {
		return fit(" "+a.st.Prompt.Render(ansi.Truncate(a.confirm.text, max(w-1, 0), "…")), w)
	}
	badge := a.mode.String()
	if a.overview != nil {
		badge = "OVERVIEW"
	}
	if a.zoom {
		badge += " ZOOM"
	}
	left := a.st.ModeBadge.Render(" "+badge+" ") + " "
	if a.readOnly {
		left += a.st.Prompt.Render("read-only") + " "
	}
	sep := a.st.Hint.Render(" · ")
	if a.haveRun {
		v := a.run
		counts := "no workers dispatched yet"
		if len(v.Dispatches) > 0 {
			counts = "phase-5-poll pending=" + strconv.Itoa(v.Batch.Pending) + " done=" + strconv.Itoa(v.Batch.Done)
		}
		gates := ""
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
		for len(opt) > 0 && ansi.StringWidth(left+counts+sep+strings.Join(opt, sep)+gates) > w {
			opt = opt[1:]
		}
		if short, ok := strings.CutPrefix(counts, "phase-5-poll "); ok && len(opt) == 0 && ansi.StringWidth(left+counts+gates) > w {
			counts = short
		}
		if len(opt) > 0 {
			counts += sep + strings.Join(opt, sep)
		}
		left += counts + gates
	}
	notice := ""
	if a.notice != "" {
		notice = a.st.Notice.Render(a.notice)
		if a.haveRun {
			notice = sep + notice
		}
	}
	lw, nw := ansi.StringWidth(left), ansi.StringWidth(notice)
	if lw+nw > w && w-lw < 12 {
		// Too little room to say anything: the notice waits for a
		// wider line (it stays the last notice).
		notice, nw = "", 0
	} else if lw+nw > w {
		notice = ansi.Truncate(notice, max(w-lw, 0), "…")
		nw = ansi.StringWidth(notice)
	}
	right := ""
	if room := w - lw - nw - 2; room > 0 {
		if h := fitHint(a.hint(), room); h != "" {
			right = a.st.Hint.Render(h) + " "
		}
	}
	return spread(left+notice, right, w)
}

// fitHint keeps the items of a key hint ("a: x · b: y") that fit in w
// cells, dropping whole items from the end: a hint is never cut mid-word.
func fitHint(h string, w int) string {
	items := strings.Split(h, " · ")
	for len(items) > 0 && ansi.StringWidth(strings.Join(items, " · ")) > w {
		items = items[:len(items)-1]
	}
	return strings.Join(items, " · ")
}

// gateText counts the waiting gates with the key that opens the dialog
// from the current mode: g while navigating, the prefix then g while
// typing into a pane or scrolling (where g is the pane's or "top").
func (a *App) gateText(n int) string {
	k := "(" + a.gateKey() + ")"
	if n == 1 {
		return "1 gate waiting " + k
	}
	return strconv.Itoa(n) + " gates waiting " + k
}

// gateKey is the key that opens the gate dialog from the current mode.
func (a *App) gateKey() string {
	g := a.keys.Gate.Help().Key
	if a.mode == modeNav && a.overview == nil {
		return g
	}
	return a.keys.Prefix.Help().Key + " " + g
}

// hint names the keys of the current mode.
func (a *App) hint() string {
	prefix := a.keys.Prefix.Help().Key
	if a.overview != nil {
		return a.overviewHint()
	}
	switch a.mode {
	case modeInput:
		return prefix + ": back to navigation"
	case modeScroll:
		return a.scrollHint()
	}
	switch {
	case a.readOnly && a.attached:
		return "?: help · w: overview · d: detach"
	case a.readOnly:
		return "?: help · w: overview"
	case a.attached:
		return "enter: type · ?: help · w: overview · d: detach · q: quit"
	}
	return "enter: type · ?: help · w: overview · q: quit"
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
