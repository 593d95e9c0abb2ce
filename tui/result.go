package tui

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
)

// maxResult bounds the result file read for the result view.
const maxResult = 4 << 20

// resultView is a worker's result file rendered as markdown (glamour) in
// a scrollable view over the overview (r in the overview).
type resultView struct {
	dispID, label, rel string
	path               string // absolute, "" when it could not be resolved
	resErr             error

	md      string // the file, once read
	loaded  bool
	problem string // why there is nothing to render ("no result yet: ...")
	width   int    // the width lines were rendered for (0: not yet)
	busy    bool   // a render is running
	lines   []string
	top     int
}

// resultMsg carries a rendered result.
type resultMsg struct {
	dispID  string
	width   int
	md      string
	problem string
	lines   []string
}

// openResult opens the result view of dispatch i.
func (a *App) openResult(i int) tea.Cmd {
	d := a.run.Dispatches[i]
	rel := d.ResultPath
	if rel == "" {
		a.notice = dispatchLabel(d) + ": no result file recorded"
		return nil
	}
	rv := &resultView{dispID: d.DispatchID, label: dispatchLabel(d), rel: rel}
	rv.path, rv.resErr = a.resolve(rel)
	a.overview.result = rv
	return a.cmdRenderResult()
}

// resultWidth is the width results are rendered at: the screen less a
// margin, at most 120 columns so prose stays readable.
func (a *App) resultWidth() int { return min(max(a.width-2, 20), 120) }

// resultPage is how many rows of the result show at once.
func (a *App) resultPage() int {
	top, bottom := a.overlayRows()
	return max(bottom-top-1, 1)
}

// cmdRenderResult reads (once) and renders the open result at the
// screen's width, when it has not been rendered for it yet.
func (a *App) cmdRenderResult() tea.Cmd {
	if a.overview == nil || a.overview.result == nil {
		return nil
	}
	rv := a.overview.result
	w := a.resultWidth()
	if rv.busy || rv.width == w {
		return nil
	}
	rv.busy = true
	id, path, rel, resErr, md, loaded := rv.dispID, rv.path, rv.rel, rv.resErr, rv.md, rv.loaded
	problem := rv.problem
	style := styles.DarkStyle
	if a.st.NoColor {
		style = styles.NoTTYStyle
	}
	return func() tea.Msg {
		if !loaded {
			md, problem = readResult(path, rel, resErr)
		}
		m := resultMsg{dispID: id, width: w, md: md, problem: problem}
		if problem != "" {
			return m
		}
		r, err := glamour.NewTermRenderer(glamour.WithStylePath(style), glamour.WithWordWrap(w-4))
		var out string
		if err == nil {
			out, err = r.Render(md)
		}
		if err != nil {
			// Shown as plain text rather than not at all.
			out = md
		}
		m.lines = strings.Split(strings.TrimRight(out, "\n"), "\n")
		return m
	}
}

// readResult reads a result file, or says why there is none.
func readResult(path, rel string, resErr error) (md, problem string) {
	if path == "" {
		return "", "no result: " + resErr.Error()
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", "no result yet: " + rel + " does not exist"
	}
	if err != nil {
		return "", "cannot read " + rel + ": " + pathErr(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxResult))
	if err != nil {
		return "", "cannot read " + rel + ": " + pathErr(err)
	}
	if len(data) == maxResult {
		data = append(data, "\n\n*(cut: the result is longer than 4 MiB)*\n"...)
	}
	return string(data), ""
}

// onResult keeps a rendered result if its view is still open.
func (a *App) onResult(m resultMsg) {
	if a.overview == nil || a.overview.result == nil || a.overview.result.dispID != m.dispID {
		return
	}
	rv := a.overview.result
	rv.busy = false
	rv.md, rv.problem, rv.loaded = m.md, m.problem, true
	rv.width, rv.lines = m.width, m.lines
	rv.scroll(0, a.resultPage())
}

// scroll moves the view d rows, within the lines.
func (rv *resultView) scroll(d, page int) {
	rv.top = min(max(rv.top+d, 0), max(len(rv.lines)-page, 0))
}

// onResultKey scrolls the result; esc, q or r go back to the overview.
func (a *App) onResultKey(msg tea.KeyPressMsg) tea.Cmd {
	rv := a.overview.result
	km := a.keys
	page := a.resultPage()
	s := msg.String()
	switch {
	case key.Matches(msg, km.Prefix):
		a.overview = nil
		a.afterPrefix = true
	case s == "esc" || s == "q" || s == "r" || s == "backspace":
		a.overview.result = nil
	case key.Matches(msg, km.Help):
		a.showHelp = true
	case key.Matches(msg, km.LineUp):
		rv.scroll(-1, page)
	case key.Matches(msg, km.LineDown), s == "enter":
		rv.scroll(1, page)
	case key.Matches(msg, km.PageUp):
		rv.scroll(-page, page)
	case key.Matches(msg, km.PageDown):
		rv.scroll(page, page)
	case key.Matches(msg, km.HalfUp):
		rv.scroll(-page/2, page)
	case key.Matches(msg, km.HalfDown):
		rv.scroll(page/2, page)
	case key.Matches(msg, km.Top):
		rv.top = 0
	case key.Matches(msg, km.Bottom):
		rv.scroll(len(rv.lines), page)
	}
	return nil
}

// renderResult draws the result view: a title bar with the file and the
// position, then the rendered markdown.
func (a *App) renderResult(rows []string, top, bottom int) {
	rv := a.overview.result
	w := a.width
	pos := ""
	page := bottom - top - 1
	switch {
	case rv.problem != "":
	case rv.width == 0:
		pos = " · rendering…"
	case len(rv.lines) > page:
		pos = " · " + strconv.Itoa(rv.top+1) + "–" + strconv.Itoa(min(rv.top+page, len(rv.lines))) + "/" + strconv.Itoa(len(rv.lines))
	}
	rows[top] = a.overlayTitle("━ result · "+rv.label+" · "+rv.rel+pos, "esc: back")
	for y := top + 1; y < bottom; y++ {
		rows[y] = blank(w)
	}
	if rv.problem != "" {
		if top+2 < bottom {
			rows[top+2] = fit(a.st.Empty.Render("  "+rv.problem), w)
		}
		return
	}
	for k := 0; k < page && rv.top+k < len(rv.lines); k++ {
		rows[top+1+k] = fit(rv.lines[rv.top+k], w)
	}
}
