package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// overviewOverlay is the run overview (w, prefix w), drawn over the panes
// and the timeline: every dispatch of the run, finished and reclaimed ones
// included, grouped by batch. From it enter focuses a dispatch's live pane
// or opens its log as a read-only pane (logpane.go), and r shows its result
// file rendered as markdown (result.go).
type overviewOverlay struct {
	env *screenEnv
	sel string // the selected dispatch's id
	top int    // the first list row shown
	// rowAt maps the screen rows of the last drawing to the dispatch
	// drawn there (an index into the run's dispatches), for the mouse.
	rowAt map[int]int
}

// newOverview opens on dispatch sel (the run's last one when empty).
func newOverview(env *screenEnv, sel string) *overviewOverlay {
	ov := &overviewOverlay{env: env, sel: sel}
	if n := len(env.run.Dispatches); sel == "" && n > 0 {
		ov.sel = env.run.Dispatches[n-1].DispatchID
	}
	return ov
}

// selIndex is the selected dispatch's index in the run's dispatches (the
// last one when the selection is gone), -1 without dispatches.
func (ov *overviewOverlay) selIndex() int {
	ds := ov.env.run.Dispatches
	for i := range ds {
		if ds[i].DispatchID == ov.sel {
			return i
		}
	}
	return len(ds) - 1
}

func (ov *overviewOverlay) Hint() string {
	return "enter: open · r: result · esc: close · ↑↓: choose"
}
func (ov *overviewOverlay) Badge() string { return "OVERVIEW" }

// HandleMsg takes the overview's keys and the mouse.
func (ov *overviewOverlay) HandleMsg(msg tea.Msg) action {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return ov.onKey(msg)
	case tea.MouseMsg:
		return ov.onMouse(msg)
	}
	return nil
}

func (ov *overviewOverlay) onKey(msg tea.KeyPressMsg) action {
	k := ov.env.keys.Overview
	ds := ov.env.run.Dispatches
	i := ov.selIndex()
	move := func(to int) {
		if len(ds) > 0 {
			ov.sel = ds[min(max(to, 0), len(ds)-1)].DispatchID
		}
	}
	switch {
	case key.Matches(msg, k.Close):
		return actClose{}
	case key.Matches(msg, ov.env.keys.Nav.Help):
		return actPush{newHelp(ov.env)}
	case key.Matches(msg, k.Up):
		move(i - 1)
	case key.Matches(msg, k.Down):
		move(i + 1)
	case key.Matches(msg, k.PageUp):
		move(i - ov.page())
	case key.Matches(msg, k.PageDown):
		move(i + ov.page())
	case key.Matches(msg, k.First):
		move(0)
	case key.Matches(msg, k.Last):
		move(len(ds) - 1)
	case key.Matches(msg, k.Open):
		if i >= 0 {
			return actOpenDispatch{i}
		}
	case key.Matches(msg, k.Result):
		if i >= 0 {
			return ov.openResult(i)
		}
	}
	return nil
}

// page is how many list rows the overview shows at once.
func (ov *overviewOverlay) page() int {
	top, bottom := ov.env.overlayRows()
	return max(bottom-top-2, 1)
}

// onMouse: the wheel moves the selection, a click selects a dispatch, a
// click on the selected one opens it.
func (ov *overviewOverlay) onMouse(msg tea.MouseMsg) action {
	m := msg.Mouse()
	ds := ov.env.run.Dispatches
	switch msg.(type) {
	case tea.MouseWheelMsg:
		d := 0
		switch m.Button {
		case tea.MouseWheelUp:
			d = -1
		case tea.MouseWheelDown:
			d = 1
		}
		if i := ov.selIndex() + d; d != 0 && i >= 0 && i < len(ds) {
			ov.sel = ds[i].DispatchID
		}
	case tea.MouseClickMsg:
		i, ok := ov.rowAt[m.Y]
		if !ok || i >= len(ds) {
			return nil
		}
		if ds[i].DispatchID == ov.sel {
			return actOpenDispatch{i}
		}
		ov.sel = ds[i].DispatchID
	}
	return nil
}

// livePane is the open pane running dispatch i now (not a log), or nil.
func (a *App) livePane(i int) *paneView {
	d := a.run.Dispatches[i]
	pv := a.byID[d.PaneID]
	if pv == nil || pv.log != nil || pv.dispID != d.DispatchID {
		return nil
	}
	return pv
}

// logPaneOf is the open log pane of dispatch i, or nil.
func (a *App) logPaneOf(i int) *paneView {
	id := a.run.Dispatches[i].DispatchID
	for _, pv := range a.panes {
		if pv.log != nil && pv.dispatchID == id {
			return pv
		}
	}
	return nil
}

