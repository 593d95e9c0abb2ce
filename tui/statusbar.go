package tui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// statusBar is the status region, the bottom row, drawn from its state:
// the mode badge, then on the right the keys of the current mode, pinned
// (they lose whole items from their end only when the line cannot hold
// them and the badge, and the first, the way out, stays); a fresh notice
// takes what is left for noticeTime (as tmux's display-message), next to
// the counts when both fit; otherwise the batch counts (or that no worker
// was dispatched yet), the batch kind, its elapsed time, the run's cost
// and the waiting gates, which lose the kind, the time and the cost first,
// then the "phase-5-poll" word, then are cut with "…".
type statusBar struct {
	env     *screenEnv
	badge   string // the mode badge: NAV, INPUT, SCROLL, PREFIX, an overlay's
	hint    string // the keys of the mode, "a: x · b: y", the way out first
	gateKey string // the key that opens the gate dialog; "" while it is open
	notice  string // a notice still in its time, or ""
}

// View draws the status line, exactly the screen's width.
func (b statusBar) View() string {
	a := b.env
	w := a.width
	left := a.memo.render(&a.st.ModeBadge, " "+b.badge+" ") + " "
	if a.readOnly {
		left += a.memo.render(&a.st.Prompt, "read-only") + " "
	}
	lw := a.memo.width(left)
	right := ""
	if room := w - lw - 1; room > 0 {
		// The keys take at most 2/5 of the line (their first item always).
		h := b.hint
		head, _, _ := strings.Cut(h, " · ")
		first := a.memo.width(head)
		if h = a.memo.fitHint(h, min(max(room*2/5, first), room)); h != "" {
			right = a.memo.render(&a.st.Hint, h) + " "
		}
	}
	rest := w - lw - a.memo.width(right) - 1
	sep := a.memo.render(&a.st.Hint, " · ")
	counts, gates := b.countsText(rest)
	var mid string
	if b.notice != "" {
		notice := a.memo.render(&a.st.Notice, b.notice)
		nw := a.memo.width(notice)
		g := strings.TrimPrefix(gates, sep)
		if g != "" {
			g += sep
		}
		switch {
		case counts+gates != "" && a.memo.width(counts+gates)+3+nw <= rest:
			mid = counts + gates + sep + notice
		case a.memo.width(g)+nw <= rest:
			// The gates stay (they say the key) when the notice fits whole
			// beside them; a notice cut would lose its end (a worker's
			// error), and the gates are back when its time is up.
			mid = g + notice
		default:
			mid = ansi.Truncate(notice, max(rest, 0), "…")
		}
	} else {
		mid = counts + gates
		if a.memo.width(mid) > rest {
			// The gates stay whole (they say the key); the counts are cut.
			room := rest - a.memo.width(gates)
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
	return a.memo.spread(left+mid, right, w)
}

// countsText is the batch counts with what fits of the kind, the elapsed
// time and the cost in w cells, and the waiting gates (after a separator).
func (b statusBar) countsText(w int) (counts, gates string) {
	a := b.env
	if !a.haveRun {
		return "", ""
	}
	v := a.run
	sep := a.memo.render(&a.st.Hint, " · ")
	counts = "no workers dispatched yet"
	if len(v.Dispatches) > 0 {
		counts = "phase-5-poll pending=" + strconv.Itoa(v.Batch.Pending) + " done=" + strconv.Itoa(v.Batch.Done)
	}
	if n := len(v.Gates); n > 0 {
		gates = sep + a.memo.render(&a.st.Prompt, gateText(n, b.gateKey))
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
	for len(opt) > 0 && a.memo.width(counts+sep+strings.Join(opt, sep)+gates) > w {
		opt = opt[1:]
	}
	if short, ok := strings.CutPrefix(counts, "phase-5-poll "); ok && len(opt) == 0 && a.memo.width(counts+gates) > w {
		counts = short
	}
	if len(opt) > 0 {
		counts += sep + strings.Join(opt, sep)
	}
	return counts, gates
}
