package vt

import "encoding/binary"

// scrollback keeps the lines that scrolled off the normal screen in a compact
// encoding: trailing blanks trimmed, one style header per run of equally
// styled cells, then the run's characters as UTF-8. A line of 80 ASCII
// characters in a few colours takes ~100 bytes instead of 1280 as cells.
//
// The encoded lines live back to back in one byte arena used as a ring (a
// line never straddles the end: it starts over at 0), indexed by a ring of
// line records. The arena grows (by doubling, compacting the live lines)
// only when a new line does not fit, so once it is about twice the live size
// a full scrollback allocates nothing.
//
// Line encoding: flags byte (bit 0: wrapped), then runs. A run is a mask byte
// (bit 0 fg, 1 bg, 2 attr, 3 ext present), the present fields (fg, bg: 4
// bytes; attr, ext: 2 bytes; little endian), a 2-byte item count, and the
// items. An item is a character in UTF-8 (a wide one implies its covered
// cell), 0x00 for a never-written cell, or 0xFE/0xFF (narrow/wide) followed by
// a uvarint cluster id.
type scrollback struct {
	scratch []byte
	arena   []byte
	recs    []lineRec // ring; the oldest line is recs[head]
	head, n int
	w       int // arena offset just past the newest line
	limit   int
	// dropped counts the lines evicted from a full ring since the
	// emulator started; it never goes back.
	dropped uint64
}

type lineRec struct{ off, n uint32 }

// encFast enables the incremental and eager line encodings (tests switch it
// off to compare with the plain encoder).
var encFast = true

func (s *scrollback) len() int { return s.n }

func (s *scrollback) clear() {
	s.head, s.n, s.w = 0, 0, 0
}

func (s *scrollback) rec(i int) *lineRec {
	j := s.head + i
	if j >= len(s.recs) {
		j -= len(s.recs)
	}
	return &s.recs[j]
}

// at returns line i, 0 = oldest.
func (s *scrollback) at(i int) []byte {
	r := s.rec(i)
	return s.arena[r.off : r.off+r.n]
}

func (s *scrollback) push(ln *line) {
	if s.limit == 0 {
		return
	}
	if ln.encValid {
		s.pushEncoded(ln.enc)
		return
	}
	s.scratch = encodeLine(s.scratch[:0], ln.cells[:min(ln.used, len(ln.cells))], ln.wrapped)
	s.pushEncoded(s.scratch)
}

func (s *scrollback) pushEncoded(b []byte) {
	if s.n == s.limit {
		s.dropped++
		s.head++
		if s.head == len(s.recs) {
			s.head = 0
		}
		s.n--
	}
	off, ok := s.place(len(b))
	if !ok {
		s.grow(len(b))
		off, _ = s.place(len(b))
	}
	copy(s.arena[off:], b)
	s.w = off + len(b)
	r := lineRec{off: uint32(off), n: uint32(len(b))}
	if len(s.recs) < s.limit && s.n == len(s.recs) {
		// Still filling: the ring is contiguous from head 0.
		s.recs = append(s.recs, r)
	} else {
		*s.rec(s.n) = r
	}
	s.n++
}

// place finds room for n bytes after the newest line.
func (s *scrollback) place(n int) (int, bool) {
	if s.n == 0 {
		return 0, n <= len(s.arena)
	}
	oldest := int(s.rec(0).off)
	if s.w > oldest || (s.w == oldest && s.w == 0) {
		// Live bytes are [oldest, w): room at the end, else from 0.
		if n <= len(s.arena)-s.w {
			return s.w, true
		}
		return 0, n <= oldest
	}
	// Wrapped: live bytes are [oldest, end) and [0, w).
	return s.w, n <= oldest-s.w
}

