package tui

import (
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"
)

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

// statusLine is the status line as this screen draws it now: the
// question or prompt of the overlay on top, else the status bar.
func (a *App) statusLine() string {
	if t, ok := a.top().(statusTaker); ok {
		if l := t.StatusLine(a.width); l != "" {
			return l
		}
	}
	return a.statusBar().View()
}

// statusBar is the status region's state as of now: what the root knows
// (the mode, the prefix, the overlay on top, the notice and its time).
func (a *App) statusBar() statusBar {
	b := statusBar{env: &a.screenEnv, badge: a.mode.String(), hint: a.hint(), gateKey: a.gateKey()}
	if h, ok := a.top().(hinter); ok {
		b.badge = h.Badge()
	}
	if a.prefixed {
		b.badge = "PREFIX"
	}
	if a.zoom {
		b.badge += " ZOOM"
	}
	if overlayOf[*gateDialog](a) != nil {
		b.gateKey = "" // the dialog is open
	}
	if a.noticeFresh() {
		b.notice = a.notice
	}
	return b
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
func gateText(n int, key string) string {
	k := ""
	if key != "" {
		k = "(" + key + ")"
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
	// On a scripted lead (the demo's) there is nothing to type: the way
	// to the workers instead (finding 4: the keys said are true).
	enter := "enter: type"
	if pv := a.focused(); pv != nil && pv.lead && a.scriptedLead {
		enter = "tab: next pane"
	}
	switch {
	case a.readOnly && a.attached:
		return "?: help · w: overview · d: detach"
	case a.readOnly:
		return "?: help · w: overview"
	case a.attached:
		return "?: help · " + enter + " · w: overview · d: detach · q: detach or end"
	}
	return "?: help · " + enter + " · w: overview · q: quit"
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
