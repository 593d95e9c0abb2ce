package vt

import (
	"strconv"
)

// fuzzStream turns arbitrary fuzz bytes into a terminal stream: each byte
// picks a token (text, wide characters, combining marks, controls, CSI and
// ESC sequences), later bytes give its arguments. Screen size is 20×8, small
// enough that wrapping, scrolling and margins are hit constantly.
const fuzzCols, fuzzRows = 20, 8

var fuzzWide = []string{"漢", "字", "ｶ", "😀", "한"}
var fuzzNarrow = []string{"é", "λ", "─", "→", "ß"}

// With xvtSafe the stream steers clear of the x/vt bugs listed in
// docs/EMULATOR.md (each pinned by TestXVTBug*): no NEL, IRM or DECOM, no
// explicit 0 counts, a home after switching screens, combining marks only
// right after a character, and no wide character where only one column is
// left (a shadow emulator tells where the cursor is).
func fuzzStream(in []byte, xvtSafe bool) []byte {
	var out []byte
	var shadow *Emulator
	if xvtSafe {
		shadow = New(fuzzCols, fuzzRows)
	}
	printed, ascii, marks := false, false, 0
	next := func() int {
		if len(in) == 0 {
			return 0
		}
		b := in[0]
		in = in[1:]
		return int(b)
	}
	num := func(n int) []byte { return strconv.AppendInt(nil, int64(n), 10) }
	for len(in) > 0 {
		tok := next() % 30
		start := len(out)
		if xvtSafe && shadow.wrapPending && !(tok <= 10 || tok == 23 || tok == 24 || tok == 28) {
			// x/vt keeps a pending wrap through most sequences that end it.
			continue
		}
		if xvtSafe {
			switch tok {
			case 26, 27:
				continue
			case 14:
				if shadow.top != 0 {
					continue
				}
			case 9:
				// Marks only after a character, and few enough to stay under
				// the cluster cap (maxClusterLen), which x/vt does not have.
				if !printed || marks >= 8 {
					continue
				}
			case 7:
				if shadow.x >= fuzzCols-2 && !shadow.wrapPending {
					continue
				}
				if !shadow.wrapPending && shadow.Cell(shadow.x+1, shadow.y).Attr&AttrWide != 0 {
					continue
				}
			case 13:
				if shadow.wrapPending {
					continue
				}
			case 21:
				if shadow.wrapPending || shadow.saved[shadow.screenIndex()].wrapPending {
					continue // x/vt's DECSC does not keep a pending wrap
				}
			case 22:
				if shadow.y < shadow.top || shadow.y > shadow.bot {
					continue
				}
			case 28:
				if !ascii {
					continue
				}
			case 11, 12:
				if shadow.wrapPending || shadow.pen.bg != 0 {
					continue
				}
			}
		}
		printed = tok <= 2 || tok == 7 || tok == 8 || tok == 9
		ascii = tok <= 2
		if tok == 9 {
			marks++
		} else {
			marks = 0
		}
		switch tok {
		case 0, 1, 2:
			n := 1 + next()%12
			for i := 0; i < n; i++ {
				out = append(out, byte('a'+(i+tok)%26))
			}
		case 3:
			out = append(out, "\r\n"...)
		case 4:
			out = append(out, '\r')
		case 5:
			out = append(out, '\n')
		case 6:
			out = append(out, "\x1b["...)
			out = append(out, num(1+next()%(fuzzRows+1))...)
			out = append(out, ';')
			out = append(out, num(1+next()%(fuzzCols+1))...)
			out = append(out, 'H')
		case 7:
			out = append(out, fuzzWide[next()%len(fuzzWide)]...)
		case 8:
			out = append(out, fuzzNarrow[next()%len(fuzzNarrow)]...)
		case 9:
			out = append(out, "\u0301"...)
		case 10:
			sgr := []string{"0", "1", "4", "7", "31", "42", "38;5;99", "48;2;1;2;3", "4:3", "58;5;2", "22", "24", "27", "39", "49", "9", "3", "2"}
			out = append(out, "\x1b["+sgr[next()%len(sgr)]+"m"...)
		case 11:
			out = append(out, "\x1b["...)
			out = append(out, num(next()%3)...)
			out = append(out, 'K')
		case 12:
			n := next() % 3
			if xvtSafe && n == 1 {
				n = 2
			}
			out = append(out, "\x1b["...)
			out = append(out, num(n)...)
			out = append(out, 'J')
		case 13:
			op := "@PX"[next()%3]
			if xvtSafe && op != 'X' {
				for x := max(shadow.x-1, 0); x < fuzzCols; x++ {
					if shadow.Cell(x, shadow.y).Attr&(AttrWide|AttrWideCont) != 0 {
						op = 'X'
					}
				}
			}
			if xvtSafe && (shadow.y < shadow.top || shadow.y > shadow.bot) {
				op = 'X'
			}
			out = append(out, "\x1b["...)
			out = append(out, num(1+next()%4)...)
			out = append(out, op)
		case 14:
			out = append(out, "\x1b["...)
			out = append(out, num(1+next()%3)...)
			out = append(out, "LM"[next()%2])
		case 15:
			top := 1 + next()%fuzzRows
			bot := 1 + next()%fuzzRows
			out = append(out, "\x1b["...)
			out = append(out, num(top)...)
			out = append(out, ';')
			out = append(out, num(bot)...)
			out = append(out, 'r')
		case 16:
			out = append(out, "\x1b[r"...)
		case 17:
			out = append(out, "\x1b["...)
			out = append(out, num(1+next()%3)...)
			out = append(out, "ST"[next()%2])
		case 18:
			k := next() % 3
			if xvtSafe && k == 2 {
				k = 1
			}
			out = append(out, "\x1bM\x1bD\x1bE"[k*2:][:2]...)
		case 19:
			out = append(out, []string{"\t", "\x1bH", "\x1b[g", "\x1b[3g", "\x1b[2I", "\x1b[Z"}[next()%6]...)
		case 20:
			out = append(out, '\b')
		case 21:
			out = append(out, []string{"\x1b7", "\x1b8"}[next()%2]...)
		case 22:
			n := next() % 5
			if xvtSafe {
				n = max(n, 1)
			}
			out = append(out, "\x1b["...)
			out = append(out, num(n)...)
			out = append(out, "ABCDEFGd`"[next()%9])
		case 23:
			on := next()%2 == 0
			if xvtSafe && on == shadow.alt {
				break
			}
			out = append(out, []string{"\x1b[?1049l", "\x1b[?1049h"}[b2i(on)]...)
			if xvtSafe {
				out = append(out, "\x1b[r\x1b[H"...)
			}
		case 24:
			if xvtSafe {
				// Kept to one token so that no DECSC sees the set.
				out = append(out, "\x1b(0lqk\x1b(B"...)
				break
			}
			out = append(out, []string{"\x1b(0", "\x1b(B"}[next()%2]...)
		case 25:
			out = append(out, []string{"\x1b[?7l", "\x1b[?7h"}[next()%2]...)
		case 26:
			out = append(out, []string{"\x1b[?6h", "\x1b[?6l"}[next()%2]...)
		case 27:
			out = append(out, []string{"\x1b[4h", "\x1b[4l"}[next()%2]...)
		case 28:
			out = append(out, "\x1b["...)
			out = append(out, num(1+next()%5)...)
			out = append(out, 'b')
		case 29:
			k := next() % 8
			if xvtSafe && (k == 7 || k == 3 || k == 4) {
				k = 6
			}
			out = append(out, []string{"\x1b]2;t\a", "\x1b]8;;u\x1b\\", "\x1b]8;;\x1b\\", "\x1b[?25l", "\x1b[?25h", "\x1b[6n", "\x1bc", "\x1b[!p"}[k]...)
		}
		if xvtSafe {
			_, _ = shadow.Write(out[start:])
		}
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
