// Package markdown renders a worker's result file, markdown, as styled
// lines for the result view: the blocks of CommonMark and GFM that result
// files are written in (headings, paragraphs, nested and task lists, fenced
// and indented code, quotes, tables, rules) with their inline emphasis,
// code, links and entities, wrapped to a width. HTML is dropped to its text
// and control characters (a file's escape sequences) are dropped. It owns
// nothing else, and its package init does no work: every cockpit command
// links it, and a lead calls those commands hundreds of times a run
// (DECISIONS 87 — it replaced glamour, whose renderer's package inits cost
// every command ≈3 ms here).
package markdown

import (
	"strings"
	"unicode/utf8"
)

// blockKind says what a block is.
type blockKind uint8

const (
	bPara blockKind = iota
	bHeading
	bCode
	bQuote
	bList
	bRule
	bTable
)

// block is one parsed block. Which fields mean something depends on kind.
type block struct {
	kind     blockKind
	text     string   // paragraph and heading: the inline source
	level    int      // heading: 1–6
	lines    []string // code: its lines, verbatim
	children []block  // quote: its blocks
	items    []item   // list
	ordered  bool     // list: numbered
	start    int      // list: the first number
	delim    byte     // list: its marker's delimiter (- + * . or ))
	loose    bool     // list: blank lines between items
	header   []string // table: the header cells
	align    []align  // table: one per column
	rows     [][]string
}

// item is one list item.
type item struct {
	task, done bool // a GFM task item, and whether it is ticked
	blocks     []block
}

// align is a table column's alignment.
type align uint8

const (
	alignLeft align = iota
	alignCenter
	alignRight
)

// parse splits src into blocks.
func parse(src string) []block {
	lines := strings.Split(sanitize(src), "\n")
	for i, l := range lines {
		lines[i] = expandTabs(l)
	}
	return parseBlocks(lines)
}

// sanitize makes src text the screen can show: invalid UTF-8 becomes
// U+FFFD, and control characters other than newline and tab (an escape
// sequence in a result file, a carriage return, C1 controls) are dropped,
// so that nothing in a file drives the terminal or throws the widths off.
func sanitize(src string) string {
	clean := true
	for _, r := range src {
		if r == utf8.RuneError || r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 {
			clean = false
			break
		}
	}
	if clean {
		return src
	}
	src = strings.ToValidUTF8(src, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 {
			return -1
		}
		return r
	}, src)
}

