package vt

import (
	"bytes"
	"encoding/binary"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/okstra/cockpit/panes/term"
)

// Search and copy work on the text of the scrollback and the active screen
// as one sequence of physical lines: scrollback lines 0…n-1, then the rows.
// A logical line is a run of physical lines joined by soft wraps (the
// wrapped flag), so a match may run from one row into the next, as the
// text it belongs to does. The newest scrollback line continues on row 0
// only on the normal screen; the alternate screen's rows are never joined
// to the scrollback.
//
// A wrapped physical line counts as its full width: the blank cells after
// its last character up to the screen width are spaces of the text ("foo "
// wrapped before "bar" reads "foo bar"). Only the cell a wide character
// left blank when it did not fit in the last column is not text.

// Search appends every occurrence of query to dst, oldest first (see
// term.Finder): literal, case-insensitive unless query has an upper-case
// letter (smart case), overlapping occurrences included (as vi's n steps
// through them). An empty query finds nothing.
func (e *Emulator) Search(dst []term.Match, query string) []term.Match {
	if query == "" || !utf8.ValidString(query) {
		return dst
	}
	fold := !hasUpper(query)
	q := []byte(query)
	if fold {
		q = appendFolded(nil, query)
	}
	s := &e.srch
	s.fold = fold
	base := int(e.sb.dropped)
	total := e.sb.len() + e.rows
	for k := 0; k < total; {
		s.reset()
		next := e.buildLogical(s, k, total)
		for from := 0; from <= len(s.buf)-len(q); {
			i := bytes.Index(s.buf[from:], q)
			if i < 0 {
				break
			}
			b0 := from + i
			b1 := b0 + len(q)
			start, _ := s.pos(b0)
			_, end := s.pos(b1 - 1)
			dst = append(dst, term.Match{
				Start: term.Pos{Line: base + start.Line, Col: start.Col},
				End:   term.Pos{Line: base + end.Line, Col: end.Col},
			})
			_, n := utf8.DecodeRune(s.buf[b0:])
			from = b0 + n
		}
		k = next
	}
	return dst
}

// hasUpper reports whether s has an upper-case (or title-case) letter.
func hasUpper(s string) bool {
	for _, r := range s {
		if r < 0x80 {
			if 'A' <= r && r <= 'Z' {
				return true
			}
			continue
		}
		if unicode.IsUpper(r) || unicode.IsTitle(r) {
			return true
		}
	}
	return false
}

// foldRune maps every rune of a case-folding orbit to one of them: ASCII
// letters to lower case, an orbit holding an ASCII letter (K, k, KELVIN
// SIGN) to that letter's lower case, any other to its smallest member
// (Σ σ ς → Σ).
func foldRune(r rune) rune {
	if r < 0x80 {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < 0x80 {
			return foldRune(f)
		}
		m = min(m, f)
	}
	return m
}

func appendFolded(dst []byte, s string) []byte {
	for _, r := range s {
		dst = utf8.AppendRune(dst, foldRune(r))
	}
	return dst
}

// lowerASCII folds an ASCII byte.
var lowerASCII = func() (t [128]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i + 'a' - 'A')
		}
	}
	return t
}()

// searcher holds the text of one logical line and how its bytes map back
// to cells. It is reused from one line (and one query) to the next.
type searcher struct {
	fold bool
	buf  []byte
	segs []textSeg
	// col0 and col1 are, for each byte of a segment that is not simple,
	// the first column of its cell and the column after it.
	col0, col1 []int32
	cells      []Cell
}

// textSeg is one physical line's share of the text.
type textSeg struct {
	line  int // physical line
	start int // first byte in buf
	// simple: one byte per cell (ASCII only), so column = byte - start.
	simple bool
	colOff int // where the segment's bytes start in col0/col1
}

func (s *searcher) reset() {
	s.buf, s.segs, s.col0, s.col1 = s.buf[:0], s.segs[:0], s.col0[:0], s.col1[:0]
}

// pos maps byte b of the text to the physical line and column of its cell:
// the first column (start) and the column after the cell (end).
func (s *searcher) pos(b int) (start, end term.Pos) {
	i := sort.Search(len(s.segs), func(i int) bool { return s.segs[i].start > b }) - 1
	sg := &s.segs[max(i, 0)]
	o := b - sg.start
	if sg.simple {
		return term.Pos{Line: sg.line, Col: o}, term.Pos{Line: sg.line, Col: o + 1}
	}
	return term.Pos{Line: sg.line, Col: int(s.col0[sg.colOff+o])}, term.Pos{Line: sg.line, Col: int(s.col1[sg.colOff+o])}
}