// grow doubles the arena (at least enough for extra more bytes) and
// compacts the live lines to its start.
func (s *scrollback) grow(extra int) {
	live := 0
	for i := 0; i < s.n; i++ {
		live += int(s.rec(i).n)
	}
	size := max(2*(live+extra), len(s.arena)*2, 4096)
	na := make([]byte, size)
	nr := make([]lineRec, s.n, max(s.limit, s.n))
	off := 0
	for i := 0; i < s.n; i++ {
		r := s.rec(i)
		copy(na[off:], s.arena[r.off:r.off+r.n])
		nr[i] = lineRec{off: uint32(off), n: r.n}
		off += int(r.n)
	}
	s.arena, s.recs, s.head, s.w = na, nr, 0, off
	if len(s.recs) < cap(s.recs) && s.n == s.limit {
		s.recs = s.recs[:s.limit]
	}
}

// popNewest removes the newest line and returns a copy of it (for a screen
// that grows back into its scrollback).
func (s *scrollback) popNewest() []byte {
	if s.n == 0 {
		return nil
	}
	r := *s.rec(s.n - 1)
	b := append([]byte(nil), s.arena[r.off:r.off+r.n]...)
	s.n--
	if s.n == 0 {
		s.head, s.w = 0, 0
	} else {
		s.w = int(r.off)
	}
	return b
}

// bytes is the memory the scrollback holds.
func (s *scrollback) bytes() int {
	return cap(s.arena) + cap(s.recs)*8 + cap(s.scratch)
}

// encodeLine appends the encoding of cells to dst, writing with plain
// indexing into dst's spare capacity (grown once to the worst case).
func encodeLine(dst []byte, cells []Cell, wrapped bool) []byte {
	end := len(cells)
	for end > 0 && cells[end-1].trimmable() {
		end--
	}
	cells = cells[:end]
	// Worst case per cell: a run header (1+4+4+2+2+2) and a cluster (1+5).
	need := len(dst) + 1 + len(cells)*21
	if cap(dst) < need {
		nd := make([]byte, len(dst), need+need/4)
		copy(nd, dst)
		dst = nd
	}
	buf := dst[:cap(dst)]
	i := len(dst)
	if wrapped {
		buf[i] = 1
	} else {
		buf[i] = 0
	}
	i++
	if littleEndian {
		i = encodeCellsLE(buf, i, cells)
		return buf[:i]
	}
	var fg, bg Color
	var attr Attr
	var ext uint16
	countAt, count := -1, 0
	for x := 0; x < len(cells); x++ {
		c := &cells[x]
		if c.Fg != fg || c.Bg != bg || c.Attr&attrStyle != attr || c.Ext != ext || countAt < 0 {
			if countAt >= 0 {
				binary.LittleEndian.PutUint16(buf[countAt:], uint16(count))
			}
			fg, bg, attr, ext = c.Fg, c.Bg, c.Attr&attrStyle, c.Ext
			i = putRunHeader(buf, i, fg, bg, attr, ext)
			countAt, count = i, 0
			i += 2
		}
		count++
		if c.Attr&(attrCluster|AttrWide) == 0 && c.Ch < 0x80 {
			buf[i] = byte(c.Ch)
			i++
			continue
		}
		if c.Attr&attrCluster != 0 {
			m := byte(0xfe)
			if c.Attr&AttrWide != 0 {
				m = 0xff
			}
			buf[i] = m
			i++
			i += binary.PutUvarint(buf[i:], uint64(c.Ch))
		} else {
			i += len(appendRune(buf[i:i], c.Ch))
		}
		if c.Attr&AttrWide != 0 {
			x++
		}
	}
	if countAt >= 0 {
		binary.LittleEndian.PutUint16(buf[countAt:], uint16(count))
	}
	return buf[:i]
}

