package vt

import (
	"math/rand/v2"
	"strconv"
)

// The stream generators make the deterministic workloads the benchmarks and
// the differential tests feed: same size and seed, same bytes, on every
// machine. Nothing here is committed as data; streams are made on demand.

// genSeed is the fixed seed of both generators.
const genSeed = 0x636f636b706974 // "cockpit"

var (
	genWords = []string{"info", "debug", "warn", "error", "request", "handled", "in", "ms",
		"user", "session", "cache", "miss", "hit", "worker", "started", "stopped", "GET", "POST",
		"/api/v1/items", "status=200", "status=500", "bytes=4096", "retry", "timeout", "ok",
		"compile", "package", "test", "PASS", "FAIL", "func", "return", "nil", "err"}
	genWide   = []string{"漢", "字", "日", "本", "語", "中", "文", "한", "국", "어", "ｶ", "テ", "ス", "ト"}
	genNarrow = []string{"é", "ü", "ñ", "ß", "ø", "λ", "π", "Ж", "я", "→", "✓", "✗", "…", "°", "€", "│", "─"}
)

// GenLog returns about size bytes of log-like output for a 200-column
// terminal: CRLF lines of 20–240 columns (so ~18% wrap at 200), ~10% of the
// characters non-ASCII (a third of those wide CJK), ~2.8 SGR sequences per
// line in 16, 256 and truecolour (~840k in 50 MB), ~1% of lines rewritten
// with cursor moves and erases, and now and then a scroll region.
func GenLog(size int) []byte {
	rng := rand.New(rand.NewPCG(genSeed, 1))
	out := make([]byte, 0, size+512)
	lineNo := 0
	for len(out) < size {
		lineNo++
		width := 20 + rng.IntN(221)
		col := 0
		sgrs := 0
		for col < width {
			switch r := rng.IntN(100); {
			case r < 3 && sgrs < 6:
				out = appendRandomSGR(out, rng)
				sgrs++
			case r < 5:
				out = append(out, genWide[rng.IntN(len(genWide))]...)
				col += 2
			case r < 10:
				out = append(out, genNarrow[rng.IntN(len(genNarrow))]...)
				col++
			default:
				w := genWords[rng.IntN(len(genWords))]
				if col+len(w)+1 > width {
					w = w[:min(len(w), width-col)]
				}
				out = append(out, w...)
				out = append(out, ' ')
				col += len(w) + 1
			}
		}
		if sgrs > 0 {
			out = append(out, "\x1b[0m"...)
		}
		switch r := rng.IntN(1000); {
		case r < 4: // progress-style rewrite of the line
			out = append(out, "\r\x1b[K"...)
			out = append(out, "progress "...)
			out = strconv.AppendInt(out, int64(rng.IntN(100)), 10)
			out = append(out, '%')
		case r < 7: // up, erase, down
			out = append(out, "\x1b[A\x1b[2K\x1b[B"...)
		case r < 10: // erase to end of line from a column
			out = append(out, "\x1b["...)
			out = strconv.AppendInt(out, int64(1+rng.IntN(40)), 10)
			out = append(out, "G\x1b[K"...)
		}
		out = append(out, '\r', '\n')
		if lineNo%5000 == 0 {
			// A status area: region of the top 40 rows, some lines in it,
			// then the region reset.
			out = append(out, "\x1b7\x1b[1;40r\x1b[40;1H"...)
			for i := 0; i < 5; i++ {
				out = append(out, "\r\nregion line "...)
				out = strconv.AppendInt(out, int64(i), 10)
			}
			out = append(out, "\x1b[r\x1b8"...)
		}
	}
	return out
}

func appendRandomSGR(out []byte, rng *rand.Rand) []byte {
	out = append(out, "\x1b["...)
	switch rng.IntN(6) {
	case 0:
		out = strconv.AppendInt(out, int64(30+rng.IntN(8)), 10)
	case 1:
		out = append(out, "1;"...)
		out = strconv.AppendInt(out, int64(90+rng.IntN(8)), 10)
	case 2:
		out = append(out, "38;5;"...)
		out = strconv.AppendInt(out, int64(rng.IntN(256)), 10)
	case 3:
		out = append(out, "38;2;"...)
		out = strconv.AppendInt(out, int64(rng.IntN(256)), 10)
		out = append(out, ';')
		out = strconv.AppendInt(out, int64(rng.IntN(256)), 10)
		out = append(out, ';')
		out = strconv.AppendInt(out, int64(rng.IntN(256)), 10)
	case 4:
		out = append(out, "48;5;"...)
		out = strconv.AppendInt(out, int64(rng.IntN(256)), 10)
	default:
		out = append(out, '0')
	}
	return append(out, 'm')
}

// GenRepaint returns about size bytes of TUI repaint traffic for a
// cols×rows screen: whole frames drawn with cursor addressing (CUP and EL
// per row, styled segments, box-drawing borders) inside synchronized-output
// brackets, with no line feeds at all.
func GenRepaint(size, cols, rows int) []byte {
	rng := rand.New(rand.NewPCG(genSeed, 2))
	out := make([]byte, 0, size+cols*rows*2)
	out = append(out, "\x1b[?1049h\x1b[?25l"...)
	frame := 0
	for len(out) < size {
		frame++
		out = append(out, "\x1b[?2026h"...)
		for y := 1; y <= rows; y++ {
			out = append(out, "\x1b["...)
			out = strconv.AppendInt(out, int64(y), 10)
			out = append(out, ";1H\x1b[2K"...)
			if y == 1 || y == rows {
				out = append(out, "\x1b[0;38;5;244m"...)
				for x := 0; x < cols; x++ {
					out = append(out, "─"...)
				}
				continue
			}
			out = append(out, "\x1b[0;38;5;244m│\x1b[0m"...)
			col := 1
			for col < cols-1 {
				seg := 4 + rng.IntN(30)
				seg = min(seg, cols-1-col)
				switch rng.IntN(4) {
				case 0:
					out = append(out, "\x1b[0;1;38;2;"...)
					out = strconv.AppendInt(out, int64(rng.IntN(256)), 10)
					out = append(out, ";200;"...)
					out = strconv.AppendInt(out, int64(frame%256), 10)
					out = append(out, 'm')
				case 1:
					out = append(out, "\x1b[0;7m"...)
				case 2:
					out = append(out, "\x1b[0;48;5;"...)
					out = strconv.AppendInt(out, int64(rng.IntN(256)), 10)
					out = append(out, 'm')
				default:
					out = append(out, "\x1b[0m"...)
				}
				for i := 0; i < seg; i++ {
					out = append(out, byte('a'+(frame+i+y)%26))
				}
				col += seg
			}
			out = append(out, "\x1b[0;38;5;244m│\x1b[0m"...)
		}
		out = append(out, "\x1b[0m\x1b[?2026l"...)
	}
	return out
}