// expandTabs replaces tabs with spaces to the next multiple of 4 columns.
func expandTabs(s string) string {
	if strings.IndexByte(s, '\t') < 0 {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 4 - col%4
			b.WriteString("    "[:n])
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// indentOf is the number of leading spaces of s.
func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// parseBlocks parses lines (with their container's prefix removed).
func parseBlocks(lines []string) []block {
	var out []block
	for i := 0; i < len(lines); {
		l := lines[i]
		switch {
		case isBlank(l):
			i++
		case indentOf(l) >= 4:
			b, n := codeIndented(lines[i:])
			out, i = append(out, b), i+n
		case fenceOf(l) != "":
			b, n := codeFenced(lines[i:])
			out, i = append(out, b), i+n
		case isRule(l):
			out, i = append(out, block{kind: bRule}), i+1
		case headingLevel(l) > 0:
			lv := headingLevel(l)
			out, i = append(out, block{kind: bHeading, level: lv, text: headingText(l, lv)}), i+1
		case isQuote(l):
			b, n := quote(lines[i:])
			out, i = append(out, b), i+n
		case listMarker(l) != nil:
			b, n := list(lines[i:])
			out, i = append(out, b), i+n
		case i+1 < len(lines) && isTableStart(l, lines[i+1]):
			b, n := table(lines[i:])
			out, i = append(out, b), i+n
		default:
			b, n := paragraph(lines[i:])
			out, i = append(out, b), i+n
		}
	}
	return out
}

// interrupts says whether l starts a block that ends a paragraph.
func interrupts(l string) bool {
	if indentOf(l) >= 4 {
		return false
	}
	if m := listMarker(l); m != nil {
		// An ordered list interrupts a paragraph only from 1, and no
		// empty item does (CommonMark).
		return (!m.ordered || m.number == 1) && !isBlank(l[m.width:])
	}
	return fenceOf(l) != "" || isRule(l) || headingLevel(l) > 0 || isQuote(l)
}

// paragraph is lines up to a blank line or a block that interrupts it; a
// setext underline makes it a heading.
func paragraph(lines []string) (block, int) {
	n := 1
	for n < len(lines) && !isBlank(lines[n]) {
		l := lines[n]
		if lv := setextLevel(l); lv > 0 {
			return block{kind: bHeading, level: lv, text: joinLines(lines[:n])}, n + 1
		}
		if interrupts(l) || (n+1 < len(lines) && isTableStart(l, lines[n+1])) {
			break
		}
		n++
	}
	return block{kind: bPara, text: joinLines(lines[:n])}, n
}

// joinLines joins a paragraph's lines, trimmed, keeping a hard break
// (two trailing spaces or a backslash) as a newline.
func joinLines(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		hard := strings.HasSuffix(l, "  ") || strings.HasSuffix(l, "\\")
		l = strings.TrimSpace(l)
		if hard && strings.HasSuffix(l, "\\") {
			l = l[:len(l)-1]
		}
		b.WriteString(l)
		if i < len(lines)-1 {
			if hard {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
	}
	return b.String()
}

// setextLevel is 1 for a === underline, 2 for ---, else 0.
func setextLevel(l string) int {
	if indentOf(l) >= 4 {
		return 0
	}
	t := strings.TrimSpace(l)
	switch {
	case t == "":
		return 0
	case strings.Trim(t, "=") == "":
		return 1
	case strings.Trim(t, "-") == "":
		return 2
	}
	return 0
}

// headingLevel is the level of an ATX heading line, or 0.
func headingLevel(l string) int {
	if indentOf(l) >= 4 {
		return 0
	}
	t := strings.TrimLeft(l, " ")
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ') {
		return 0
	}
	return n
}

// headingText is an ATX heading's text without its marks.
func headingText(l string, level int) string {
	t := strings.TrimSpace(strings.TrimLeft(l, " ")[level:])
	// A closing run of #s preceded by a space (or alone) is not text.
	if u := strings.TrimRight(t, "#"); u != t && (u == "" || strings.HasSuffix(u, " ")) {
		t = strings.TrimSpace(u)
	}
	return t
}

// isRule says whether l is a thematic break: three or more of one of
// - * _, with spaces between.
func isRule(l string) bool {
	if indentOf(l) >= 4 {
		return false
	}
	t := strings.TrimSpace(l)
	if t == "" || (t[0] != '-' && t[0] != '*' && t[0] != '_') {
		return false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case t[0]:
			n++
		case ' ':
		default:
			return false
		}
	}
	return n >= 3
}

// fenceOf is the fence a line opens (``` or ~~~, three or more), or "".
func fenceOf(l string) string {
	if indentOf(l) >= 4 {
		return ""
	}
	t := strings.TrimLeft(l, " ")
	if t == "" || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && strings.IndexByte(t[n:], '`') >= 0) {
		return ""
	}
	return t[:n]
}

// codeFenced is a fenced code block, to its closing fence or the end.
func codeFenced(lines []string) (block, int) {
	fence, ind := fenceOf(lines[0]), indentOf(lines[0])
	b := block{kind: bCode}
	n := 1
	for ; n < len(lines); n++ {
		l := lines[n]
		if t := strings.TrimSpace(l); indentOf(l) < 4 && strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
			n++
			break
		}
		cut := min(ind, indentOf(l))
		b.lines = append(b.lines, l[cut:])
	}
	return b, n
}

// codeIndented is an indented code block: lines indented four or more,
// with blank lines between them.
func codeIndented(lines []string) (block, int) {
	b := block{kind: bCode}
	n := 0
	for n < len(lines) && (isBlank(lines[n]) || indentOf(lines[n]) >= 4) {
		l := lines[n]
		if isBlank(l) {
			l = ""
		} else {
			l = l[4:]
		}
		b.lines = append(b.lines, l)
		n++
	}
	for len(b.lines) > 0 && b.lines[len(b.lines)-1] == "" {
		b.lines = b.lines[:len(b.lines)-1]
	}
	return b, n
}

func isQuote(l string) bool {
	return indentOf(l) < 4 && strings.HasPrefix(strings.TrimLeft(l, " "), ">")
}

// quote is a block quote: its > lines, and the lazy lines that continue
// one of its paragraphs.
func quote(lines []string) (block, int) {
	var inner []string
	n := 0
	for ; n < len(lines); n++ {
		l := lines[n]
		if isQuote(l) {
			t := strings.TrimLeft(l, " ")[1:]
			t = strings.TrimPrefix(t, " ")
			inner = append(inner, t)
			continue
		}
		if isBlank(l) || interrupts(l) || len(inner) == 0 || isBlank(inner[len(inner)-1]) {
			break
		}
		inner = append(inner, l) // lazy continuation
	}
	return block{kind: bQuote, children: parseBlocks(inner)}, n
}

// marker is a list item's marker.
type marker struct {
	ordered bool
	number  int
	delim   byte // - + * for bullets, . or ) for numbers
	width   int  // the marker, its indent and the spaces after it: where the content starts
}

