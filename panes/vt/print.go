package vt

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// nonPrintableMask sets the top bit of each of the 8 bytes of w (first byte
// lowest) that is below 0x20 or at least 0x7f (SWAR: the borrow of w-0x20 or
// the carry of w+1 reaches the byte's top bit). A borrow or carry can also
// flag a printable byte, but only one above a byte flagged for real, so the
// lowest flag is exact.
func nonPrintableMask(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	return ((w - 0x20*ones) | (w + 0x01*ones) | w) & highs
}

// template is the cell the pen prints with (Ch still to be set).
func (e *Emulator) template() Cell {
	return Cell{Fg: e.pen.fg, Bg: e.pen.bg, Attr: e.pen.attr, Ext: e.pen.ext}
}

// wrap moves to the start of the next line after a pending wrap, marking the
// line as continued.
func (e *Emulator) wrap() {
	ln := e.scr.row(e.y)
	ln.wrapped = true
	if ln.encValid {
		ln.enc[0] |= 1
	}
	e.wrapPending = false
	e.x = 0
	e.index()
}

// printASCII prints the run of printable ASCII at the start of p and
// returns its length. This is the hot path: cells are written in bulk.
func (e *Emulator) printASCII(p []byte) int {
	n := 0
	for n+8 <= len(p) {
		if m := nonPrintableMask(binary.LittleEndian.Uint64(p[n:])); m != 0 {
			// The lowest flagged byte is always a real one.
			n += bits.TrailingZeros64(m) >> 3
			goto found
		}
		n += 8
	}
	for n < len(p) && p[n] >= 0x20 && p[n] < 0x7f {
		n++
	}
found:
	if e.fancy {
		for _, b := range p[:n] {
			e.printRune(rune(b))
		}
		return n
	}
	run := p[:n]
	fg, bg, attr, ext := e.pen.fg, e.pen.bg, e.pen.attr, e.pen.ext
	for len(run) > 0 {
		if e.wrapPending {
			if !e.autowrap {
				// Without autowrap the last column is overwritten.
				e.wrapPending = false
			} else {
				e.wrap()
			}
		}
		ln := e.scr.row(e.y)
		cells := ln.cells
		x := e.x
		k := min(len(run), e.cols-x)
		if cells[x].Attr&AttrWideCont != 0 && x > 0 {
			e.breakWide(ln, x-1)
		}
		if last := x + k - 1; cells[last].Attr&AttrWide != 0 && last+1 < e.cols {
			e.breakWide(ln, last)
		}
		dst := cells[x : x+k]
		fillASCII(dst, run, fg, bg, attr, ext)
		if x+k > ln.used {
			ln.used = x + k
		}
		e.dirty[e.y] = true
		ln.encAppendASCII(x, run[:k], fg, bg, attr, ext)
		if !e.autowrap && k < len(run) {
			// Without autowrap what does not fit overwrites the last column:
			// the last character of the run stays there.
			dst[k-1].Ch = rune(run[len(run)-1])
			ln.encValid = false
			k = len(run)
		}
		e.lastCh = dst[len(dst)-1].Ch
		run = run[k:]
		e.lastX, e.lastY = -1, -1
		if x+len(dst) >= e.cols {
			e.x = e.cols - 1
			e.wrapPending = e.autowrap
			if !e.autowrap {
				e.lastX, e.lastY = e.cols-1, e.y
			}
		} else {
			e.x = x + len(dst)
		}
	}
	return n
}

// breakWide turns the wide character starting at x of ln into blanks (it is
// being partly overwritten).
func (e *Emulator) breakWide(ln *line, x int) {
	ln.encValid = false
	c := &ln.cells[x]
	c.Ch, c.Attr = ' ', c.Attr&^(AttrWide|attrCluster)
	if x+1 < len(ln.cells) {
		d := &ln.cells[x+1]
		d.Ch, d.Attr = ' ', d.Attr&^AttrWideCont
	}
}

