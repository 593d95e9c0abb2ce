package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Status glyphs. They are narrow in every common terminal font and mean the
// same with colour off.
const (
	glyphRunning   = "●"
	glyphDone      = "✓"
	glyphFailed    = "✗"
	glyphTimedOut  = "⧗"
	glyphNotRun    = "○"
	glyphAttention = "⚑"
)

// fitPane refits the pane's content rows to its width when its snapshot or
// its width changed. Rows whose string did not change since the previous
// snapshot keep their fitted form (a snapshot hands out the same string for
// an unchanged row), so a busy pane costs only its changed rows.
func (a *App) fitPane(pv *paneView) {
	w := pv.rect.W
	lines := pv.snap.Lines
	cols := a.paneCols(pv)
	row := func(l string) string {
		if cols == w {
			return fit(l, w)
		}
		return fit(l, cols) + a.unused(w-cols)
	}
	if w != pv.fitW || cols != pv.fitCols || len(pv.fit) != len(lines) {
		pv.fit = make([]string, len(lines))
		pv.fitSrc = make([]string, len(lines))
		pv.fitW, pv.fitCols = w, cols
		for i, l := range lines {
			pv.fit[i], pv.fitSrc[i] = row(l), l
		}
		return
	}
	for i, l := range lines {
		if l != pv.fitSrc[i] {
			pv.fit[i], pv.fitSrc[i] = row(l), l
		}
	}
}

// paneCols is how many of the pane's place the pane's own cells take: all
// of it, unless another screen sized the pane smaller (SizeArbiter), where
// the rest is marked unused (issue 17, finding 14), as tmux marks the
// part of a bigger client that the window does not cover.
func (a *App) paneCols(pv *paneView) int {
	if w := pv.rect.W; a.drawSized || pv.snap.Cols <= 0 || pv.snap.Cols >= w {
		return w
	}
	return pv.snap.Cols
}

// unusedRows reports whether row i of the pane's place is below the pane's
// own rows, on a screen that does not size the panes.
func (a *App) unusedRow(pv *paneView, i int) bool {
	return !a.drawSized && pv.snap.Rows > 0 && i >= pv.snap.Rows
}

// unused is n cells of the unused-area mark (tmux draws dots there).
func (a *App) unused(n int) string {
	return a.st.Hint.Render(strings.Repeat("·", max(n, 0)))
}

// paneRow is content row i of the pane, exactly rect.W cells wide. Rows
// beyond the snapshot (a resize not yet applied) are blank.
func (a *App) paneRow(pv *paneView, i int) string {
	if a.mode == modeScroll && a.scroll.id == pv.id && a.scroll.valid {
		if i < len(a.scroll.lines) {
			return fit(a.decorate(pv, i, a.scroll.lines[i]), pv.rect.W)
		}
		return blank(pv.rect.W)
	}
	if i == pv.rect.Inner().H-1 {
		if l := a.deadLine(pv); l != "" {
			return l
		}
	}
	if i < len(pv.fit) && !a.unusedRow(pv, i) {
		return pv.fit[i]
	}
	if a.unusedRow(pv, i) {
		return a.unused(pv.rect.W)
	}
	return blank(pv.rect.W)
}

