package term

// RGB is a colour as terminals report it: 16 bits a channel (an 8-bit
// channel v is v*0x101).
type RGB struct{ R, G, B uint16 }

// RGB8 is the colour of 8-bit channels.
func RGB8(r, g, b uint8) RGB { return RGB{uint16(r) * 0x101, uint16(g) * 0x101, uint16(b) * 0x101} }

// AppendX11 appends the colour in the form xterm answers a colour query
// with: rgb:rrrr/gggg/bbbb.
func (c RGB) AppendX11(dst []byte) []byte {
	dst = append(dst, "rgb:"...)
	dst = appendHex4(dst, c.R)
	dst = append(dst, '/')
	dst = appendHex4(dst, c.G)
	dst = append(dst, '/')
	return appendHex4(dst, c.B)
}

func appendHex4(dst []byte, v uint16) []byte {
	const digits = "0123456789abcdef"
	return append(dst, digits[v>>12], digits[v>>8&15], digits[v>>4&15], digits[v&15])
}

// Colors are what a pane's terminal answers colour queries with (OSC 10,
// 11, 12 and OSC 4): the outer terminal's, as an attached screen reports
// them, else DefaultColors.
type Colors struct {
	Fg, Bg, Cursor RGB
	// Palette is ANSI colours 0–15; 16–255 are xterm's cube and grey ramp
	// (PaletteColor).
	Palette [16]RGB
}

// xterm16 is xterm's default 16-colour palette.
var xterm16 = [16]RGB{
	RGB8(0x00, 0x00, 0x00), RGB8(0xcd, 0x00, 0x00), RGB8(0x00, 0xcd, 0x00), RGB8(0xcd, 0xcd, 0x00),
	RGB8(0x00, 0x00, 0xee), RGB8(0xcd, 0x00, 0xcd), RGB8(0x00, 0xcd, 0xcd), RGB8(0xe5, 0xe5, 0xe5),
	RGB8(0x7f, 0x7f, 0x7f), RGB8(0xff, 0x00, 0x00), RGB8(0x00, 0xff, 0x00), RGB8(0xff, 0xff, 0x00),
	RGB8(0x5c, 0x5c, 0xff), RGB8(0xff, 0x00, 0xff), RGB8(0x00, 0xff, 0xff), RGB8(0xff, 0xff, 0xff),
}

// DefaultColors are the colours of a pane while no attached screen has
// reported its terminal's: white text on black, a white cursor,
// xterm's palette. Most terminals today default to a dark background, and
// a program told "dark" on a light terminal stays readable, while the
// reverse (dark text on a dark screen) does not.
func DefaultColors() Colors {
	return Colors{Fg: RGB8(0xff, 0xff, 0xff), Bg: RGB8(0, 0, 0), Cursor: RGB8(0xff, 0xff, 0xff), Palette: xterm16}
}

// PaletteColor is colour i (0–255) of the palette: c.Palette for 0–15,
// xterm's 6×6×6 cube for 16–231 and its grey ramp for 232–255.
func (c *Colors) PaletteColor(i int) RGB {
	switch {
	case i < 16:
		return c.Palette[max(i, 0)]
	case i < 232:
		i -= 16
		level := func(v int) uint8 {
			if v == 0 {
				return 0
			}
			return uint8(55 + 40*v)
		}
		return RGB8(level(i/36), level(i/6%6), level(i%6))
	default:
		g := uint8(8 + 10*(min(i, 255)-232))
		return RGB8(g, g, g)
	}
}

// ParseX11 parses a colour as terminals answer a query: rgb:r/g/b with 1–4
// hex digits a channel (scaled to 16 bits), or #rgb, #rrggbb, #rrrgggbbb,
// #rrrrggggbbbb.
func ParseX11(s string) (RGB, bool) {
	var ch [3]string
	switch {
	case len(s) > 4 && (s[:4] == "rgb:" || s[:4] == "RGB:"):
		rest := s[4:]
		for i := range 3 {
			j := 0
			for j < len(rest) && rest[j] != '/' {
				j++
			}
			ch[i] = rest[:j]
			if i < 2 {
				if j == len(rest) {
					return RGB{}, false
				}
				rest = rest[j+1:]
			} else if j != len(rest) {
				return RGB{}, false
			}
		}
	case len(s) > 1 && s[0] == '#' && (len(s)-1)%3 == 0 && len(s)-1 <= 12:
		n := (len(s) - 1) / 3
		for i := range 3 {
			ch[i] = s[1+i*n : 1+(i+1)*n]
		}
	default:
		return RGB{}, false
	}
	var v [3]uint16
	for i, h := range ch {
		if len(h) == 0 || len(h) > 4 {
			return RGB{}, false
		}
		x := 0
		for _, b := range []byte(h) {
			switch {
			case b >= '0' && b <= '9':
				x = x<<4 | int(b-'0')
			case b >= 'a' && b <= 'f':
				x = x<<4 | int(b-'a'+10)
			case b >= 'A' && b <= 'F':
				x = x<<4 | int(b-'A'+10)
			default:
				return RGB{}, false
			}
		}
		// Scale n hex digits to 16 bits as X11 does: 0xf → 0xffff.
		maxv := 1<<(4*len(h)) - 1
		v[i] = uint16((x*0xffff + maxv/2) / maxv)
	}
	return RGB{v[0], v[1], v[2]}, true
}

// ColorSetter is implemented by an emulator that answers colour queries
// with the colours it is given (panes/vt does).
type ColorSetter interface {
	SetColors(Colors)
}
