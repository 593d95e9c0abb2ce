package vt

// SGR (Select Graphic Rendition, CSI … m): the pen's colours and attributes,
// in both the ';' and the ':' (sub-parameter) forms.

// sgr applies every parameter of p in turn.
func (e *Emulator) sgr(p *parser) {
	pen := &e.pen
	oldUL, oldLink := pen.ul, pen.link
	for i := 0; i <= p.np; i++ {
		v := p.params[i]
		// Constant cases: the compiler makes a jump table of this switch.
		switch v {
		case 0:
			pen.fg, pen.bg, pen.attr, pen.ul = 0, 0, 0, 0
		case 1:
			pen.attr |= AttrBold
		case 2:
			pen.attr |= AttrDim
		case 3:
			pen.attr |= AttrItalic
		case 4:
			style := Attr(1)
			if p.sub&(1<<i) != 0 && i < p.np {
				i++
				style = Attr(min(p.params[i], 5))
				for p.sub&(1<<i) != 0 && i < p.np {
					i++ // ignore further sub-parameters
				}
			}
			pen.attr = pen.attr&^AttrUnderlineMask | style<<attrULShift
		case 5:
			pen.attr |= AttrBlink
		case 6:
			pen.attr |= AttrRapidBlink
		case 7:
			pen.attr |= AttrInverse
		case 8:
			pen.attr |= AttrHidden
		case 9:
			pen.attr |= AttrStrike
		case 21:
			pen.attr = pen.attr&^AttrUnderlineMask | 2<<attrULShift
		case 22:
			pen.attr &^= AttrBold | AttrDim
		case 23:
			pen.attr &^= AttrItalic
		case 24:
			pen.attr &^= AttrUnderlineMask
		case 25:
			pen.attr &^= AttrBlink | AttrRapidBlink
		case 27:
			pen.attr &^= AttrInverse
		case 28:
			pen.attr &^= AttrHidden
		case 29:
			pen.attr &^= AttrStrike
		case 30, 31, 32, 33, 34, 35, 36, 37:
			pen.fg = BasicColor(uint8(v - 30))
		case 38, 48, 58:
			c, n := sgrColor(p, i)
			i += n
			if n > 0 && c != colorInvalid {
				switch v {
				case 38:
					pen.fg = c
				case 48:
					pen.bg = c
				default:
					pen.ul = c
				}
			}
		case 39:
			pen.fg = 0
		case 40, 41, 42, 43, 44, 45, 46, 47:
			pen.bg = BasicColor(uint8(v - 40))
		case 49:
			pen.bg = 0
		case 59:
			pen.ul = 0
		case 90, 91, 92, 93, 94, 95, 96, 97:
			pen.fg = BasicColor(uint8(v - 90 + 8))
		case 100, 101, 102, 103, 104, 105, 106, 107:
			pen.bg = BasicColor(uint8(v - 100 + 8))
		default:
			// unknown: skip its sub-parameters
			for p.sub&(1<<i) != 0 && i < p.np {
				i++
			}
		}
	}
	if pen.ul != oldUL || pen.link != oldLink {
		pen.ext = e.t.extra(extra{ul: pen.ul, link: pen.link})
	}
}

const colorInvalid Color = 0xffffffff

// sgrColor reads the colour after parameter i (38, 48 or 58) and returns it
// with the number of further parameters consumed.
func sgrColor(p *parser, i int) (Color, int) {
	if p.sub&(1<<i) != 0 {
		// Colon form: the sub-parameters of i.
		j := i
		for p.sub&(1<<j) != 0 && j < p.np {
			j++
		}
		sub := p.params[i+1 : j+1]
		n := j - i
		if len(sub) == 0 {
			return colorInvalid, n
		}
		switch sub[0] {
		case 5:
			if len(sub) >= 2 {
				return IndexedColor(uint8(min(sub[1], 255))), n
			}
		case 2:
			switch {
			case len(sub) >= 5: // 2:cs:r:g:b (cs may be empty)
				return RGBColor(uint8(sub[2]), uint8(sub[3]), uint8(sub[4])), n
			case len(sub) == 4: // 2:r:g:b
				return RGBColor(uint8(sub[1]), uint8(sub[2]), uint8(sub[3])), n
			}
		}
		return colorInvalid, n
	}
	if i+1 > p.np {
		return colorInvalid, 0
	}
	switch p.params[i+1] {
	case 5:
		if i+2 <= p.np {
			return IndexedColor(uint8(min(p.params[i+2], 255))), 2
		}
		return colorInvalid, 1
	case 2:
		if i+4 <= p.np {
			return RGBColor(uint8(p.params[i+2]), uint8(p.params[i+3]), uint8(p.params[i+4])), 4
		}
		return colorInvalid, p.np - i
	}
	return colorInvalid, 1
}
