package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// The help overlay (?): the key map, grouped by mode, generated from
// KeyMap (every row is a binding's help text). It fits the terminal: as
// many columns as fit side by side, and a help taller than the screen
// scrolls (↑↓ pgup/pgdn, ▲/▼ say there is more); its border, title and
// closing line always show. esc, q and ? close it, and so does any other
// key, which does nothing else.

// helpRow is one line of the help overlay.
type helpRow struct{ keys, desc string }

type helpSection struct {
	title string
	rows  []helpRow
}

// helpRows are the rows of bindings with help text, in order; prefix, when
// set, is written before each key ("ctrl+b esc").
func helpRows(prefix string, bs ...key.Binding) []helpRow {
	var rows []helpRow
	for _, b := range bs {
		h := b.Help()
		if h.Key == "" {
			continue
		}
		k := h.Key
		if prefix != "" {
			k = prefix + " " + k
		}
		rows = append(rows, helpRow{k, h.Desc})
	}
	return rows
}

// helpSections is the key map grouped by mode, in the order the overlay
// lists it. An attached screen lists detach, and q's dialog instead of
// quitting.
func (k KeyMap) helpSections(attached bool) []helpSection {
	n := k.Nav
	quit := n.Quit
	nav := []key.Binding{n.Left, n.Next, n.Jump, n.Enter, n.Scroll, n.Zoom, n.Timeline, n.Close, n.Gate, n.Overview}
	if attached {
		quit.SetHelp(n.Quit.Help().Key, "detach or end the run")
		nav = append(nav, n.Detach)
	}
	nav = append(nav, quit, n.Help)
	p := k.Prefix.Help().Key
	typing := append(helpRows("", k.Prefix), helpRows(p, k.Prefixed.Once, k.Prefixed.Navigate, k.Prefixed.SendPrefix)...)
	if attached {
		typing = append(typing, helpRows(p, n.Detach)...)
	}
	s, f, sel := k.Scroll, k.Search, k.Select
	g, o, r := k.Gate, k.Overview, k.Result
	c := k.Confirm
	questions := helpRows("", c.Yes, c.No)
	if attached {
		questions = helpRows("", c.Detach, c.EndRun, c.No)
	}
	return []helpSection{
		{"Navigation (no prefix needed)", helpRows("", nav...)},
		{"Typing into a pane", typing},
		{"Scroll mode (" + p + " [)", helpRows("", s.LineUp, s.PageUp, s.HalfUp, s.Top, f.Forward, f.Next, f.Clear, sel.Start, s.Exit)},
		{"Selecting (v in scroll mode)", helpRows("", sel.Lines, sel.Left, sel.LineStart, sel.Top, sel.Swap, sel.Copy, sel.Cancel)},
		{"Search prompt (/ ?)", helpRows("", k.Prompt.Submit, k.Prompt.Edit.DeleteWordBackward, k.Prompt.Cancel)},
		{"Gate dialog (g)", helpRows("", g.Up, g.Answer, g.Later, g.NextGate, g.ScrollUp)},
		{"Run overview (w)", helpRows("", o.Up, o.PageUp, o.First, o.Open, o.Result, o.Close)},
		{"Result view (r)", helpRows("", r.Up, r.PageUp, r.Top, r.Back)},
		{"Questions (q, x)", questions},
		{"Mouse", helpRows("", k.Mouse...)},
		{"This help", helpRows("", k.Help.Up, k.Help.Close)},
	}
}

// helpOverlay is the help overlay.
type helpOverlay struct {
	env *screenEnv
	top int // the first body row shown when it scrolls
	// room is how many body rows the last drawing showed, len the body's.
	room, len int
}

func newHelp(env *screenEnv) *helpOverlay { return &helpOverlay{env: env} }

// HandleMsg scrolls with ↑↓ pgup/pgdn and the wheel; any other key closes.
func (h *helpOverlay) HandleMsg(msg tea.Msg) action {
	k := h.env.keys.Help
	page := max(h.room-1, 1)
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Up):
			h.scroll(-1)
		case key.Matches(msg, k.Down):
			h.scroll(1)
		case key.Matches(msg, k.PageUp):
			h.scroll(-page)
		case key.Matches(msg, k.PageDown):
			h.scroll(page)
		default:
			return actClose{}
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			h.scroll(-wheelLines)
		case tea.MouseWheelDown:
			h.scroll(wheelLines)
		}
	case tea.MouseClickMsg:
		return actClose{}
	}
	return nil
}

func (h *helpOverlay) scroll(n int) {
	h.top = min(max(h.top+n, 0), max(h.len-h.room, 0))
}