// printUTF8 decodes and prints the non-ASCII runes at the start of p and
// returns the bytes consumed; an incomplete rune at the end is kept.
func (e *Emulator) printUTF8(p []byte) int {
	i := 0
	for i < len(p) && p[i] >= 0x80 {
		if !utf8.FullRune(p[i:]) {
			e.utf8n = copy(e.utf8buf[:], p[i:])
			return len(p)
		}
		r, size := utf8.DecodeRune(p[i:])
		i += size
		// The common case, a narrow character with room after it and no
		// mode in the way, is written here; everything else in printRune.
		if x := e.x; x < e.cols-1 && !e.wrapPending && !e.fancy && runeWidth(r) == 1 {
			ln := e.scr.row(e.y)
			c := &ln.cells[x]
			if c.Attr&(AttrWide|AttrWideCont) == 0 {
				c.Ch, c.Fg, c.Bg, c.Attr, c.Ext = r, e.pen.fg, e.pen.bg, e.pen.attr, e.pen.ext
				if x+1 > ln.used {
					ln.used = x + 1
				}
				e.dirty[e.y] = true
				ln.encAppend(x, 1)
				e.lastCh = r
				e.lastX = -1
				e.x = x + 1
				continue
			}
		}
		e.printRune(r)
	}
	return i
}

// utf8Continue completes a rune split across writes.
func (e *Emulator) utf8Continue(p []byte) int {
	i := 0
	for i < len(p) && e.utf8n < 4 {
		if p[i]&0xc0 != 0x80 {
			break // not a continuation byte: the pending rune is invalid
		}
		e.utf8buf[e.utf8n] = p[i]
		e.utf8n++
		i++
		if utf8.FullRune(e.utf8buf[:e.utf8n]) {
			break
		}
	}
	buf := e.utf8buf[:e.utf8n]
	if utf8.FullRune(buf) || i < len(p) {
		r, size := utf8.DecodeRune(buf)
		e.utf8n = 0
		e.printRune(r)
		if size < len(buf) {
			// The leading byte was invalid: what followed it is printed on
			// its own, byte by byte, as fresh input would be.
			rest := append(e.scratch[:0], buf[size:]...)
			e.scratch = rest
			for len(rest) > 0 {
				if !utf8.FullRune(rest) {
					e.utf8n = copy(e.utf8buf[:], rest)
					break
				}
				r, n := utf8.DecodeRune(rest)
				e.printRune(r)
				rest = rest[n:]
			}
		}
	}
	return i
}

// decSpecial maps 0x5f–0x7e in the DEC special graphics set.
var decSpecial = [32]rune{
	' ', '◆', '▒', '␉', '␌', '␍', '␊', '°', '±', '␤', '␋', '┘', '┐', '┌', '└', '┼',
	'⎺', '⎻', '─', '⎼', '⎽', '├', '┤', '┴', '┬', '│', '≤', '≥', 'π', '≠', '£', '·',
}

