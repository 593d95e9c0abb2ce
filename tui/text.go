package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Text helpers the parts share: wrapping, cutting with …, styling lines.

// wrapWords wraps s (styled) at spaces to width cells: the first line
// indented by first, the others by rest. A word wider than a line is left
// whole on its own line (the caller cuts it with …); words are never split.
func wrapWords(s string, width, first, rest int) []string {
	var lines []string
	cur, curW := blank(first), first
	empty := true
	for _, word := range strings.Split(s, " ") {
		ww := ansi.StringWidth(word)
		if !empty && curW+1+ww > width {
			lines = append(lines, cur)
			cur, curW, empty = blank(rest), rest, true
		}
		if !empty {
			cur += " "
			curW++
		}
		cur += word
		curW += ww
		empty = false
	}
	return append(lines, cur)
}

// wrapBreak wraps plain text s at spaces to width cells, and breaks a
// word wider than a line (a path) across lines instead of cutting it.
func wrapBreak(s string, width int) []string {
	var out []string
	for _, l := range wrapWords(s, width, 0, 0) {
		for ansi.StringWidth(l) > width {
			out = append(out, ansi.Cut(l, 0, width))
			l = ansi.Cut(l, width, ansi.StringWidth(l))
		}
		out = append(out, l)
	}
	return out
}

// wrapItems joins items with " · " into lines of at most width cells,
// breaking only between items; an item wider than a line is cut with ….
func wrapItems(items []string, width int) []string {
	var lines []string
	cur := ""
	for _, it := range items {
		if ansi.StringWidth(it) > width {
			it = ansi.Truncate(it, width, "…")
		}
		switch {
		case cur == "":
			cur = it
		case ansi.StringWidth(cur)+3+ansi.StringWidth(it) > width:
			lines = append(lines, cur)
			cur = it
		default:
			cur += " · " + it
		}
	}
	return append(lines, cur)
}

// fitCut makes s exactly w cells wide: padded, or cut with … at the end.
func fitCut(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return fit(s, w)
	}
	t := ansi.Truncate(s, w, "…")
	if strings.IndexByte(t, '\x1b') >= 0 {
		t += "\x1b[m"
	}
	return t + blank(w-ansi.StringWidth(t))
}

// hint styles each line.
func hint(style func(...string) string, lines []string) []string {
	for i, l := range lines {
		lines[i] = style(l)
	}
	return lines
}