// encodeCellsLE is the loop of encodeLine reading each cell as two words
// (see fast.go): the style is word 0's top half and word 1 under styleMask.
func encodeCellsLE(buf []byte, i int, cells []Cell) int {
	words := cellWords(cells)
	var curFg, curStyle uint64
	countAt, count := -1, 0
	for x := 0; x < len(cells); x++ {
		w0, w1 := words[2*x], words[2*x+1]
		fg, style := w0>>32, w1&styleMask
		if fg != curFg || style != curStyle || countAt < 0 {
			if countAt >= 0 {
				binary.LittleEndian.PutUint16(buf[countAt:], uint16(count))
			}
			curFg, curStyle = fg, style
			i = putRunHeader(buf, i, Color(fg), Color(uint32(style)), Attr(style>>32), uint16(style>>48))
			countAt, count = i, 0
			i += 2
		}
		count++
		ch := uint32(w0)
		a := Attr(w1 >> 32)
		if a&(attrCluster|AttrWide) == 0 && ch < 0x80 {
			buf[i] = byte(ch)
			i++
			// The common case: more ASCII in the same style. Such a cell's
			// word 1 is exactly the style and word 0 differs from the
			// style's fg only in its low 7 bits.
			fgw := curFg << 32
			for x+1 < len(cells) {
				v0, v1 := words[2*x+2], words[2*x+3]
				if v1 != curStyle || v0^fgw >= 0x80 {
					break
				}
				buf[i] = byte(v0)
				i++
				x++
				count++
			}
			continue
		}
		if a&attrCluster != 0 {
			m := byte(0xfe)
			if a&AttrWide != 0 {
				m = 0xff
			}
			buf[i] = m
			i++
			i += binary.PutUvarint(buf[i:], uint64(ch))
		} else {
			i += len(appendRune(buf[i:i], rune(ch)))
		}
		if a&AttrWide != 0 {
			x++
		}
	}
	if countAt >= 0 {
		binary.LittleEndian.PutUint16(buf[countAt:], uint16(count))
	}
	return i
}

func putRunHeader(buf []byte, i int, fg, bg Color, attr Attr, ext uint16) int {
	mi := i
	i++
	mask := byte(0)
	if fg != 0 {
		mask |= 1
		binary.LittleEndian.PutUint32(buf[i:], uint32(fg))
		i += 4
	}
	if bg != 0 {
		mask |= 2
		binary.LittleEndian.PutUint32(buf[i:], uint32(bg))
		i += 4
	}
	if attr != 0 {
		mask |= 4
		binary.LittleEndian.PutUint16(buf[i:], uint16(attr))
		i += 2
	}
	if ext != 0 {
		mask |= 8
		binary.LittleEndian.PutUint16(buf[i:], ext)
		i += 2
	}
	buf[mi] = mask
	return i
}

// decodeLine appends the cells of an encoded line to dst.
func decodeLine(dst []Cell, b []byte) ([]Cell, bool) {
	if len(b) == 0 {
		return dst, false
	}
	wrapped := b[0]&1 != 0
	b = b[1:]
	for len(b) > 0 {
		mask := b[0]
		b = b[1:]
		var tmpl Cell
		if mask&1 != 0 {
			tmpl.Fg = Color(binary.LittleEndian.Uint32(b))
			b = b[4:]
		}
		if mask&2 != 0 {
			tmpl.Bg = Color(binary.LittleEndian.Uint32(b))
			b = b[4:]
		}
		if mask&4 != 0 {
			tmpl.Attr = Attr(binary.LittleEndian.Uint16(b))
			b = b[2:]
		}
		if mask&8 != 0 {
			tmpl.Ext = binary.LittleEndian.Uint16(b)
			b = b[2:]
		}
		items := binary.LittleEndian.Uint16(b)
		b = b[2:]
		for ; items > 0; items-- {
			c := tmpl
			wide := false
			switch {
			case b[0] >= 0xfe:
				wide = b[0] == 0xff
				id, n := binary.Uvarint(b[1:])
				c.Ch = rune(id)
				c.Attr |= attrCluster
				b = b[1+n:]
			case b[0] < 0x80:
				c.Ch = rune(b[0])
				b = b[1:]
			default:
				r, n := decodeRune(b)
				c.Ch = r
				b = b[n:]
				wide = runeWidth(r) == 2
			}
			if wide {
				c.Attr |= AttrWide
				dst = append(dst, c)
				c.Ch = 0
				c.Attr = c.Attr&^(AttrWide|attrCluster) | AttrWideCont
			}
			dst = append(dst, c)
		}
	}
	return dst, wrapped
}