// printRune prints one rune with charset mapping, width and clusters.
func (e *Emulator) printRune(r rune) {
	defer e.refreshFancy()
	cs := e.charsets[e.gl]
	if e.single != 0 {
		cs = e.charsets[e.single]
		e.single = 0
	}
	if r < 0x80 {
		switch cs {
		case csDECGraphics:
			if r >= 0x5f && r <= 0x7e {
				r = decSpecial[r-0x5f]
			}
		case csUK:
			if r == '#' {
				r = '£'
			}
		}
	}
	w := runeWidth(r)
	if e.joinNext {
		e.joinNext = false
		if w > 0 && e.attach(r) {
			return
		}
	}
	if w == 0 {
		if r >= 0x80 && r < 0xa0 {
			return // C1 as UTF-8: nothing to show
		}
		e.attach(r)
		if r == 0x200d {
			e.joinNext = true
		}
		return
	}
	if e.wrapPending {
		if e.autowrap {
			e.wrap()
		} else {
			e.wrapPending = false
		}
	}
	if w == 2 && e.x == e.cols-1 {
		if !e.autowrap || e.cols < 2 {
			return
		}
		// A wide character does not fit in the last column: it wraps and the
		// column stays blank.
		ln := e.scr.row(e.y)
		if ln.cells[e.x].Attr&AttrWideCont != 0 {
			e.breakWide(ln, e.x-1)
		}
		ln.cells[e.x] = Cell{Bg: e.pen.bg}
		ln.used = e.cols
		e.touch(e.y)
		e.wrap()
	}
	ln := e.scr.row(e.y)
	if e.insert {
		e.insertBlanks(w)
	}
	x := e.x
	cells := ln.cells
	if cells[x].Attr&AttrWideCont != 0 && x > 0 {
		e.breakWide(ln, x-1)
	}
	last := x + w - 1
	if cells[last].Attr&AttrWide != 0 && last+1 < e.cols {
		e.breakWide(ln, last)
	}
	c := e.template()
	c.Ch = r
	if w == 2 {
		c.Attr |= AttrWide
		cells[x] = c
		c.Ch = 0
		c.Attr = c.Attr&^AttrWide | AttrWideCont
		cells[x+1] = c
	} else {
		cells[x] = c
	}
	if x+w > ln.used {
		ln.used = x + w
	}
	e.dirty[e.y] = true
	ln.encAppend(x, w)
	e.lastCh = r
	e.lastX, e.lastY = -1, -1
	if x+w >= e.cols {
		e.x = e.cols - 1
		e.wrapPending = e.autowrap
		if !e.autowrap {
			e.lastX, e.lastY = x, e.y
		}
	} else {
		e.x = x + w
	}
}

// attach adds a zero-width rune (or a rune after ZWJ) to the cluster of the
// cell before the cursor. It reports whether there was such a cell.
func (e *Emulator) attach(r rune) bool {
	x := e.x - 1
	if e.wrapPending || (e.lastX == e.x && e.lastY == e.y) {
		// The character before the mark was written where the cursor still
		// is: the last column, after a pending wrap or without autowrap.
		x = e.x
	}
	if x < 0 {
		return false
	}
	ln := e.scr.row(e.y)
	if ln.cells[x].Attr&AttrWideCont != 0 && x > 0 {
		x--
	}
	c := &ln.cells[x]
	if c.blank() && c.Ch == 0 {
		return false
	}
	buf := e.t.appendContent(e.scratch[:0], c)
	buf = appendRune(buf, r)
	e.scratch = buf
	id, ok := e.t.cluster(buf)
	if !ok {
		return true // table full: the mark is dropped
	}
	c.Ch = id
	c.Attr |= attrCluster
	e.touch(e.y)
	// VS16 asks for emoji presentation: a narrow base becomes wide when there
	// is room for it.
	if r == 0xfe0f && c.Attr&AttrWide == 0 && x+1 < e.cols && x == e.x-1 && !e.wrapPending {
		c.Attr |= AttrWide
		n := &ln.cells[x+1]
		if n.Attr&AttrWide != 0 {
			e.breakWide(ln, x+1)
		}
		*n = Cell{Fg: c.Fg, Bg: c.Bg, Attr: c.Attr&attrStyle | AttrWideCont, Ext: c.Ext}
		ln.used = max(ln.used, x+2)
		if x+2 >= e.cols {
			e.x = e.cols - 1
			e.wrapPending = e.autowrap
		} else {
			e.x = x + 2
		}
	}
	return true
}

// utf8Byte takes a non-ASCII byte that reached the state table in ground
// state (Write normally handles these itself).
func (e *Emulator) utf8Byte(b byte) {
	buf := [1]byte{b}
	if e.utf8n > 0 {
		e.utf8Continue(buf[:])
		return
	}
	e.printUTF8(buf[:])
}
