package vt

import "encoding/binary"

// scrollback keeps the lines that scrolled off the normal screen in a compact
// encoding: trailing blanks trimmed, one style header per run of equally
// styled cells, then the run's characters as UTF-8. A line of 80 ASCII
// characters in a few colours takes ~120 bytes instead of 1280 as cells. The
// slots form a ring and a slot's buffer is reused when the oldest line is
// dropped, so a full scrollback allocates nothing.
//
// Line encoding: flags byte (bit 0: wrapped), then runs. A run is a mask byte
// (bit 0 fg, 1 bg, 2 attr, 3 ext present), the present fields (fg, bg: 4
// bytes; attr, ext: 2 bytes; little endian), a uvarint item count, and the
// items. An item is a character in UTF-8 (a wide one implies its covered
// cell), 0x00 for a never-written cell, or 0xFE/0xFF (narrow/wide) followed by
// a uvarint cluster id.
type scrollback struct {
	lines [][]byte
	head  int // index of the oldest line when full
	limit int
}

func (s *scrollback) len() int { return len(s.lines) }

func (s *scrollback) clear() {
	for i := range s.lines {
		s.lines[i] = s.lines[i][:0]
	}
	// Keep the buffers for reuse: move them past len by reslicing to zero
	// while keeping capacity of the slot slice.
	s.lines = s.lines[:0]
	s.head = 0
}

// at returns line i, 0 = oldest.
func (s *scrollback) at(i int) []byte {
	j := s.head + i
	if j >= len(s.lines) {
		j -= len(s.lines)
	}
	return s.lines[j]
}

// slot returns a buffer for a new newest line, reusing the oldest when full.
func (s *scrollback) slot() *[]byte {
	if len(s.lines) < s.limit {
		if len(s.lines) < cap(s.lines) {
			s.lines = s.lines[:len(s.lines)+1]
			b := &s.lines[len(s.lines)-1]
			*b = (*b)[:0]
			return b
		}
		s.lines = append(s.lines, nil)
		return &s.lines[len(s.lines)-1]
	}
	b := &s.lines[s.head]
	s.head++
	if s.head == len(s.lines) {
		s.head = 0
	}
	*b = (*b)[:0]
	return b
}

// popNewest removes and returns the newest line (for a screen that grows).
func (s *scrollback) popNewest() []byte {
	n := len(s.lines)
	if n == 0 {
		return nil
	}
	if s.head == 0 {
		b := s.lines[n-1]
		s.lines = s.lines[:n-1]
		return b
	}
	// Full ring: the newest is just before head. Rotate so head is 0.
	rot := make([][]byte, 0, n)
	rot = append(rot, s.lines[s.head:]...)
	rot = append(rot, s.lines[:s.head]...)
	s.lines, s.head = rot, 0
	b := s.lines[n-1]
	s.lines = s.lines[:n-1]
	return b
}

func (s *scrollback) push(ln *line, t *tables) {
	if s.limit == 0 {
		return
	}
	b := s.slot()
	*b = encodeLine((*b)[:0], ln.cells, ln.wrapped, t)
}

// bytes is the memory the scrollback holds: buffers plus slot headers.
func (s *scrollback) bytes() int {
	n := cap(s.lines) * 24
	for _, l := range s.lines[:cap(s.lines)] {
		n += cap(l)
	}
	return n
}

func encodeLine(dst []byte, cells []Cell, wrapped bool, t *tables) []byte {
	end := len(cells)
	for end > 0 && cells[end-1].trimmable() {
		end--
	}
	flags := byte(0)
	if wrapped {
		flags = 1
	}
	dst = append(dst, flags)
	for x := 0; x < end; {
		c := &cells[x]
		fg, bg, attr, ext := c.Fg, c.Bg, c.Attr&attrStyle, c.Ext
		// Count items of this run.
		items := 0
		y := x
		for y < end {
			d := &cells[y]
			if d.Fg != fg || d.Bg != bg || d.Attr&attrStyle != attr || d.Ext != ext {
				break
			}
			if d.Attr&AttrWide != 0 {
				y++ // its covered cell
			}
			y++
			items++
		}
		mask := byte(0)
		if fg != 0 {
			mask |= 1
		}
		if bg != 0 {
			mask |= 2
		}
		if attr != 0 {
			mask |= 4
		}
		if ext != 0 {
			mask |= 8
		}
		dst = append(dst, mask)
		if fg != 0 {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(fg))
		}
		if bg != 0 {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(bg))
		}
		if attr != 0 {
			dst = binary.LittleEndian.AppendUint16(dst, uint16(attr))
		}
		if ext != 0 {
			dst = binary.LittleEndian.AppendUint16(dst, ext)
		}
		dst = binary.AppendUvarint(dst, uint64(items))
		for x < y {
			d := &cells[x]
			switch {
			case d.Attr&attrCluster != 0:
				m := byte(0xfe)
				if d.Attr&AttrWide != 0 {
					m = 0xff
				}
				dst = append(dst, m)
				dst = binary.AppendUvarint(dst, uint64(d.Ch))
			case d.Ch < 0x80:
				dst = append(dst, byte(d.Ch))
			default:
				dst = appendRune(dst, d.Ch)
			}
			if d.Attr&AttrWide != 0 {
				x++
			}
			x++
		}
	}
	return dst
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
		items, n := binary.Uvarint(b)
		b = b[n:]
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
