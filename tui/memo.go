package tui

import (
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// drawMemo remembers what the screen's chrome (header, status line,
// timeline) costs most to draw — styling a string, and measuring styled
// strings — across frames: a key's echo redraws the whole view, and the
// chrome's strings are the same frame after frame. Both are pure functions
// of their arguments (a style of the screen's Styles, fixed for its life),
// so a remembered result is exact. It is bounded: past memoMax entries
// (the seconds of an elapsed time make new ones) it starts over.
type drawMemo struct {
	styled map[styleKey]string
	widths map[string]int
	hints  map[hintKey]string
}

type hintKey struct {
	h string
	w int
}

type styleKey struct {
	st *lipgloss.Style
	s  string
}

const memoMax = 1024

// render is st.Render(s).
func (m *drawMemo) render(st *lipgloss.Style, s string) string {
	k := styleKey{st, s}
	if r, ok := m.styled[k]; ok {
		return r
	}
	if m.styled == nil || len(m.styled) >= memoMax {
		m.styled = make(map[styleKey]string)
	}
	r := st.Render(s)
	m.styled[k] = r
	return r
}

// width is ansi.StringWidth(s).
func (m *drawMemo) width(s string) int {
	if w, ok := m.widths[s]; ok {
		return w
	}
	if m.widths == nil || len(m.widths) >= memoMax {
		m.widths = make(map[string]int)
	}
	w := ansi.StringWidth(s)
	m.widths[s] = w
	return w
}

// fit is fit(s, w), measured through the memo.
func (m *drawMemo) fit(s string, w int) string {
	if m.width(s) == w {
		return s
	}
	return fit(s, w)
}

// spread is spread(left, right, w), measured through the memo.
func (m *drawMemo) spread(left, right string, w int) string {
	lw, rw := m.width(left), m.width(right)
	if lw+rw+1 > w {
		return spread(left, right, w)
	}
	return left + blank(w-lw-rw) + right
}

// fitHint is fitHint(h, w).
func (m *drawMemo) fitHint(h string, w int) string {
	k := hintKey{h, w}
	if r, ok := m.hints[k]; ok {
		return r
	}
	if m.hints == nil || len(m.hints) >= memoMax {
		m.hints = make(map[hintKey]string)
	}
	r := fitHint(h, w)
	m.hints[k] = r
	return r
}