// physCells returns physical line k's cells (trailing blanks trimmed) and
// whether it wraps into line k+1.
func (e *Emulator) physCells(dst []Cell, k int) ([]Cell, bool) {
	n := e.sb.len()
	if k < n {
		return decodeLine(dst, e.sb.at(k))
	}
	ln := e.scr.row(k - n)
	cells := ln.cells[:min(max(ln.used, 0), len(ln.cells))]
	end := len(cells)
	for end > 0 && cells[end-1].trimmable() {
		end--
	}
	return append(dst, cells[:end]...), ln.wrapped && k-n < e.rows-1
}

// wrapsInto reports whether physical line k continues on line k+1.
func (e *Emulator) wrapsInto(k int) bool {
	n := e.sb.len()
	if k < n-1 {
		return e.ScrollbackWrapped(k)
	}
	if k == n-1 {
		return !e.alt && e.ScrollbackWrapped(k)
	}
	return k-n < e.rows-1 && e.scr.row(k-n).wrapped
}

// startsWide reports whether physical line k begins with a wide character.
func (e *Emulator) startsWide(k int) bool {
	n := e.sb.len()
	if k < n {
		b := e.sb.at(k)
		if len(b) < 2 {
			return false
		}
		// Skip the flags byte and the first run's header.
		b = b[1:]
		mask := b[0]
		b = b[1:]
		for _, f := range []struct {
			bit byte
			n   int
		}{{1, 4}, {2, 4}, {4, 2}, {8, 2}} {
			if mask&f.bit != 0 {
				b = b[f.n:]
			}
		}
		b = b[2:]
		switch {
		case len(b) == 0:
			return false
		case b[0] == 0xff:
			return true
		case b[0] < 0x80 || b[0] == 0xfe:
			return false
		}
		r, _ := decodeRune(b)
		return runeWidth(r) == 2
	}
	if k-n >= e.rows {
		return false
	}
	return e.scr.row(k - n).cells[0].Attr&AttrWide != 0
}

// buildLogical puts the text of the logical line starting at physical line
// k into s and returns the first physical line after it.
func (e *Emulator) buildLogical(s *searcher, k, total int) int {
	for {
		wrapped := k < total-1 && e.wrapsInto(k)
		cols := e.appendPhys(s, k)
		if !wrapped {
			return k + 1
		}
		// Pad to the width: those blanks are text. A wide character that
		// did not fit in the last column left that one blank.
		pad := e.cols - cols
		if pad == 1 && e.startsWide(k+1) {
			pad = 0
		}
		if pad > 0 {
			sg := &s.segs[len(s.segs)-1]
			for range pad {
				if !sg.simple {
					s.col0 = append(s.col0, int32(cols))
					s.col1 = append(s.col1, int32(cols+1))
				}
				s.buf = append(s.buf, ' ')
				cols++
			}
		}
		k++
	}
}

// appendPhys appends physical line k's text to s as a new segment and
// returns the number of cells it covered.
func (e *Emulator) appendPhys(s *searcher, k int) int {
	n := e.sb.len()
	start := len(s.buf)
	if k < n {
		if cols, ok := s.appendEncASCII(e.sb.at(k)); ok {
			s.segs = append(s.segs, textSeg{line: k, start: start, simple: true})
			return cols
		}
		s.buf = s.buf[:start]
	}
	s.cells, _ = e.physCells(s.cells[:0], k)
	simple := true
	for i := range s.cells {
		c := &s.cells[i]
		if c.Attr&(attrCluster|AttrWide|AttrWideCont) != 0 || c.Ch >= 0x80 {
			simple = false
			break
		}
	}
	if simple {
		for i := range s.cells {
			ch := byte(s.cells[i].Ch)
			switch {
			case ch == 0:
				ch = ' '
			case s.fold:
				ch = lowerASCII[ch]
			}
			s.buf = append(s.buf, ch)
		}
		s.segs = append(s.segs, textSeg{line: k, start: start, simple: true})
		return len(s.cells)
	}
	s.segs = append(s.segs, textSeg{line: k, start: start, colOff: len(s.col0)})
	for x := 0; x < len(s.cells); x++ {
		c := &s.cells[x]
		if c.Attr&AttrWideCont != 0 {
			continue
		}
		w := 1
		if c.Attr&AttrWide != 0 {
			w = 2
		}
		before := len(s.buf)
		switch {
		case c.Attr&attrCluster != 0:
			cl := e.t.clusters[c.Ch]
			if s.fold {
				s.buf = appendFolded(s.buf, cl)
			} else {
				s.buf = append(s.buf, cl...)
			}
		case c.Ch == 0:
			s.buf = append(s.buf, ' ')
		case c.Ch < 0x80:
			ch := byte(c.Ch)
			if s.fold {
				ch = lowerASCII[ch]
			}
			s.buf = append(s.buf, ch)
		default:
			r := c.Ch
			if s.fold {
				r = foldRune(r)
			}
			s.buf = utf8.AppendRune(s.buf, r)
		}
		for range len(s.buf) - before {
			s.col0 = append(s.col0, int32(x))
			s.col1 = append(s.col1, int32(x+w))
		}
	}
	return len(s.cells)
}

