package tui

import (
	"errors"
	"io"
	"os"
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/okstra/cockpit/tui/markdown"
)

// maxResult bounds the result file read for the result view.
const maxResult = 4 << 20

// resultView is a worker's result file rendered as markdown (tui/markdown) in
// a scrollable view over the overview (r in the overview).
type resultView struct {
	env                *screenEnv
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

// openResult opens the result view of dispatch i (over the overview).
func (ov *overviewOverlay) openResult(i int) action {
	d := ov.env.run.Dispatches[i]
	rel := d.ResultPath
	if rel == "" {
		return actNotice{dispatchLabel(d) + ": no result file recorded"}
	}
	rv := &resultView{env: ov.env, dispID: d.DispatchID, label: dispatchLabel(d), rel: rel}
	rv.path, rv.resErr = ov.env.resolve(rel)
	return actPush{rv}
}

// Init renders the result.
func (rv *resultView) Init() tea.Cmd { return rv.cmdRender() }

// resultWidth is the width results are rendered at: the screen less a
// margin, at most 120 columns so prose stays readable.
func (e *screenEnv) resultWidth() int { return min(max(e.width-2, 20), 120) }

// page is how many rows of the result show at once.
func (rv *resultView) page() int {
	top, bottom := rv.env.overlayRows()
	return max(bottom-top-1, 1)
}

// cmdRender reads (once) and renders the result at the screen's width,
// when it has not been rendered for it yet.
func (rv *resultView) cmdRender() tea.Cmd {
	w := rv.env.resultWidth()
	if rv.busy || rv.width == w {
		return nil
	}
	rv.busy = true
	id, path, rel, resErr, md, loaded := rv.dispID, rv.path, rv.rel, rv.resErr, rv.md, rv.loaded
	problem := rv.problem
	color := !rv.env.st.NoColor
	return func() tea.Msg {
		if !loaded {
			md, problem = readResult(path, rel, resErr)
		}
		m := resultMsg{dispID: id, width: w, md: md, problem: problem}
		if problem != "" {
			return m
		}
		// Two columns of margin on each side.
		m.lines = markdown.Render(md, w-4, color)
		for i, l := range m.lines {
			m.lines[i] = "  " + l
		}
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

// HandleMsg scrolls the result; esc, q or r go back to the overview. A
// rendering comes back here, and a new width renders again.
func (rv *resultView) HandleMsg(msg tea.Msg) action {
	switch msg := msg.(type) {
	case resultMsg:
		if msg.dispID == rv.dispID {
			rv.busy = false
			rv.md, rv.problem, rv.loaded = msg.md, msg.problem, true
			rv.width, rv.lines = msg.width, msg.lines
			rv.scroll(0, rv.page())
			return actCmd{rv.cmdRender()} // the width may have changed meanwhile
		}
	case envChanged:
		return actCmd{rv.cmdRender()}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			rv.scroll(-wheelLines, rv.page())
		case tea.MouseWheelDown:
			rv.scroll(wheelLines, rv.page())
		}
	case tea.KeyPressMsg:
		return rv.onKey(msg)
	}
	return nil
}

// scroll moves the view d rows, within the lines.
func (rv *resultView) scroll(d, page int) {
	rv.top = min(max(rv.top+d, 0), max(len(rv.lines)-page, 0))
}

func (rv *resultView) onKey(msg tea.KeyPressMsg) action {
	k := rv.env.keys.Result
	page := rv.page()
	switch {
	case key.Matches(msg, k.Back):
		return actClose{}
	case key.Matches(msg, rv.env.keys.Nav.Help):
		return actPush{newHelp(rv.env)}
	case key.Matches(msg, k.Up):
		rv.scroll(-1, page)
	case key.Matches(msg, k.Down):
		rv.scroll(1, page)
	case key.Matches(msg, k.PageUp):
		rv.scroll(-page, page)
	case key.Matches(msg, k.PageDown):
		rv.scroll(page, page)
	case key.Matches(msg, k.HalfUp):
		rv.scroll(-page/2, page)
	case key.Matches(msg, k.HalfDown):
		rv.scroll(page/2, page)
	case key.Matches(msg, k.Top):
		rv.top = 0
	case key.Matches(msg, k.Bottom):
		rv.scroll(len(rv.lines), page)
	}
	return nil
}

func (rv *resultView) Hint() string  { return "↑↓ pgup/pgdn g/G: scroll · esc: back" }
func (rv *resultView) Badge() string { return "RESULT" }

// Draw draws the result view over the overview: a title bar with the file
// and the position, then the rendered markdown.
func (rv *resultView) Draw(rows []string) {
	a := rv.env
	top, bottom := a.overlayRows()
	w := a.width
	if bottom <= top || w <= 0 {
		return
	}
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