// paneNumberOf is the number of the pane showing dispatch id (live, else
// its log), 0 when none: screenEnv.paneNumber.
func (a *App) paneNumberOf(id string) int {
	for i := range a.run.Dispatches {
		if a.run.Dispatches[i].DispatchID != id {
			continue
		}
		pv := a.livePane(i)
		if pv == nil {
			pv = a.logPaneOf(i)
		}
		if pv != nil {
			return indexOf(a.panes, pv) + 1
		}
	}
	return 0
}

// openDispatch leaves the overview for dispatch i: its live pane gets the
// focus, or its log opens as a read-only pane (focused).
func (a *App) openDispatch(i int) tea.Cmd {
	pv := a.livePane(i)
	if pv == nil {
		pv = a.logPaneOf(i)
	}
	if pv == nil {
		var err error
		if pv, err = a.openLogPane(a.run.Dispatches[i]); err != nil {
			a.notice = err.Error()
			return nil
		}
	}
	a.remove(overlayOf[*overviewOverlay](a))
	if a.mode == modeScroll {
		a.leaveScroll()
	}
	a.setFocus(indexOf(a.panes, pv))
	if a.zoom || a.geo.tabs {
		a.relayout()
	}
	return nil
}

func indexOf(pvs []*paneView, pv *paneView) int {
	for i, p := range pvs {
		if p == pv {
			return i
		}
	}
	return -1
}

// overlayRows is the rows the overview covers: between the header and the
// status line (the pane area and the timeline).
func (e *screenEnv) overlayRows() (top, bottom int) {
	return e.areaTop, max(e.areaBottom, e.areaTop)
}

// statusState is the glyph state of a dispatch status (stateRunning for
// one that has not settled).
func statusState(st state.Status) paneState {
	switch st {
	case state.StatusCompleted:
		return stateDone
	case state.StatusError:
		return stateFailed
	case state.StatusTimeout:
		return stateTimedOut
	case state.StatusNotRun:
		return stateNotRun
	}
	return stateRunning
}

// overviewRow is one dispatch's cells in the overview.
type overviewRow struct {
	i                                   int // index into the run's dispatches
	glyph                               styledGlyph
	pane, label, model, elapsed, reason string
	tokens, cost                        string
}

// dispatchRow builds the cells of dispatch i.
func (e *screenEnv) dispatchRow(i int) overviewRow {
	d := e.run.Dispatches[i]
	r := overviewRow{i: i, glyph: e.glyphs[statusState(d.Status)], pane: "·", model: d.Model}
	if e.paneNumber != nil {
		if n := e.paneNumber(d.DispatchID); n > 0 {
			r.pane = strconv.Itoa(n)
		}
	}
	r.label = d.ExecutionLabel
	if r.label == "" {
		r.label = d.DispatchID
	}
	if d.Model != "" {
		r.label = strings.TrimSuffix(r.label, " · "+d.Model)
	}
	if r.model == "" {
		r.model = "—"
	}
	r.elapsed = "—"
	if t := parseTime(d.DispatchedAt); !t.IsZero() && d.Status != state.StatusNotRun {
		end := e.now()
		if s := parseTime(d.SettledAt); !s.IsZero() {
			end = s
		}
		r.elapsed = formatElapsed(max(end.Sub(t), 0))
	}
	r.reason = exitCell(d)
	u, ok := e.run.Usage[d.DispatchID]
	r.tokens, r.cost = usageTokens(u, ok), usageCost(u, ok, "?")
	return r
}

// exitCell says how a dispatch ended in the overview's narrow column: the
// worker's own last error line first (issue 17, finding 6: the reason the
// wrapper records is the CLI's last error line), after the exit code; the
// glyph before it already says failed, timed out or not run.
func exitCell(d state.Dispatch) string {
	if d.Reason == "" || d.Status == state.StatusCompleted || !d.Terminal() {
		return exitReason(d)
	}
	s := d.Reason
	if d.ExitCode != nil && *d.ExitCode != 0 {
		code := strconv.Itoa(*d.ExitCode)
		if s == "exit status "+code {
			return "exit " + code // the wrapper said no more than that
		}
		s = "exit " + code + ": " + s
	}
	return s
}

// exitReason says how a dispatch ended: its status, exit code and reason.
func exitReason(d state.Dispatch) string {
	s := string(d.Status)
	if s == "" {
		s = "dispatched"
	}
	if d.ExitCode != nil && *d.ExitCode != 0 {
		s += " (exit " + strconv.Itoa(*d.ExitCode) + ")"
	}
	if d.Reason != "" {
		s += ": " + d.Reason
	}
	return s
}