// appendEncASCII appends the text of an encoded scrollback line when it is
// plain ASCII (one byte per cell), straight from the encoding, and returns
// its cell count; ok is false for any other line (the caller decodes it).
func (s *searcher) appendEncASCII(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, true
	}
	b = b[1:]
	cells := 0
	for len(b) > 0 {
		mask := b[0]
		h := 1
		if mask&1 != 0 {
			h += 4
		}
		if mask&2 != 0 {
			h += 4
		}
		if mask&4 != 0 {
			h += 2
		}
		if mask&8 != 0 {
			h += 2
		}
		items := int(b[h]) | int(b[h+1])<<8
		b = b[h+2:]
		if len(b) < items {
			return 0, false
		}
		n := len(s.buf)
		s.buf = append(s.buf, b[:items]...)
		if !asciiText(s.buf[n:], s.fold) {
			return 0, false
		}
		b = b[items:]
		cells += items
	}
	return cells, true
}

// Text is the text from one position to another, End exclusive (see
// term.Finder); with lines, whole lines from from's line to to's, soft
// wraps followed to the logical lines' ends. Lines no
// longer kept are left out. Blank cells at the end of a line are trimmed
// where the line ends; a soft-wrapped line is joined to the next with its
// blanks up to the wrap, which are text.
func (e *Emulator) Text(from, to term.Pos, lines bool) string {
	if to.Less(from) {
		from, to = to, from
	}
	base := int(e.sb.dropped)
	total := e.sb.len() + e.rows
	k0, k1 := from.Line-base, to.Line-base
	if lines {
		from.Col, to.Col = 0, 1<<30
	}
	if k0 < 0 {
		k0, from.Col = 0, 0
	}
	if k1 >= total {
		k1, to.Col = total-1, 1<<30
	}
	if lines {
		// Whole lines are whole logical lines.
		for k0 > 0 && k0 < total && e.wrapsInto(k0-1) {
			k0--
		}
		for k1 >= 0 && k1 < total-1 && e.wrapsInto(k1) {
			k1++
		}
	}
	var b strings.Builder
	var cells []Cell
	for k := k0; k <= k1; k++ {
		cells, _ = e.physCells(cells[:0], k)
		c0, c1 := 0, 1<<30
		if k == k0 {
			c0 = from.Col
		}
		if k == k1 {
			c1 = to.Col
		}
		wrapped := k < k1 && e.wrapsInto(k)
		if wrapped {
			// Its blanks up to the wrap are text.
			pad := e.cols
			if len(cells) == e.cols-1 && e.startsWide(k+1) {
				pad = e.cols - 1
			}
			for len(cells) < pad {
				cells = append(cells, Cell{Ch: ' '})
			}
		}
		var line []byte
		for x := max(c0, 0); x < min(c1, len(cells)); x++ {
			c := &cells[x]
			if c.Attr&AttrWideCont != 0 {
				if x == c0 && x > 0 {
					// Starting on a wide character's right half takes it whole.
					line = e.t.appendContent(line, &cells[x-1])
				}
				continue
			}
			line = e.t.appendContent(line, c)
		}
		if !wrapped {
			line = bytes.TrimRight(line, " ")
		}
		b.Write(line)
		if !wrapped && k < k1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// asciiText makes p, copied from a scrollback run, text in place: a
// never-written cell (0) becomes a space and, with fold, upper-case
// letters lower case. It reports false when p is not all ASCII (the line
// has other characters; p is then garbage). Eight bytes at a time.
func asciiText(p []byte, fold bool) bool {
	const (
		lo = 0x0101010101010101
		hi = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(p); i += 8 {
		w := binary.LittleEndian.Uint64(p[i:])
		if w&hi != 0 {
			return false
		}
		if (w-lo)&^w&hi != 0 {
			// A zero byte: a cell never written, read as a space.
			for j := i; j < i+8; j++ {
				if p[j] == 0 {
					p[j] = ' '
				}
			}
			w = binary.LittleEndian.Uint64(p[i:])
		}
		if fold {
			// Bytes from 'A' to 'Z' get bit 5: with every byte below 0x80,
			// adding 0x3f sets bit 7 of those ≥ 'A', adding 0x25 of those
			// > 'Z', and no sum carries into the next byte.
			up := (w + 0x3f3f3f3f3f3f3f3f) &^ (w + 0x2525252525252525) & hi
			binary.LittleEndian.PutUint64(p[i:], w|up>>2)
		}
	}
	for ; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 0x80:
			return false
		case c == 0:
			p[i] = ' '
		case fold:
			p[i] = lowerASCII[c]
		}
	}
	return true
}
