package tui

import (
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// What a cell of the scrolled view is painted as, lowest priority first.
const (
	paintNone uint8 = iota
	paintMatch
	paintCurrent
	paintSel
	paintCursor
)

// paintStyles are the SGR sequences of each paint kind, as tmux's
// copy-mode-match-style (black on cyan), copy-mode-current-match-style
// (black on magenta) and mode-style (black on yellow). Without colour:
// underline, bold reverse underline, reverse; the cursor is bold underline.
func paintStyles(noColor bool) [paintCursor + 1]string {
	if noColor {
		return [...]string{"", "\x1b[0;4m", "\x1b[0;1;4;7m", "\x1b[0;7m", "\x1b[0;1;4m"}
	}
	return [...]string{"", "\x1b[0;30;46m", "\x1b[0;1;30;45m", "\x1b[0;30;43m", "\x1b[0;1;7m"}
}

// decorate paints the matches, the selection and its cursor over row i of
// the scrolled view of pv (text line scroll.first+i).
func (a *App) decorate(pv *paneView, i int, line string) string {
	f, s := a.scroll.find, a.scroll.sel
	if f == nil && s == nil {
		return line
	}
	w := pv.rect.W
	l := a.scroll.first + i
	var kinds []uint8
	mark := func(c0, c1 int, k uint8) {
		if kinds == nil {
			kinds = make([]uint8, w)
		}
		for c := max(c0, 0); c < min(c1, w); c++ {
			kinds[c] = max(kinds[c], k)
		}
	}
	if f != nil && len(f.matches) > 0 {
		ms := f.matches
		// Matches are sorted by start; one that starts above this line
		// may run into it across soft wraps, but no further back than its
		// length allows.
		reach := len(f.query)/max(pv.snap.Cols, 1) + 1
		j := sort.Search(len(ms), func(j int) bool { return ms[j].Start.Line > l })
		for j--; j >= 0 && ms[j].Start.Line >= l-reach; j-- {
			mt := ms[j]
			if mt.End.Line < l {
				continue
			}
			c0, c1 := 0, w
			if mt.Start.Line == l {
				c0 = mt.Start.Col
			}
			if mt.End.Line == l {
				c1 = mt.End.Col
			}
			k := paintMatch
			if j == f.cur {
				k = paintCurrent
			}
			mark(c0, c1, k)
		}
	}
	if s != nil {
		from, to := s.ends()
		if l >= from.Line && l <= to.Line {
			c0, c1 := 0, w
			if !s.lines {
				if l == from.Line {
					c0 = from.Col
				}
				if l == to.Line {
					c1 = to.Col + a.cellWidthAt(to)
				}
			}
			mark(c0, c1, paintSel)
		}
		if s.cursor.Line == l {
			mark(s.cursor.Col, s.cursor.Col+a.cellWidthAt(s.cursor), paintCursor)
		}
	}
	if kinds == nil {
		return line
	}
	return paint(line, kinds, paintStyles(a.st.NoColor))
}

// paint redraws a styled line with each cell's paint kind over it: a
// painted cell takes the kind's style instead of its own, and the line's
// own style comes back after it. Painted cells past the line's text are
// drawn as blanks.
func paint(line string, kinds []uint8, styles [paintCursor + 1]string) string {
	var b strings.Builder
	b.Grow(len(line) + 32)
	last := "" // the line's own style, its last SGR so far
	cur := paintNone
	col := 0
	state := byte(0)
	setKind := func(k uint8) {
		if k == cur {
			return
		}
		if k == paintNone {
			b.WriteString("\x1b[0m")
			b.WriteString(last)
		} else {
			b.WriteString(styles[k])
		}
		cur = k
	}
	for len(line) > 0 {
		seq, width, n, newState := ansi.DecodeSequence(line, state, nil)
		if n <= 0 {
			break
		}
		state = newState
		line = line[n:]
		if width == 0 {
			if strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m") {
				last = seq
				if cur != paintNone {
					continue
				}
			}
			b.WriteString(seq)
			continue
		}
		k := paintNone
		for c := col; c < col+width && c < len(kinds); c++ {
			k = max(k, kinds[c])
		}
		setKind(k)
		b.WriteString(seq)
		col += width
	}
	end := len(kinds)
	for end > col && kinds[end-1] == paintNone {
		end--
	}
	for ; col < end; col++ {
		setKind(kinds[col])
		b.WriteByte(' ')
	}
	setKind(paintNone)
	return b.String()
}
