package vt

import (
	"slices"
	"strconv"
)

// AppendLine appends visible row (0 ≤ row < rows) to dst: plain text, or with
// styled the canonical form of docs/EMULATOR.md ("Rendering"): a full SGR
// "ESC[0;…m" wherever the style changes, OSC 8 wherever the hyperlink
// changes, and a reset at the end when anything is open. Trailing blank
// cells with nothing visible on them are trimmed; a wide character's covered
// cell is not written. With a reused dst it allocates nothing.
func (e *Emulator) AppendLine(dst []byte, row int, styled bool) []byte {
	if row < 0 || row >= e.rows {
		return dst
	}
	ln := e.scr.row(row)
	return e.appendCells(dst, ln.cells[:min(ln.used, len(ln.cells))], styled)
}

// ScrollbackLen is the number of lines kept above the normal screen.
func (e *Emulator) ScrollbackLen() int { return e.sb.len() }

// ScrollbackDropped counts the lines a full scrollback let go of, oldest
// first, since the emulator started.
func (e *Emulator) ScrollbackDropped() uint64 { return e.sb.dropped }

// AppendScrollback appends scrollback line i (0 = oldest) to dst, in the
// same form as AppendLine.
func (e *Emulator) AppendScrollback(dst []byte, i int, styled bool) []byte {
	if i < 0 || i >= e.sb.len() {
		return dst
	}
	e.cellsBuf, _ = decodeLine(e.cellsBuf[:0], e.sb.at(i))
	return e.appendCells(dst, e.cellsBuf, styled)
}

// ScrollbackWrapped reports whether scrollback line i continues on the next
// line because the text autowrapped.
func (e *Emulator) ScrollbackWrapped(i int) bool {
	if i < 0 || i >= e.sb.len() {
		return false
	}
	b := e.sb.at(i)
	return len(b) > 0 && b[0]&1 != 0
}

// ScrollbackBytes is the memory the scrollback holds.
func (e *Emulator) ScrollbackBytes() int { return e.sb.bytes() }

func (e *Emulator) appendCells(dst []byte, cells []Cell, styled bool) []byte {
	end := len(cells)
	for end > 0 && cells[end-1].trimmable() {
		end--
	}
	if !styled {
		if littleEndian && end > 0 {
			words := cellWords(cells[:end])
			for x := 0; x < end; x++ {
				c := &cells[x]
				switch {
				case c.Attr&(AttrWideCont|attrCluster) == 0 && c.Ch < 0x80:
					// Any style: plain text only wants the characters.
					var n int
					dst, n = appendASCIIRun(dst, words, x, end, uint64(c.Fg)<<32, words[2*x+1])
					x += n - 1
				case c.Attr&AttrWideCont != 0:
				default:
					dst = e.t.appendContent(dst, c)
				}
			}
			return dst
		}
		for x := 0; x < end; x++ {
			c := &cells[x]
			switch {
			case c.Attr&(AttrWideCont|attrCluster) == 0 && c.Ch < 0x80:
				if c.Ch == 0 {
					dst = append(dst, ' ')
				} else {
					dst = append(dst, byte(c.Ch))
				}
			case c.Attr&AttrWideCont != 0:
			default:
				dst = e.t.appendContent(dst, c)
			}
		}
		return dst
	}
	var fg, bg Color
	var attr Attr
	var ul Color
	var lnk uint16
	var ext uint16
	open := false
	var words []uint64
	if littleEndian {
		words = cellWords(cells[:end])
	}
	for x := 0; x < end; x++ {
		c := &cells[x]
		if c.Attr&AttrWideCont != 0 {
			continue
		}
		a := c.Attr & attrStyle
		if c.Fg != fg || c.Bg != bg || a != attr || c.Ext != ext {
			var cul Color
			var clink uint16
			if c.Ext != 0 {
				xt := e.t.extras[c.Ext]
				cul, clink = xt.ul, xt.link
			}
			if c.Fg != fg || c.Bg != bg || a != attr || cul != ul {
				fg, bg, attr, ul = c.Fg, c.Bg, a, cul
				dst = appendSGR(dst, fg, bg, attr, ul)
				open = fg != 0 || bg != 0 || attr != 0 || ul != 0
			}
			if clink != lnk {
				lnk = clink
				l := e.t.links[lnk]
				dst = append(dst, "\x1b]8;"...)
				dst = append(dst, l.params...)
				dst = append(dst, ';')
				dst = append(dst, l.url...)
				dst = append(dst, "\x1b\\"...)
			}
			ext = c.Ext
		}
		if c.Attr&attrCluster == 0 && c.Ch < 0x80 {
			if c.Ch == 0 {
				dst = append(dst, ' ')
			} else {
				dst = append(dst, byte(c.Ch))
			}
			if words != nil {
				// More plain ASCII cells in the same style: copy their
				// bytes without looking at them field by field.
				var n int
				dst, n = appendASCIIRun(dst, words, x+1, end, uint64(fg)<<32, uint64(bg)|uint64(attr)<<32|uint64(ext)<<48)
				x += n
			}
		} else {
			dst = e.t.appendContent(dst, c)
		}
	}
	if lnk != 0 {
		dst = append(dst, "\x1b]8;;\x1b\\"...)
	}
	if open {
		dst = append(dst, "\x1b[0m"...)
	}
	return dst
}