func decodeRune(b []byte) (rune, int) {
	switch {
	case b[0] < 0xe0:
		return rune(b[0]&0x1f)<<6 | rune(b[1]&0x3f), 2
	case b[0] < 0xf0:
		return rune(b[0]&0x0f)<<12 | rune(b[1]&0x3f)<<6 | rune(b[2]&0x3f), 3
	default:
		return rune(b[0]&0x07)<<18 | rune(b[1]&0x3f)<<12 | rune(b[2]&0x3f)<<6 | rune(b[3]&0x3f), 4
	}
}

// encAppend extends the line's encoding with cells [x, x+n), just written,
// when they continue it; any other change makes the encoding stale.
func (ln *line) encAppend(x, n int) {
	if !ln.encValid {
		return
	}
	if x != ln.inc.cells || !littleEndian || !encFast {
		ln.encValid = false
		return
	}
	cells := ln.cells[x : x+n]
	words := cellWords(cells)
	st := &ln.inc
	// Room for the worst case: a run header and a cluster per cell.
	if need := len(ln.enc) + n*21; cap(ln.enc) < need {
		nb := make([]byte, len(ln.enc), need+need/2)
		copy(nb, ln.enc)
		ln.enc = nb
	}
	buf := ln.enc[:cap(ln.enc)]
	i := len(ln.enc)
	for k := 0; k < len(cells); k++ {
		w0, w1 := words[2*k], words[2*k+1]
		fg, style := w0>>32, w1&styleMask
		if st.countAt < 0 || fg != st.fg || style != st.style {
			if st.countAt >= 0 {
				binary.LittleEndian.PutUint16(buf[st.countAt:], uint16(st.count))
			}
			st.fg, st.style = fg, style
			i = putRunHeader(buf, i, Color(fg), Color(uint32(style)), Attr(style>>32), uint16(style>>48))
			st.countAt, st.count = i, 0
			i += 2
		}
		st.count++
		ch := uint32(w0)
		a := Attr(w1 >> 32)
		switch {
		case a&(attrCluster|AttrWide) == 0 && ch < 0x80:
			buf[i] = byte(ch)
			i++
		case a&attrCluster != 0:
			m := byte(0xfe)
			if a&AttrWide != 0 {
				m = 0xff
			}
			buf[i] = m
			i++
			i += binary.PutUvarint(buf[i:], uint64(ch))
		default:
			i += len(appendRune(buf[i:i], rune(ch)))
		}
		if a&AttrWide != 0 {
			k++
		}
	}
	binary.LittleEndian.PutUint16(buf[st.countAt:], uint16(st.count))
	ln.enc = buf[:i]
	st.cells = x + n
}

// encAppendASCII is encAppend for a run of printable ASCII just written at
// x in one style: the bytes are copied from the input, the cells not read.
func (ln *line) encAppendASCII(x int, run []byte, fg Color, bg Color, attr Attr, ext uint16) {
	if !ln.encValid {
		return
	}
	if x != ln.inc.cells || !littleEndian || !encFast {
		ln.encValid = false
		return
	}
	st := &ln.inc
	if need := len(ln.enc) + len(run) + 16; cap(ln.enc) < need {
		nb := make([]byte, len(ln.enc), need+need/2+64)
		copy(nb, ln.enc)
		ln.enc = nb
	}
	buf := ln.enc[:cap(ln.enc)]
	i := len(ln.enc)
	wfg := uint64(fg)
	style := uint64(bg) | uint64(attr)<<32 | uint64(ext)<<48
	if st.countAt < 0 || wfg != st.fg || style != st.style {
		if st.countAt >= 0 {
			binary.LittleEndian.PutUint16(buf[st.countAt:], uint16(st.count))
		}
		st.fg, st.style = wfg, style
		i = putRunHeader(buf, i, fg, bg, attr, ext)
		st.countAt, st.count = i, 0
		i += 2
	}
	i += copy(buf[i:], run)
	st.count += len(run)
	binary.LittleEndian.PutUint16(buf[st.countAt:], uint16(st.count))
	ln.enc = buf[:i]
	st.cells = x + len(run)
}
