package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/panes/layout"
)

// geometry is where each part of the screen goes, rebuilt by relayout
// (layout.ScreenFor, the engine's own computation).
type geometry struct {
	header   int  // row of the header; -1 when the terminal is too short
	status   int  // row of the status line; -1 when too short
	area     rect // the pane area
	timeline rect // empty when hidden
	tabs     bool // tiny terminal: one pane and a tab strip
	tabRow   rect
}

// relayout places the header, the panes, the timeline and the status line
// for the current size, panes, focus and zoom, and arranges for every shown
// pane whose content size changed to be resized (see resizePanes). Hidden
// panes keep their size, as tmux leaves panes alone while another is
// zoomed.
func (a *App) relayout() {
	scr := layout.ScreenFor(a.width, a.height, a.showTimeline, layout.In{
		N:     len(a.panes),
		Lead:  len(a.panes) > 0 && a.panes[0].lead,
		Focus: a.focus,
		Zoom:  a.zoom,
	})
	a.geo = geometry{header: scr.Header, status: scr.Status, area: scr.Area, timeline: scr.Timeline, tabs: scr.Panes.Tabs, tabRow: scr.Panes.TabRow}
	// What the overlays cover: between the header and the status line.
	a.areaTop, a.areaBottom, a.statusRow = 0, a.height, scr.Status
	if scr.Header >= 0 {
		a.areaTop = scr.Header + 1
	}
	if scr.Status >= 0 {
		a.areaBottom = scr.Status
	}
	for i, pv := range a.panes {
		pv.rect = rect{}
		if i < len(scr.Panes.Rects) {
			pv.rect = scr.Panes.Rects[i]
		}
	}
	a.layoutGen++
	if a.resizeDelay <= 0 {
		a.resizePanes()
	}
}

// resizeMsg says the layout may have settled: no relayout happened since
// the one numbered gen.
type resizeMsg struct{ gen int }

// resizePanes queues a resize for every shown pane whose content size is
// not the one last asked of it. A screen that is not the latest of several
// (SizeArbiter) leaves the panes at the size they have.
func (a *App) resizePanes() {
	if !a.sizesPanes() {
		return
	}
	for _, pv := range a.panes {
		in := pv.rect.Inner()
		if in.W <= 0 || in.H <= 0 || (in.W == pv.sizedCols && in.H == pv.sizedRows) {
			continue
		}
		pv.sizedCols, pv.sizedRows = in.W, in.H
		a.queue(paneOp{kind: opResize, id: pv.id, cols: in.W, rows: in.H})
	}
}

// cmdResizeLater debounces resizes: they are sent once the layout has not
// changed for resizeDelay. Resizing is not free for a pane (the emulator
// reflows its history, the program redraws), and layouts come in bursts:
// the engine announces a batch of panes one by one, a terminal window
// being dragged sends a size per step.
func (a *App) cmdResizeLater() tea.Cmd {
	if a.resizeDelay <= 0 || a.resizeArmed == a.layoutGen || !a.resizeNeeded() {
		return nil
	}
	a.resizeArmed = a.layoutGen
	gen := a.layoutGen
	return tea.Tick(a.resizeDelay, func(time.Time) tea.Msg { return resizeMsg{gen: gen} })
}

// onResizeTimer resizes the panes if the layout stayed as it was when the
// timer was armed; otherwise a newer timer is (or will be) running.
func (a *App) onResizeTimer(m resizeMsg) {
	if m.gen == a.layoutGen {
		a.resizePanes()
	}
}

// resizeNeeded reports whether a shown pane's size is not the one asked.
func (a *App) resizeNeeded() bool {
	if !a.sizesPanes() {
		return false
	}
	for _, pv := range a.panes {
		in := pv.rect.Inner()
		if in.W > 0 && in.H > 0 && (in.W != pv.sizedCols || in.H != pv.sizedRows) {
			return true
		}
	}
	return false
}

// render draws the whole screen, row by row, and places the cursor.
func (a *App) render() (string, *tea.Cursor) {
	if a.width <= 0 || a.height <= 0 {
		return "", nil
	}
	rows := make([]string, a.height)
	a.drawSized = a.sizesPanes()
	g := a.geo
	if g.header >= 0 {
		rows[g.header] = a.headerLine()
	}
	a.renderPanes(rows)
	if !g.timeline.Empty() {
		a.renderTimeline(rows, g.timeline)
	}
	if g.status >= 0 {
		rows[g.status] = a.statusLine()
	}
	for i, r := range rows {
		if r == "" {
			rows[i] = blank(a.width)
		}
	}
	for _, o := range a.overlays {
		o.Draw(rows)
	}
	return strings.Join(rows, "\n"), a.paneCursor()
}