// appendSGR writes the canonical SGR for a style: ESC[0, the attributes in
// numeric order (underline as 4 or 4:n), fg, bg, underline colour, 'm'.
func appendSGR(dst []byte, fg, bg Color, attr Attr, ul Color) []byte {
	dst = append(dst, "\x1b[0"...)
	if attr != 0 {
		if attr&AttrBold != 0 {
			dst = append(dst, ";1"...)
		}
		if attr&AttrDim != 0 {
			dst = append(dst, ";2"...)
		}
		if attr&AttrItalic != 0 {
			dst = append(dst, ";3"...)
		}
		switch u := attr.Underline(); u {
		case 0:
		case 1:
			dst = append(dst, ";4"...)
		default:
			dst = append(dst, ";4:"...)
			dst = append(dst, byte('0'+u))
		}
		if attr&AttrBlink != 0 {
			dst = append(dst, ";5"...)
		}
		if attr&AttrRapidBlink != 0 {
			dst = append(dst, ";6"...)
		}
		if attr&AttrInverse != 0 {
			dst = append(dst, ";7"...)
		}
		if attr&AttrHidden != 0 {
			dst = append(dst, ";8"...)
		}
		if attr&AttrStrike != 0 {
			dst = append(dst, ";9"...)
		}
	}
	dst = appendColor(dst, fg, 30)
	dst = appendColor(dst, bg, 40)
	dst = appendColor(dst, ul, 50)
	return append(dst, 'm')
}

func appendColor(dst []byte, c Color, base int) []byte {
	v := int64(c.Value())
	switch c.Kind() {
	case 1:
		if base == 50 {
			dst = append(dst, ";58;5;"...)
			return appendDec(dst, v)
		}
		dst = append(dst, ';')
		if v < 8 {
			return appendDec(dst, int64(base)+v)
		}
		return appendDec(dst, int64(base)+60+v-8)
	case 2:
		dst = append(dst, ';')
		dst = appendDec(dst, int64(base)+8)
		dst = append(dst, ";5;"...)
		return appendDec(dst, v)
	case 3:
		dst = append(dst, ';')
		dst = appendDec(dst, int64(base)+8)
		dst = append(dst, ";2;"...)
		dst = appendDec(dst, v>>16)
		dst = append(dst, ';')
		dst = appendDec(dst, v>>8&0xff)
		dst = append(dst, ';')
		return appendDec(dst, v&0xff)
	}
	return dst
}

// appendASCIIRun appends the characters of cells x, x+1, … (up to end) while
// they are plain ASCII cells whose words are exactly (fgw|ch, style), and
// returns how many it took. A never-written cell (Ch 0) is a space.
func appendASCIIRun(dst []byte, words []uint64, x, end int, fgw, style uint64) ([]byte, int) {
	n := len(dst)
	dst = slices.Grow(dst, end-x)
	buf := dst[n : n+end-x]
	k := 0
	for ; x < end; x++ {
		v0, v1 := words[2*x], words[2*x+1]
		if v1 != style || v0^fgw >= 0x80 {
			break
		}
		b := byte(v0)
		if b == 0 {
			b = ' '
		}
		buf[k] = b
		k++
	}
	return dst[:n+k], k
}

// appendDec appends v in decimal. SGR output is made of numbers 0..255,
// written digit by digit: no table to build at init (every command of the
// binary would pay for it) and no call into strconv.
func appendDec(dst []byte, v int64) []byte {
	switch {
	case v >= 0 && v < 10:
		return append(dst, byte('0'+v))
	case v >= 10 && v < 100:
		return append(dst, byte('0'+v/10), byte('0'+v%10))
	case v >= 100 && v < 256:
		return append(dst, byte('0'+v/100), byte('0'+v/10%10), byte('0'+v%10))
	}
	return strconv.AppendInt(dst, v, 10)
}