func (h *helpOverlay) Hint() string {
	if h.len > h.room {
		return "↑↓ pgup/pgdn: scroll · esc: close"
	}
	return "esc: close"
}

func (h *helpOverlay) Badge() string { return "HELP" }

// Draw draws the box: the sections in as many columns as fit, a window
// on them when still too tall.
func (h *helpOverlay) Draw(rows []string) {
	drawBox(rows, h.env.width, h.box())
}

// box lays the help out for the screen.
func (h *helpOverlay) box() []string {
	env := h.env
	st := env.st
	sections := env.keys.helpSections(env.attached)
	// Inside the border and its padding.
	maxW := max(env.width-4, 10)
	keyW := 0
	for _, s := range sections {
		for _, r := range s.rows {
			keyW = max(keyW, lipgloss.Width(r.keys))
		}
	}
	keyW = min(keyW, 16, maxW/2)
	render := func(s helpSection, w int) []string {
		lines := []string{fitCut(st.HelpTitle.Render(s.title), w)}
		for _, r := range s.rows {
			k := r.keys
			if lipgloss.Width(k) > keyW {
				k = ansi.Truncate(k, keyW, "…")
			}
			l := " " + st.HelpKey.Render(k+blank(keyW-lipgloss.Width(k))) + "  " + st.HelpDesc.Render(r.desc)
			lines = append(lines, fitCut(l, w))
		}
		return lines
	}
	// The widest a column needs to be.
	colW := 0
	for _, s := range sections {
		for _, l := range render(s, 1<<10) {
			colW = max(colW, ansi.StringWidth(strings.TrimRight(ansi.Strip(l), " ")))
		}
	}
	const gap = 3
	colW = min(colW, maxW)
	cols := max(min((maxW+gap)/(colW+gap), len(sections)), 1)
	// Fewer columns when they would not make it shorter.
	var body []string
	for c := cols; c >= 1; c-- {
		b := h.columns(sections, c, colW, gap, render)
		if c == cols || len(b) <= len(body) {
			body = b
			cols = c
		}
		if c == 1 || len(b) > env.height {
			break
		}
	}
	width := min(cols*colW+(cols-1)*gap, maxW)
	foot := "esc: close · any other key closes too"
	if env.readOnly {
		foot = "read-only: watch, move, scroll, detach · " + foot
	}
	// Title, blank, body, blank, foot, and the border: 6 rows besides the body.
	room := max(env.height-6, 1)
	h.len, h.room = len(body), min(room, len(body))
	if len(body) > room {
		foot = "↑↓ pgup/pgdn: scroll · esc: close"
		h.top = min(max(h.top, 0), len(body)-room)
		window := make([]string, 0, room)
		for i := h.top; i < h.top+room; i++ {
			l := body[i]
			more := ""
			switch {
			case i == h.top && h.top > 0:
				more = "▲"
			case i == h.top+room-1 && i < len(body)-1:
				more = "▼"
			}
			if more != "" {
				l = fitCut(strings.TrimRight(l, " "), width-2) + " " + st.HelpKey.Render(more)
			}
			window = append(window, l)
		}
		body = window
	} else {
		h.top = 0
	}
	lines := []string{fitCut(st.HelpTitle.Render("cockpit keys"), width), blank(width)}
	for _, l := range body {
		lines = append(lines, fitCut(l, width))
	}
	lines = append(lines, blank(width), fitCut(st.Hint.Render(foot), width))
	return strings.Split(st.HelpBox.Render(strings.Join(lines, "\n")), "\n")
}

// columns lays the sections out in c columns of colW cells, filling each
// column before the next (sections are not split), and returns the rows.
func (h *helpOverlay) columns(sections []helpSection, c, colW, gap int, render func(helpSection, int) []string) []string {
	blocks := make([][]string, len(sections))
	total := 0
	for i, s := range sections {
		blocks[i] = render(s, colW)
		total += len(blocks[i]) + 1
	}
	target := (total + c - 1) / c
	var columns [][]string
	var cur []string
	for i, b := range blocks {
		if len(cur) > 0 && len(cur)+len(b) > target && len(columns) < c-1 {
			columns = append(columns, cur)
			cur = nil
		}
		if len(cur) > 0 {
			cur = append(cur, "")
		}
		cur = append(cur, b...)
		_ = i
	}
	columns = append(columns, cur)
	height := 0
	for _, col := range columns {
		height = max(height, len(col))
	}
	out := make([]string, height)
	for y := range out {
		var b strings.Builder
		for x, col := range columns {
			if x > 0 {
				b.WriteString(blank(gap))
			}
			l := ""
			if y < len(col) {
				l = col[y]
			}
			b.WriteString(fit(l, colW))
		}
		out[y] = b.String()
	}
	return out
}