// batchLine is a batch's heading: kind, dispatch time, how its dispatches
// stand and how long it ran.
func (e *screenEnv) batchLine(n int, b batch) string {
	ds := e.run.Dispatches
	var done, failed, running int
	for _, i := range b.dispatches {
		switch statusState(ds[i].Status) {
		case stateRunning:
			running++
		case stateDone:
			done++
		default:
			failed++
		}
	}
	kind := string(b.kind)
	if kind == "" {
		kind = "batch"
	}
	parts := []string{"batch " + strconv.Itoa(n) + " · " + kind}
	if t := parseTime(b.at); !t.IsZero() {
		parts = append(parts, "dispatched "+t.Format("15:04:05"))
	}
	var counts []string
	if running > 0 {
		counts = append(counts, strconv.Itoa(running)+" running")
	}
	if done > 0 {
		counts = append(counts, strconv.Itoa(done)+" done")
	}
	if failed > 0 {
		counts = append(counts, strconv.Itoa(failed)+" failed")
	}
	parts = append(parts, strings.Join(counts, ", "))
	if d, settled, ok := b.span(ds, e.now()); ok {
		if settled {
			parts = append(parts, "settled after "+formatElapsed(d))
		} else {
			parts = append(parts, formatElapsed(d))
		}
	}
	return strings.Join(parts, " · ")
}

// overviewCols are the widths of the overview's columns; 0 hides one.
type overviewCols struct{ label, model, elapsed, reason, tokens, cost int }

// layoutCols fits the columns to w cells: the label, elapsed time, cost
// and exit reason always show; the tokens go first, then the model, when
// the line is short; the reason takes what is left.
func layoutCols(rows []overviewRow, w int) overviewCols {
	c := overviewCols{label: len("label"), model: len("model"), elapsed: len("elapsed"), reason: len("exit"), tokens: len("tokens in/cached/out"), cost: len("cost")}
	for _, r := range rows {
		c.label = max(c.label, ansi.StringWidth(r.label))
		c.model = max(c.model, ansi.StringWidth(r.model))
		c.elapsed = max(c.elapsed, len(r.elapsed))
		c.reason = max(c.reason, ansi.StringWidth(r.reason))
		c.tokens = max(c.tokens, len(r.tokens))
		c.cost = max(c.cost, len(r.cost))
	}
	c.label, c.model = min(c.label, 32), min(c.model, 20)
	const lead = 2 + 2 + 3 // marker, glyph, pane number
	// Each shown column takes its width and a two-cell gap.
	used := func() int {
		n := lead + c.label + 2 + c.elapsed + 2 + c.cost + 2 + min(c.reason, 16)
		if c.model > 0 {
			n += c.model + 2
		}
		if c.tokens > 0 {
			n += c.tokens + 2
		}
		return n
	}
	if used() > w {
		c.tokens = 0
	}
	if used() > w {
		c.model = 0
	}
	for used() > w && c.label > 12 {
		c.label--
	}
	c.reason = max(min(w-used()+min(c.reason, 16), c.reason), 4)
	return c
}

// ovCell is s cut (with "…") or padded to w cells; right aligns it right.
func ovCell(s string, w int, right bool) string {
	s = cutRight(s, w)
	if right {
		return blank(w-ansi.StringWidth(s)) + s
	}
	return s + blank(w-ansi.StringWidth(s))
}

