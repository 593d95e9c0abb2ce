package markdown

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Render renders the markdown src as lines at most width cells wide (8 at
// least). With color, spans carry SGR styles (each line closes its own);
// without it (NO_COLOR) the structure alone shows what is what.
func Render(src string, width int, color bool) []string {
	width = max(width, 8)
	r := renderer{color: color}
	out := r.blocks(parse(src), width, true)
	if len(out) == 0 {
		out = []string{""}
	}
	// Deep lists in a narrow view can leave their markers no room: cut.
	for i, l := range out {
		if ansi.StringWidth(l) > width {
			l = ansi.Truncate(l, width, "")
			if color {
				l += "\x1b[m"
			}
			out[i] = l
		}
	}
	return out
}

type renderer struct {
	color bool
	depth int // of nested lists
}

// blocks renders bs at width; loose puts a blank line between them.
func (r *renderer) blocks(bs []block, width int, loose bool) []string {
	var out []string
	var prev blockKind
	for _, b := range bs {
		lines := r.block(b, width)
		if len(lines) == 0 {
			continue // a paragraph of HTML only
		}
		if len(out) > 0 && (loose || b.kind != bPara && prev != bPara || b.kind == bCode || prev == bCode) {
			out = append(out, "")
		}
		out = append(out, lines...)
		prev = b.kind
	}
	return out
}

// blank says whether spans draw nothing (a paragraph of HTML only).
func blank(spans []span) bool {
	for _, s := range spans {
		if strings.Trim(s.text, " \n") != "" {
			return false
		}
	}
	return true
}

func (r *renderer) block(b block, width int) []string {
	switch b.kind {
	case bHeading:
		if b.level == 1 && r.color {
			// A badge: no-break spaces pad it inside its background.
			sp := append([]span{{"\u00a0", sTitle}}, inlines(b.text, sTitle)...)
			return r.wrap(append(sp, span{"\u00a0", sTitle}), width)
		}
		sp := append([]span{{strings.Repeat("#", b.level) + " ", sHeading}}, inlines(b.text, sHeading)...)
		return r.wrap(sp, width)
	case bCode:
		return r.code(b.lines, width)
	case bQuote:
		bar := r.sgr(sMuted) + "│" + r.reset(sMuted) + " "
		inner := r.blocks(b.children, width-2, true)
		for i, l := range inner {
			inner[i] = bar + l
		}
		return inner
	case bList:
		return r.list(b, width)
	case bRule:
		return []string{r.sgr(sMuted) + strings.Repeat("─", width) + r.reset(sMuted)}
	case bTable:
		return r.table(b, width)
	}
	spans := inlines(b.text, 0)
	if blank(spans) {
		return nil
	}
	return r.wrap(spans, width)
}

// code renders a code block's lines indented by two, each cut into
// pieces at the width.
func (r *renderer) code(lines []string, width int) []string {
	w := max(width-2, 1)
	var out []string
	for _, l := range lines {
		if l == "" {
			out = append(out, "")
			continue
		}
		for l != "" {
			piece := ansi.Truncate(l, w, "")
			if piece == "" {
				// Narrower than its first character: that character alone
				// (Render cuts the line).
				_, n := utf8.DecodeRuneInString(l)
				piece = l[:n]
			}
			out = append(out, "  "+r.sgr(sBlock)+piece+r.reset(sBlock))
			l = l[len(piece):]
		}
	}
	return out
}

// bullets are the list markers by depth.
var bullets = [...]string{"•", "◦", "▪"}

// list renders a list: each item's blocks beside its marker, the lines
// after the first under the item's text.
func (r *renderer) list(b block, width int) []string {
	r.depth++
	defer func() { r.depth-- }()
	mw := 1
	if b.ordered {
		mw = len(strconv.Itoa(b.start+len(b.items)-1)) + 1
	}
	var out []string
	for i, it := range b.items {
		if i > 0 && b.loose {
			out = append(out, "")
		}
		mark := bullets[(r.depth-1)%len(bullets)]
		if b.ordered {
			mark = strconv.Itoa(b.start+i) + string(b.delim)
			mark = strings.Repeat(" ", mw-len(mark)) + mark
		}
		mark += " "
		if it.task {
			box := "[ ]"
			if it.done {
				box = r.sgr(sDone) + "[x]" + r.reset(sDone)
			}
			mark += box + " "
		}
		indent := ansi.StringWidth(mark)
		body := r.blocks(it.blocks, max(width-indent, 1), b.loose)
		if len(body) == 0 {
			body = []string{""}
		}
		pad := strings.Repeat(" ", indent)
		for k, l := range body {
			if k == 0 {
				out = append(out, mark+l)
			} else if l == "" {
				out = append(out, "")
			} else {
				out = append(out, pad+l)
			}
		}
	}
	return out
}

// table renders a table with its columns fitted to the width: a column
// wider than its share wraps its cells.
func (r *renderer) table(b block, width int) []string {
	n := len(b.header)
	cells := make([][][]span, 0, len(b.rows)+1)
	for k, row := range append([][]string{b.header}, b.rows...) {
		var base style
		if k == 0 {
			base = sBold
		}
		cs := make([][]span, n)
		for c := range n {
			cs[c] = inlines(row[c], base)
		}
		cells = append(cells, cs)
	}
	natural := make([]int, n)
	for _, cs := range cells {
		for c, sp := range cs {
			natural[c] = max(natural[c], spansWidth(sp))
		}
	}
	widths := fitColumns(natural, width-3*(n-1))
	sep := r.sgr(sMuted) + " │ " + r.reset(sMuted)
	var out []string
	for k, cs := range cells {
		lines := make([][]string, n)
		h := 1
		for c, sp := range cs {
			lines[c] = r.wrap(sp, widths[c])
			h = max(h, len(lines[c]))
		}
		for y := range h {
			var b2 strings.Builder
			for c := range n {
				if c > 0 {
					b2.WriteString(sep)
				}
				l := ""
				if y < len(lines[c]) {
					l = lines[c][y]
				}
				b2.WriteString(pad(l, widths[c], b.align[c]))
			}
			out = append(out, strings.TrimRight(b2.String(), " "))
		}
		if k == 0 {
			parts := make([]string, n)
			for c := range n {
				parts[c] = strings.Repeat("─", widths[c])
			}
			out = append(out, r.sgr(sMuted)+strings.Join(parts, "─┼─")+r.reset(sMuted))
		}
	}
	return out
}

// fitColumns gives each column its natural width when all fit in avail,
// else shares avail out: a column narrower than an even share keeps its
// width, the others split the rest.
func fitColumns(natural []int, avail int) []int {
	w := make([]int, len(natural))
	total := 0
	for _, x := range natural {
		total += x
	}
	if total <= avail {
		copy(w, natural)
		return w
	}
	left := make([]int, 0, len(natural))
	for c := range natural {
		left = append(left, c)
	}
	for {
		share := max(avail/max(len(left), 1), 1)
		var wide []int
		for _, c := range left {
			if natural[c] <= share {
				w[c] = natural[c]
				avail -= natural[c]
			} else {
				wide = append(wide, c)
			}
		}
		if len(wide) == len(left) {
			for i, c := range wide {
				w[c] = max(avail/len(wide), 1)
				if i < avail%len(wide) {
					w[c]++
				}
			}
			return w
		}
		left = wide
	}
}

// pad places l (styled) in w cells as the column aligns.
func pad(l string, w int, a align) string {
	gap := max(w-ansi.StringWidth(l), 0)
	switch a {
	case alignRight:
		return strings.Repeat(" ", gap) + l
	case alignCenter:
		return strings.Repeat(" ", gap/2) + l + strings.Repeat(" ", gap-gap/2)
	}
	return l + strings.Repeat(" ", gap)
}

func spansWidth(sp []span) int {
	w, line := 0, 0
	for _, s := range sp {
		if s.text == "\n" {
			w, line = max(w, line), 0
			continue
		}
		line += ansi.StringWidth(s.text)
	}
	return max(w, line)
}

// piece is part of a word in one style.
type piece struct {
	text string
	st   style
	w    int
}

// wrap fills lines of at most width cells with the words of spans,
// breaking at spaces and, for a word wider than a line, inside it.
func (r *renderer) wrap(spans []span, width int) []string {
	width = max(width, 1)
	var out []string
	var line []piece
	lineW := 0
	var word []piece
	wordW := 0
	emit := func() {
		out = append(out, r.line(line))
		line, lineW = line[:0], 0
	}
	place := func() {
		if len(word) == 0 {
			return
		}
		if lineW > 0 && lineW+1+wordW > width {
			emit()
		}
		if lineW > 0 {
			st := line[len(line)-1].st
			if st != word[0].st {
				st = 0
			}
			line = append(line, piece{" ", st, 1})
			lineW++
		}
		for _, p := range word {
			for p.text != "" && lineW+p.w > width {
				if lineW >= width {
					emit()
					continue
				}
				// Cut the piece at the line's end; a line too narrow for
				// its first character takes it whole (Render cuts it).
				head := ansi.Truncate(p.text, width-lineW, "")
				if head == "" {
					if lineW > 0 {
						emit()
						continue
					}
					_, n := utf8.DecodeRuneInString(p.text)
					head = p.text[:n]
				}
				line = append(line, piece{head, p.st, ansi.StringWidth(head)})
				p.text = p.text[len(head):]
				p.w = ansi.StringWidth(p.text)
				emit()
			}
			if p.text != "" {
				line = append(line, p)
				lineW += p.w
			}
		}
		word, wordW = word[:0], 0
	}
	for _, s := range spans {
		if s.text == "\n" {
			place()
			emit()
			continue
		}
		// A no-break space is not ' ': it stays inside its word.
		for t := s.text; t != ""; {
			sp := strings.IndexByte(t, ' ')
			if sp < 0 {
				sp = len(t)
			}
			if sp > 0 {
				w := ansi.StringWidth(t[:sp])
				word = append(word, piece{t[:sp], s.st, w})
				wordW += w
			}
			if sp == len(t) {
				break
			}
			place()
			t = t[sp+1:]
		}
	}
	place()
	if len(line) > 0 || len(out) == 0 {
		emit()
	}
	return out
}

// line draws pieces, each style change as its SGR, closed at the end.
func (r *renderer) line(ps []piece) string {
	var b strings.Builder
	var cur style
	for _, p := range ps {
		if p.st != cur {
			if cur != 0 {
				b.WriteString(r.reset(cur))
			}
			b.WriteString(r.sgr(p.st))
			cur = p.st
		}
		b.WriteString(strings.ReplaceAll(p.text, "\u00a0", " "))
	}
	b.WriteString(r.reset(cur))
	return b.String()
}

// sgr is the escape that starts st; "" without color.
func (r *renderer) sgr(st style) string {
	if !r.color || st == 0 {
		return ""
	}
	var p []string
	switch {
	case st&sTitle != 0:
		p = append(p, "1", "30", "46")
	case st&sHeading != 0:
		p = append(p, "1", "36")
	}
	if st&sBold != 0 && st&(sTitle|sHeading) == 0 {
		p = append(p, "1")
	}
	if st&sItalic != 0 {
		p = append(p, "3")
	}
	if st&sStrike != 0 {
		p = append(p, "9")
	}
	switch {
	case st&sCode != 0:
		p = append(p, "33")
	case st&sLink != 0:
		p = append(p, "4", "34")
	case st&sMuted != 0:
		p = append(p, "90")
	case st&sDone != 0:
		p = append(p, "32")
	case st&sBlock != 0:
		p = append(p, "37")
	}
	if len(p) == 0 {
		return ""
	}
	return "\x1b[" + strings.Join(p, ";") + "m"
}

// reset ends what sgr(st) started (every style has an SGR).
func (r *renderer) reset(st style) string {
	if !r.color || st == 0 {
		return ""
	}
	return "\x1b[m"
}
