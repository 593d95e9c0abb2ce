package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// titleText is the text of a pane's title bar after its glyph, most
// important first so that cutting keeps what matters when the pane is
// narrow: head is the pane's number (its 1–9 focus key) and the elapsed
// time; label the label; cost " · $1.38" (kept when the label is cut: it
// matters more than the provider's name, issue 17 finding 13); rest the
// model (unless the label already ends with it, as okstra's execution
// labels do), the exit of a program without a dispatch and the program's
// own title, each after " · ", cut first.
func (a *App) titleText(pv *paneView) (head, label, cost, rest string) {
	var b strings.Builder
	if i := slices.Index(a.panes, pv); i >= 0 {
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteByte(' ')
	}
	if d, ok := pv.elapsed(a.now()); ok {
		b.WriteString(formatElapsed(d))
		b.WriteByte(' ')
	}
	label = pv.label()
	var info []string
	if c := a.paneCost(pv); c != "" {
		cost = " · " + c
	}
	if m := pv.model; m != "" && !strings.HasSuffix(label, " · "+m) && label != m {
		info = append(info, m)
	}
	if !pv.hasDisp && pv.snap.Exited && pv.log == nil {
		info = append(info, exitText(pv))
	}
	if pv.hasDisp && pv.state() == stateFailed && pv.reason != "" {
		// The worker's own last error line (issue 17, finding 6).
		info = append(info, pv.reason)
	}
	if pv.snap.Title != "" && pv.snap.Title != pv.title {
		info = append(info, pv.snap.Title)
	}
	if len(info) > 0 {
		rest = " · " + strings.Join(info, " · ")
	}
	return b.String(), label, cost, rest
}

// paneCost is the pane's cost for its title: from the run view's usage of
// its dispatch ("$1.38", "$1.38 cli" when it is the CLI's own figure,
// "$?" when no price is known for the model), else from a PaneCost
// message; empty when unknown.
func (a *App) paneCost(pv *paneView) string {
	if pv.dispID != "" {
		if u, ok := a.run.Usage[pv.dispID]; ok {
			return usageCost(u, ok, "$?")
		}
	}
	if pv.costKnown {
		return formatUSD(pv.cost)
	}
	return ""
}

// formatUSD prints a cost with cents.
func formatUSD(usd float64) string { return fmt.Sprintf("$%.2f", usd) }
