package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// titleText is the text of a pane's title bar after its glyph, most
// important first so that cutting from the right keeps what matters when
// the pane is narrow: head is the pane's number (its 1–9 focus key), the
// elapsed time and the label; rest is the model (unless the label already
// ends with it, as okstra's execution labels do), the cost, the exit of a
// program without a dispatch and the program's own title, each after " · ".
func (a *App) titleText(pv *paneView) (head, rest string) {
	var b strings.Builder
	if i := slices.Index(a.panes, pv); i >= 0 {
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteByte(' ')
	}
	if d, ok := pv.elapsed(a.now()); ok {
		b.WriteString(formatElapsed(d))
		b.WriteByte(' ')
	}
	label := pv.label()
	b.WriteString(label)
	var info []string
	if m := pv.model; m != "" && !strings.HasSuffix(label, " · "+m) && label != m {
		info = append(info, m)
	}
	if c := a.paneCost(pv); c != "" {
		info = append(info, c)
	}
	if !pv.hasDisp && pv.snap.Exited && pv.log == nil {
		info = append(info, exitText(pv))
	}
	if pv.snap.Title != "" && pv.snap.Title != pv.title {
		info = append(info, pv.snap.Title)
	}
	if len(info) > 0 {
		rest = " · " + strings.Join(info, " · ")
	}
	return b.String(), rest
}

// paneCost is the pane's cost for its title: from the run view's usage of
// its dispatch ("$1.38", "$?" when no price is known for the model), else
// from a PaneCost message; empty when unknown.
func (a *App) paneCost(pv *paneView) string {
	if pv.dispID != "" {
		if u, ok := a.run.Usage[pv.dispID]; ok {
			if !u.Priced {
				return "$?"
			}
			return formatUSD(u.CostUSD)
		}
	}
	if pv.costKnown {
		return formatUSD(pv.cost)
	}
	return ""
}

// formatUSD prints a cost with cents.
func formatUSD(usd float64) string { return fmt.Sprintf("$%.2f", usd) }
