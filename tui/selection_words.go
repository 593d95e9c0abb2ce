package tui

import (
	"unicode"
	"unicode/utf8"

	"github.com/okstra/cockpit/panes/term"
)

// The vi word motions of a selection (w b e, W B E) and the character
// classes they move by.

// class is a character's vi class: 0 blank, 1 punctuation, 2 a word
// character (letter, digit, _). With big (W, B, E) any non-blank is one
// class.
func class(text string) int {
	r, _ := utf8.DecodeRuneInString(text)
	switch {
	case text == "" || r == ' ' || r == '\t' || r == 0:
		return 0
	case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || utf8.RuneCountInString(text) > 1 && unicode.IsLetter(r):
		return 2
	}
	return 1
}

// textWalk steps through the characters of the lines the screen knows,
// with the end of each line as one blank between lines.
type textWalk struct {
	a     *App
	line  int
	cells []cell
	i     int // index in cells; len(cells) is the line's end
	ok    bool
}

func (a *App) walkAt(p term.Pos) *textWalk {
	cells, ok := a.lineCells(p.Line)
	w := &textWalk{a: a, line: p.Line, cells: cells, ok: ok}
	w.i = max(cellIndex(cells, p.Col), 0)
	return w
}

func (w *textWalk) class(big bool) int {
	if w.i >= len(w.cells) {
		return 0
	}
	c := class(w.cells[w.i].text)
	if big && c > 0 {
		return 1
	}
	return c
}

func (w *textWalk) pos() term.Pos {
	if w.i < len(w.cells) {
		return term.Pos{Line: w.line, Col: w.cells[w.i].col}
	}
	col := 0
	if len(w.cells) > 0 {
		col = w.cells[len(w.cells)-1].col
	}
	return term.Pos{Line: w.line, Col: col}
}

// next moves one character on; false at the end of what is known.
func (w *textWalk) next() bool {
	if w.i < len(w.cells) {
		w.i++
		return true
	}
	cells, ok := w.a.lineCells(w.line + 1)
	if !ok {
		return false
	}
	w.line, w.cells, w.i = w.line+1, cells, 0
	return true
}

// prev moves one character back; false at the start of what is known.
func (w *textWalk) prev() bool {
	if w.i > 0 {
		w.i--
		return true
	}
	cells, ok := w.a.lineCells(w.line - 1)
	if !ok {
		return false
	}
	w.line, w.cells, w.i = w.line-1, cells, len(cells)
	return true
}

// wordForward is vi's w: the start of the next word.
func (a *App) wordForward(p term.Pos, big bool) term.Pos {
	w := a.walkAt(p)
	c := w.class(big)
	for c != 0 && w.class(big) == c {
		if !w.next() {
			return w.pos()
		}
	}
	for w.class(big) == 0 {
		if !w.next() {
			return w.pos()
		}
	}
	return w.pos()
}

// wordEnd is vi's e: the last character of this or the next word.
func (a *App) wordEnd(p term.Pos, big bool) term.Pos {
	w := a.walkAt(p)
	if !w.next() {
		return w.pos()
	}
	for w.class(big) == 0 {
		if !w.next() {
			return w.pos()
		}
	}
	c := w.class(big)
	for {
		save := *w
		if !w.next() || w.class(big) != c {
			*w = save
			return w.pos()
		}
	}
}

// wordBackward is vi's b: the start of this or the previous word.
func (a *App) wordBackward(p term.Pos, big bool) term.Pos {
	w := a.walkAt(p)
	if !w.prev() {
		return w.pos()
	}
	for w.class(big) == 0 {
		if !w.prev() {
			return w.pos()
		}
	}
	c := w.class(big)
	for {
		save := *w
		if !w.prev() || w.class(big) != c {
			*w = save
			return w.pos()
		}
	}
}