// listMarker is the list item marker l starts with, or nil.
func listMarker(l string) *marker {
	ind := indentOf(l)
	if ind >= 4 {
		return nil
	}
	t := l[ind:]
	m := marker{}
	n := 0
	switch {
	case t != "" && (t[0] == '-' || t[0] == '+' || t[0] == '*'):
		m.delim, n = t[0], 1
	default:
		for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
			m.number = m.number*10 + int(t[n]-'0')
			n++
		}
		if n == 0 || n >= len(t) || (t[n] != '.' && t[n] != ')') {
			return nil
		}
		m.ordered, m.delim = true, t[n]
		n++
	}
	rest := t[n:]
	if rest != "" && rest[0] != ' ' {
		return nil
	}
	sp := indentOf(rest)
	if sp > 4 || isBlank(rest) {
		sp = 1 // the content is indented code, or the item starts empty
	}
	m.width = ind + n + min(sp, len(rest))
	return &m
}

// list is a list: items with the same kind of marker, each with the lines
// indented under it.
func list(lines []string) (block, int) {
	first := listMarker(lines[0])
	b := block{kind: bList, ordered: first.ordered, start: first.number, delim: first.delim}
	n := 0
	sawBlank := false
	for n < len(lines) {
		m := listMarker(lines[n])
		if m == nil || m.ordered != first.ordered || m.delim != first.delim || isRule(lines[n]) {
			break
		}
		if sawBlank {
			b.loose = true
		}
		body := []string{lines[n][min(m.width, len(lines[n])):]}
		n++
		sawBlank = false
		for n < len(lines) {
			l := lines[n]
			if isBlank(l) {
				body = append(body, "")
				sawBlank = true
				n++
				continue
			}
			if indentOf(l) >= m.width {
				body = append(body, l[m.width:])
				sawBlank = false
				n++
				continue
			}
			// A lazy line continues the item's paragraph.
			if !sawBlank && !interrupts(l) && listMarker(l) == nil && !isBlank(body[len(body)-1]) {
				body = append(body, l)
				n++
				continue
			}
			break
		}
		// Trailing blank lines belong between items, not in this one.
		for len(body) > 1 && body[len(body)-1] == "" {
			body = body[:len(body)-1]
		}
		it := item{}
		if t := body[0]; len(t) >= 3 && t[0] == '[' && t[2] == ']' && (len(t) == 3 || t[3] == ' ') {
			switch t[1] {
			case ' ':
				it.task = true
			case 'x', 'X':
				it.task, it.done = true, true
			}
			if it.task {
				body[0] = strings.TrimPrefix(t[3:], " ")
			}
		}
		it.blocks = parseBlocks(body)
		b.items = append(b.items, it)
	}
	return b, n
}

// isTableStart says whether l is a table's header row and next its
// delimiter row, with as many cells.
func isTableStart(l, next string) bool {
	if !strings.Contains(l, "|") || indentOf(l) >= 4 {
		return false
	}
	d := splitRow(next)
	if len(d) == 0 || len(d) != len(splitRow(l)) {
		return false
	}
	for _, c := range d {
		c = strings.TrimSpace(c)
		if c == "" || strings.Trim(c, ":-") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return true
}

// splitRow splits a table row into its cells, trimmed; a \| is a pipe.
func splitRow(l string) []string {
	t := strings.TrimSpace(l)
	t = strings.TrimPrefix(t, "|")
	if strings.HasSuffix(t, "|") && !strings.HasSuffix(t, "\\|") {
		t = t[:len(t)-1]
	}
	var cells []string
	var b strings.Builder
	inCode := false
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c == '\\' && i+1 < len(t) && t[i+1] == '|':
			b.WriteByte('|')
			i++
		case c == '`':
			inCode = !inCode
			b.WriteByte(c)
		case c == '|' && !inCode:
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// table is a GFM table, to the first blank line or line without a pipe.
func table(lines []string) (block, int) {
	b := block{kind: bTable, header: splitRow(lines[0])}
	for _, c := range splitRow(lines[1]) {
		c = strings.TrimSpace(c)
		a := alignLeft
		switch l, r := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":"); {
		case l && r:
			a = alignCenter
		case r:
			a = alignRight
		}
		b.align = append(b.align, a)
	}
	n := 2
	for ; n < len(lines) && !isBlank(lines[n]) && strings.Contains(lines[n], "|") && !interrupts(lines[n]); n++ {
		row := splitRow(lines[n])
		row = append(row, make([]string, max(len(b.header)-len(row), 0))...)
		b.rows = append(b.rows, row[:len(b.header)])
	}
	return b, n
}