// onlyPane is the pane of shown that spans row y of the pane area from
// edge to edge, alone, or nil.
func (a *App) onlyPane(shown []*paneView, y int) *paneView {
	g := a.geo
	var only *paneView
	for _, pv := range shown {
		r := pv.rect
		if y < r.Y || y >= r.Y+r.H {
			continue
		}
		if only != nil || r.X != g.area.X || r.W != g.area.W {
			return nil
		}
		only = pv
	}
	return only
}

// renderPanes draws the pane area: each row is the panes crossing it, left
// to right, with a separator column between neighbours.
func (a *App) renderPanes(rows []string) {
	g := a.geo
	if g.area.Empty() {
		return
	}
	if len(a.panes) == 0 {
		msg := a.st.Empty.Render("no panes yet — the lead's and workers' panes appear here")
		rows[g.area.Y+g.area.H/2] = center(msg, g.area.W)
		return
	}
	if g.tabs {
		rows[g.tabRow.Y] = a.tabStrip(g.tabRow.W)
	}
	shown := make([]*paneView, 0, len(a.panes))
	for _, pv := range a.panes {
		if !pv.rect.Empty() {
			a.fitPane(pv)
			shown = append(shown, pv)
		}
	}
	sep := a.memo.render(&a.st.Separator, "│")
	var b strings.Builder
	for y := g.area.Y; y < g.area.Y+g.area.H; y++ {
		if g.tabs && y == g.tabRow.Y {
			continue
		}
		if pv := a.onlyPane(shown, y); pv != nil {
			// One pane across the whole row (a zoomed or single pane):
			// its row as it is, not copied.
			if y == pv.rect.Y {
				rows[y] = a.titleBar(pv)
			} else {
				rows[y] = a.paneRow(pv, y-pv.rect.Y-1)
			}
			continue
		}
		b.Reset()
		x := g.area.X
		// shown is in layout order, which for every row is left to right.
		for _, pv := range shown {
			r := pv.rect
			if y < r.Y || y >= r.Y+r.H {
				continue
			}
			for ; x < r.X; x++ {
				b.WriteString(sep)
			}
			if y == r.Y {
				b.WriteString(a.titleBar(pv))
			} else {
				b.WriteString(a.paneRow(pv, y-r.Y-1))
			}
			x = r.X + r.W
		}
		for ; x < g.area.X+g.area.W; x++ {
			b.WriteByte(' ')
		}
		rows[y] = b.String()
	}
}

// paneCursor is the focused pane's cursor while the human types into it.
func (a *App) paneCursor() *tea.Cursor {
	pv := a.focused()
	if a.mode != modeInput || pv == nil || pv.rect.Empty() || !pv.hasSnap || a.top() != nil {
		return nil
	}
	c := pv.snap.Cursor
	in := pv.rect.Inner()
	if !c.Visible || c.X < 0 || c.Y < 0 || c.X >= in.W || c.Y >= in.H {
		return nil
	}
	return tea.NewCursor(in.X+c.X, in.Y+c.Y)
}

// blank is n spaces.
func blank(n int) string { return strings.Repeat(" ", max(n, 0)) }

// fit makes s exactly w cells wide: cut (closing any open style) or padded
// with spaces.
func fit(s string, w int) string {
	sw := ansi.StringWidth(s)
	switch {
	case sw == w:
		return s
	case sw < w:
		return s + blank(w-sw)
	}
	t := ansi.Truncate(s, w, "")
	if strings.IndexByte(t, '\x1b') >= 0 {
		t += "\x1b[m"
	}
	// A wide character at the cut leaves one cell short.
	return t + blank(w-ansi.StringWidth(t))
}

// center places s in the middle of w cells.
func center(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw >= w {
		return fit(s, w)
	}
	left := (w - sw) / 2
	return blank(left) + s + blank(w-sw-left)
}

// drawBox draws box (rows of equal width) centred over rows, keeping what
// lies left and right of it.
func drawBox(rows []string, width int, box []string) {
	if len(box) == 0 {
		return
	}
	bw := ansi.StringWidth(box[0])
	if bw > width || len(box) > len(rows) {
		for i := range box {
			box[i] = fit(box[i], width)
		}
		bw = width
	}
	x := (width - bw) / 2
	y := max((len(rows)-len(box))/2, 0)
	for i, line := range box {
		if y+i >= len(rows) {
			break
		}
		base := rows[y+i]
		left := ansi.Truncate(base, x, "")
		right := ansi.TruncateLeft(base, x+bw, "")
		rows[y+i] = left + "\x1b[m" + line + "\x1b[m" + right
	}
}