// titleBar is the pane's title row: focus marker, status glyph, then what
// matters most first (titleText: the pane's number, elapsed time, label,
// model, cost, ...), filled to the pane's width with a rule (heavy on the
// focused pane, so focus shows without colour).
func (a *App) titleBar(pv *paneView) string {
	w := pv.rect.W
	focused := pv == a.focused()
	base, rule := a.st.Title, "─"
	if focused {
		base, rule = a.st.TitleFocused, "━"
	}
	glyph := a.glyph(pv)
	head, label, cost, rest := a.titleText(pv)
	var tags []string
	if pv.log != nil {
		tags = append(tags, "log")
	}
	if focused && a.zoom {
		tags = append(tags, "zoom")
	}
	if a.mode == modeScroll && a.scroll.id == pv.id {
		// A search's tag (its count) takes the scroll position's place.
		if t := a.searchTag(); t != "" {
			tags = append(tags, t)
		} else {
			tags = append(tags, a.scrollTag(pv))
		}
	}
	if focused && a.mode == modeInput {
		tags = append(tags, "input")
	}

	// Plain text first, so it can be cut to the width before styling.
	tag := ""
	if len(tags) > 0 {
		tag = " [" + strings.Join(tags, "] [") + "]"
	}
	// rule, space, glyph(s), space, label, rest, tag, space, rule...
	fixed := 2 + ansi.StringWidth(glyph.plain) + 1
	avail := w - fixed - 1
	if avail <= 0 {
		return base.Render(fit(rule+" "+glyph.plain, w))
	}
	text := head + label + cost + rest + tag
	if W := ansi.StringWidth; W(text) > avail {
		base := head + label + cost
		if room := avail - W(base) - W(tag); room >= 0 {
			// The rest (model, exit, program title) is cut first.
			r := ""
			switch {
			case room >= 6:
				r = cutRight(rest, room)
			case room >= 2:
				r = " …"
			}
			text = base + r + tag
		} else {
			// Then the label, keeping the number, time and cost, and the
			// tag (it says what mode the pane is in) unless that leaves
			// too little of the label.
			room := avail - W(head) - W(cost) - W(tag)
			if room < min(W(label), 12) {
				tag, room = "", avail-W(head)-W(cost)
			}
			if room < min(W(label), 2) {
				cost, room = "", avail-W(head)
			}
			text = cutRight(head+cutRight(label, max(room, 1))+cost+tag, avail)
		}
		text = ansi.Truncate(text, avail, "…")
	}
	// Styling costs more than everything above; a title whose text did not
	// change (most of them, most frames) is not styled again.
	key := text + "\x00" + glyph.plain + "\x00" + strconv.Itoa(w)
	if focused {
		key += "\x00f"
	}
	if key == pv.titleKey {
		return pv.titleStr
	}
	fill := w - fixed - ansi.StringWidth(text) - 1
	var b strings.Builder
	b.WriteString(base.Render(rule + " "))
	b.WriteString(glyph.styled)
	b.WriteString(base.Render(" " + text + " " + strings.Repeat(rule, max(fill, 0))))
	pv.titleKey, pv.titleStr = key, b.String()
	return pv.titleStr
}

// styledGlyph is a glyph with and without its style.
type styledGlyph struct{ plain, styled string }

// glyph is the pane's status glyph, followed by the attention flag when a
// bell or notification is unseen.
func (a *App) glyph(pv *paneView) styledGlyph {
	g := a.glyphs[pv.state()]
	if pv.attention {
		g.plain += glyphAttention
		g.styled += a.attn
	}
	return g
}

// styleGlyphs renders every glyph once.
func styleGlyphs(st Styles) (glyphs [stateNotRun + 1]styledGlyph, attn string) {
	for s, gs := range map[paneState]struct {
		g     string
		style lipgloss.Style
	}{
		stateRunning:  {glyphRunning, st.Running},
		stateDone:     {glyphDone, st.Done},
		stateFailed:   {glyphFailed, st.Failed},
		stateTimedOut: {glyphTimedOut, st.TimedOut},
		stateNotRun:   {glyphNotRun, st.NotRun},
	} {
		glyphs[s] = styledGlyph{gs.g, gs.style.Render(gs.g)}
	}
	return glyphs, st.Attention.Render(glyphAttention)
}

// exitText says how a pane's program ended.
func exitText(pv *paneView) string {
	if pv.snap.Status.Signaled() {
		return "signal: " + pv.snap.Status.Signal.String()
	}
	return "exit " + strconv.Itoa(pv.snap.Status.Code)
}

// formatElapsed prints a duration the way a status bar does: 42s, 3m07s,
// 1h02m.
func formatElapsed(d time.Duration) string {
	s := int(d / time.Second)
	switch {
	case s < 60:
		return strconv.Itoa(s) + "s"
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		return fmt.Sprintf("%dh%02dm", s/3600, (s%3600)/60)
	}
}

// cutRight cuts s to w cells from the right, ending in "…", without
// leaving a dangling separator (" · …") before it.
func cutRight(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	t := ansi.Truncate(s, w, "…")
	body := strings.TrimSuffix(t, "…")
	trimmed := strings.TrimRight(strings.TrimSuffix(strings.TrimRight(body, " "), "·"), " ")
	if trimmed != body && trimmed != "" {
		return trimmed + "…"
	}
	return t
}