// Draw draws the overview over the rows between the header and the status
// line.
func (ov *overviewOverlay) Draw(rows []string) {
	a := ov.env
	top, bottom := a.overlayRows()
	w := a.width
	if bottom <= top || w <= 0 {
		return
	}
	ds := a.run.Dispatches
	bs := batches(ds)
	title := "━ run overview"
	switch {
	case !a.haveRun:
		title += " · waiting for the run"
	case len(ds) == 0:
		title += " · no workers dispatched yet"
	default:
		title += fmt.Sprintf(" · %d dispatches in %d batches", len(ds), len(bs))
		if len(bs) == 1 {
			title = strings.TrimSuffix(title, "es") // "in 1 batch"
		}
		if len(ds) == 1 {
			title = strings.Replace(title, "1 dispatches", "1 dispatch", 1)
		}
		if c := a.totalCost(); c != "" {
			title += " · " + c
		}
	}
	rows[top] = a.overlayTitle(title, ov.Hint())
	for y := top + 1; y < bottom; y++ {
		rows[y] = blank(w)
	}
	ov.rowAt = map[int]int{}
	if len(ds) == 0 {
		if top+2 < bottom {
			rows[top+2] = fit(a.st.Empty.Render("  the lead has not dispatched any worker yet"), w)
		}
		return
	}
	all := make([]overviewRow, len(ds))
	for i := range ds {
		all[i] = a.dispatchRow(i)
	}
	cols := layoutCols(all, w)
	gap := "  "
	header := "       " + ovCell("label", cols.label, false)
	if cols.model > 0 {
		header += gap + ovCell("model", cols.model, false)
	}
	header += gap + ovCell("elapsed", cols.elapsed, true) + gap + ovCell("exit", cols.reason, false)
	if cols.tokens > 0 {
		header += gap + ovCell("tokens in/cached/out", cols.tokens, true)
	}
	header += gap + ovCell("cost", cols.cost, true)
	if top+1 < bottom {
		rows[top+1] = fit(a.st.Hint.Render(cutRight(header, w)), w)
	}
	// The list: a heading per batch, then its dispatches.
	type line struct {
		text string
		disp int // -1 for a heading
	}
	sel := ov.selIndex()
	var list []line
	selRow := 0
	for n, b := range bs {
		list = append(list, line{a.st.HelpTitle.Render(cutRight(a.batchLine(n+1, b), w)), -1})
		for _, i := range b.dispatches {
			r := all[i]
			marker := "  "
			if i == sel {
				marker = "› "
				selRow = len(list)
			}
			text := ovCell(r.label, cols.label, false)
			if cols.model > 0 {
				text += gap + ovCell(r.model, cols.model, false)
			}
			text += gap + ovCell(r.elapsed, cols.elapsed, true) + gap + ovCell(r.reason, cols.reason, false)
			if cols.tokens > 0 {
				text += gap + ovCell(r.tokens, cols.tokens, true)
			}
			text += gap + ovCell(r.cost, cols.cost, true)
			num := ovCell(r.pane, 2, true) + " "
			var s string
			if i == sel {
				s = a.st.TabFocused.Render(marker) + r.glyph.styled + " " + a.st.TabFocused.Render(num+text)
			} else {
				s = marker + r.glyph.styled + " " + num + text
			}
			list = append(list, line{s, i})
		}
	}
	// Scroll so the selection shows, with its batch heading when it fits.
	page := max(bottom-top-2, 1)
	if selRow < ov.top+1 {
		ov.top = max(selRow-1, 0)
	}
	if selRow >= ov.top+page {
		ov.top = selRow - page + 1
	}
	ov.top = min(ov.top, max(len(list)-page, 0))
	for k := 0; k < page && ov.top+k < len(list); k++ {
		l := list[ov.top+k]
		y := top + 2 + k
		text := l.text
		if ansi.StringWidth(text) > w {
			// Narrower than the narrowest columns: cut, ending with "…".
			text = ansi.Truncate(text, w, "…") + "\x1b[m"
		}
		rows[y] = fit(text, w)
		if l.disp >= 0 {
			ov.rowAt[y] = l.disp
		}
	}
}

// overlayTitle is the title bar of the overview and the result view: the
// title on the left, the keys on the right (whole items, as many as fit).
func (a *screenEnv) overlayTitle(title, keys string) string {
	w := a.width
	title = cutRight(title, max(w-1, 1)) + " "
	tw := ansi.StringWidth(title)
	right := ""
	if room := w - tw - 4; room > 0 {
		if k := fitHint(keys, room); k != "" && !strings.HasSuffix(k, "…") {
			right = " " + k + " ━"
		}
	}
	fill := strings.Repeat("━", max(w-tw-ansi.StringWidth(right), 0))
	return a.st.TitleFocused.Render(title+fill) + a.st.Hint.Render(right)
}

// dispatchLabel names dispatch d in notices.
func dispatchLabel(d state.Dispatch) string {
	if d.ExecutionLabel != "" {
		return d.ExecutionLabel
	}
	return d.DispatchID
}

// usageCost is a dispatch's cost: "—" without usage, unknown when it used
// tokens at no known price ("?" in the overview, "$?" in a title), with
// " cli" after it when the figure is the CLI's own (claude's
// total_cost_usd; DECISIONS 44), not the catalog's price of its tokens.
func usageCost(u view.Usage, ok bool, unknown string) string {
	switch {
	case !ok:
		return "—"
	case !u.Priced:
		return unknown
	case u.CLICost():
		return formatUSD(u.CostUSD) + " " + cliMark
	}
	return formatUSD(u.CostUSD)
}

// cliMark follows a cost the CLI reported itself.
const cliMark = "cli"

// usageTokens is a dispatch's tokens for the overview, input/cached/output
// ("12.3k/40k/1.2k"), "—" without usage.
func usageTokens(u view.Usage, ok bool) string {
	if !ok {
		return "—"
	}
	return formatCount(u.Input) + "/" + formatCount(u.Cached) + "/" + formatCount(u.Output)
}

// formatCount prints a token count short: 950, 12.3k, 4.1M.
func formatCount(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 10_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
	case n < 1_000_000:
		return strconv.FormatInt((n+500)/1000, 10) + "k"
	case n < 10_000_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
	}
	return strconv.FormatInt((n+500_000)/1_000_000, 10) + "M"
}
