package markdown

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// style is how a span of text is drawn: a set of flags.
type style uint16

const (
	sBold style = 1 << iota
	sItalic
	sStrike
	sCode    // an inline code span
	sLink    // a link's text, an autolink
	sMuted   // a link's destination, an image, borders
	sHeading // a heading (2–6)
	sTitle   // the level-1 heading
	sBlock   // a code block's text
	sDone    // a ticked task's box
)

// span is a run of text in one style. A span whose text is "\n" is a
// hard line break.
type span struct {
	text string
	st   style
}

// inlines parses the inline markdown of s into spans, each with base added
// to its style.
func inlines(s string, base style) []span {
	p := inliner{}
	p.run(s, base)
	p.flush()
	return p.out
}

// inliner builds spans: literal text collects in buf until the style
// changes.
type inliner struct {
	out   []span
	buf   strings.Builder
	bufSt style
}

func (p *inliner) lit(s string, st style) {
	if s == "" {
		return
	}
	if p.buf.Len() > 0 && p.bufSt != st {
		p.flush()
	}
	p.bufSt = st
	p.buf.WriteString(s)
}

func (p *inliner) flush() {
	if p.buf.Len() > 0 {
		p.out = append(p.out, span{p.buf.String(), p.bufSt})
		p.buf.Reset()
	}
}

func (p *inliner) hardBreak() {
	p.flush()
	p.out = append(p.out, span{"\n", 0})
}

// isPunct says whether c is ASCII punctuation (what a backslash escapes).
func isPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' }

// runLen is the length of the run of s[i] starting at i.
func runLen(s string, i int) int {
	n := 1
	for i+n < len(s) && s[i+n] == s[i] {
		n++
	}
	return n
}

// reach bounds how far the search for a link's closing bracket goes: a
// paragraph of unmatched [ (a pasted log) is then linear in its length.
// Delimiters and backticks need no bound: run remembers which of them
// found no closer, and a later opener of the same kind would not either.
const reach = 1 << 10

// codeEnd is where the code span opened by the n backticks at i ends (the
// index of its closing run), or -1.
func codeEnd(s string, i, n int) int {
	for j := i + n; j < len(s); {
		k := strings.IndexByte(s[j:], '`')
		if k < 0 {
			return -1
		}
		j += k
		m := runLen(s, j)
		if m == n {
			return j
		}
		j += m
	}
	return -1
}

// closer finds the run of c that closes an emphasis opened before from:
// for strong (two) a run of two or more, for emphasis a run of one or
// three or more (a run of two is a strong pair inside), right-flanking,
// skipping code spans and escapes. It returns where the closing
// delimiter starts, or -1.
func closer(s string, from int, c byte, two bool) int {
	for j := from; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '`':
			n := runLen(s, j)
			if e := codeEnd(s, j, n); e >= 0 {
				j = e + n - 1
			} else {
				j += n - 1
			}
		case c:
			m := runLen(s, j)
			flank := j > from && !isSpace(s[j-1]) && (c != '_' || j+m >= len(s) || !isAlnum(s[j+m]))
			switch {
			case flank && two && m >= 2:
				return j + m - 2
			case flank && !two && m != 2:
				return j + m - 1
			}
			j += m - 1
		}
	}
	return -1
}

// run parses s in style st.
func (p *inliner) run(s string, st style) {
	// What found no closer in s, left to right: a later opener of the
	// same kind searches a part of the same rest, and would not either.
	var noCloser [5]bool // ** * __ _ ~~
	var noCode [8]bool   // by the backtick run's length
	find := func(from int, c byte, two bool) int {
		k := 0
		switch {
		case c == '*' && !two:
			k = 1
		case c == '_' && two:
			k = 2
		case c == '_':
			k = 3
		case c == '~':
			k = 4
		}
		if noCloser[k] {
			return -1
		}
		j := closer(s, from, c, two)
		noCloser[k] = j < 0
		return j
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) && isPunct(s[i+1]) {
				p.lit(s[i+1:i+2], st)
				i += 2
				continue
			}
			if i+1 < len(s) && s[i+1] == '\n' {
				p.hardBreak()
				i += 2
				continue
			}
		case '\n':
			p.hardBreak()
			i++
			continue
		case '`':
			n := runLen(s, i)
			e := -1
			if n >= len(noCode) || !noCode[n] {
				e = codeEnd(s, i, n)
				if n < len(noCode) {
					noCode[n] = e < 0
				}
			}
			if e >= 0 {
				code := strings.ReplaceAll(s[i+n:e], "\n", " ")
				if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
					code = code[1 : len(code)-1]
				}
				p.lit(code, st|sCode)
				i = e + n
				continue
			}
			p.lit(s[i:i+n], st)
			i += n
			continue
		case '*', '_', '~':
			n := runLen(s, i)
			opens := i+n < len(s) && !isSpace(s[i+n]) && (c != '_' || i == 0 || !isAlnum(s[i-1]))
			if opens && c == '~' {
				if n == 2 {
					if j := find(i+2, '~', true); j > i+2 {
						p.run(s[i+2:j], st|sStrike)
						i = j + 2
						continue
					}
				}
			} else if opens {
				if n >= 2 {
					if j := find(i+2, c, true); j > i+2 {
						p.run(s[i+2:j], st|sBold)
						i = j + 2
						continue
					}
				}
				if n != 2 {
					if j := find(i+1, c, false); j > i+1 {
						p.run(s[i+1:j], st|sItalic)
						i = j + 1
						continue
					}
				}
			}
			p.lit(s[i:i+n], st)
			i += n
			continue
		case '!':
			if i+1 < len(s) && s[i+1] == '[' {
				if alt, dest, end := link(s, i+1); end > 0 {
					p.lit("[image: "+plain(alt)+"]", st|sMuted)
					if dest != "" {
						p.lit(" "+dest, st|sMuted)
					}
					i = end
					continue
				}
			}
		case '[':
			if text, dest, end := link(s, i); end > 0 {
				p.run(text, st|sLink)
				if dest != "" && dest != plain(text) && !strings.HasPrefix(dest, "#") {
					p.lit(" ("+dest+")", st|sMuted)
				}
				i = end
				continue
			}
		case '<':
			if end, url := angle(s, i); end > 0 {
				p.lit(url, st|sLink)
				i = end
				continue
			}
			if end := htmlEnd(s, i); end > 0 {
				i = end // HTML is dropped to its text
				continue
			}
		case '&':
			if r, end := entity(s, i); end > 0 {
				p.lit(r, st)
				i = end
				continue
			}
		case 'h', 'w':
			if i == 0 || isSpace(s[i-1]) || s[i-1] == '(' {
				if n := bareURL(s[i:]); n > 0 {
					p.lit(s[i:i+n], st|sLink)
					i += n
					continue
				}
			}
		}
		// Ordinary text, up to the next byte that may start something.
		j := i + 1
		for j < len(s) && !strings.ContainsRune("\\\n`*_~![<&hw", rune(s[j])) {
			j++
		}
		p.lit(s[i:j], st)
		i = j
	}
}

// link parses [text](dest "title") at s[i] == '['. It returns the text,
// the destination and the index after the link, or end 0.
func link(s string, i int) (text, dest string, end int) {
	depth := 0
	j := i
	for lim := min(len(s), i+reach); j < lim; j++ {
		switch s[j] {
		case '\\':
			j++
			continue
		case '`':
			n := runLen(s, j)
			if e := codeEnd(s, j, n); e >= 0 {
				j = e + n - 1
			}
			continue
		case '[':
			depth++
		case ']':
			depth--
		}
		if depth == 0 {
			break
		}
	}
	if depth != 0 || j >= len(s)-1 || s[j+1] != '(' {
		return "", "", 0
	}
	text = s[i+1 : j]
	k := j + 2
	for k < len(s) && s[k] == ' ' {
		k++
	}
	if k < len(s) && s[k] == '<' {
		e := strings.IndexByte(s[k:], '>')
		if e < 0 {
			return "", "", 0
		}
		dest, k = s[k+1:k+e], k+e+1
	} else {
		parens, st := 0, k
		for ; k < len(s) && s[k] != ' ' && s[k] != '\n'; k++ {
			if s[k] == '(' {
				parens++
			} else if s[k] == ')' {
				if parens == 0 {
					break
				}
				parens--
			}
		}
		dest = s[st:k]
	}
	for k < len(s) && s[k] == ' ' {
		k++
	}
	if k < len(s) && (s[k] == '"' || s[k] == '\'' || s[k] == '(') {
		q := s[k]
		if q == '(' {
			q = ')'
		}
		e := strings.IndexByte(s[k+1:], q)
		if e < 0 {
			return "", "", 0
		}
		k += e + 2
		for k < len(s) && s[k] == ' ' {
			k++
		}
	}
	if k >= len(s) || s[k] != ')' {
		return "", "", 0
	}
	return text, dest, k + 1
}

// plain is the text of inline markdown without its marks.
func plain(s string) string {
	var b strings.Builder
	for _, sp := range inlines(s, 0) {
		b.WriteString(sp.text)
	}
	return b.String()
}

// angle parses an autolink <scheme:...> or <user@host> at s[i] == '<'.
func angle(s string, i int) (end int, url string) {
	e := strings.IndexAny(s[i+1:], "<> \n")
	if e <= 0 || s[i+1+e] != '>' {
		return 0, ""
	}
	u := s[i+1 : i+1+e]
	colon := strings.IndexByte(u, ':')
	switch {
	case colon >= 2 && isScheme(u[:colon]):
	case strings.Count(u, "@") == 1 && strings.IndexByte(u, '@') > 0 && strings.IndexByte(u, '@') < len(u)-1:
	default:
		return 0, ""
	}
	return i + 2 + e, u
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-')) {
			return false
		}
	}
	return true
}

// htmlEnd is the index after the HTML tag, comment, declaration or
// processing instruction at s[i] == '<', or 0.
func htmlEnd(s string, i int) int {
	t := s[i:]
	for _, d := range [...]struct{ open, close string }{{"<!--", "-->"}, {"<?", "?>"}, {"<![CDATA[", "]]>"}} {
		if strings.HasPrefix(t, d.open) {
			if e := strings.Index(t[len(d.open):], d.close); e >= 0 {
				return i + len(d.open) + e + len(d.close)
			}
			return 0
		}
	}
	k := 1
	if k < len(t) && (t[k] == '/' || t[k] == '!') {
		k++
	}
	if k >= len(t) || !(t[k] >= 'a' && t[k] <= 'z' || t[k] >= 'A' && t[k] <= 'Z') {
		return 0
	}
	quote := byte(0)
	for ; k < len(t); k++ {
		switch c := t[k]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return i + k + 1
		case c == '<':
			return 0
		}
	}
	return 0
}

// entities are the named character references result files use; others
// stay as written.
var entities = [...]struct{ name, text string }{
	{"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", `"`}, {"apos", "'"},
	{"nbsp", "\u00a0"}, {"copy", "©"}, {"reg", "®"}, {"trade", "™"},
	{"mdash", "—"}, {"ndash", "–"}, {"hellip", "…"}, {"rarr", "→"},
	{"larr", "←"}, {"times", "×"}, {"middot", "·"}, {"bull", "•"},
	{"check", "✓"}, {"deg", "°"}, {"plusmn", "±"}, {"le", "≤"}, {"ge", "≥"},
	{"ne", "≠"}, {"laquo", "«"}, {"raquo", "»"}, {"lsquo", "‘"},
	{"rsquo", "’"}, {"ldquo", "“"}, {"rdquo", "”"}, {"sect", "§"},
}

// entity decodes the character reference at s[i] == '&'.
func entity(s string, i int) (string, int) {
	e := strings.IndexByte(s[i:], ';')
	if e < 2 || e > 10 {
		return "", 0
	}
	name := s[i+1 : i+e]
	if name[0] == '#' {
		var n uint64
		var err error
		if len(name) > 1 && (name[1] == 'x' || name[1] == 'X') {
			n, err = strconv.ParseUint(name[2:], 16, 32)
		} else {
			n, err = strconv.ParseUint(name[1:], 10, 32)
		}
		if err != nil || !utf8.ValidRune(rune(n)) || n == 0 {
			return "", 0
		}
		return string(rune(n)), i + e + 1
	}
	for _, en := range entities {
		if en.name == name {
			return en.text, i + e + 1
		}
	}
	return "", 0
}

// bareURL is the length of the URL (http://, https:// or www.) s starts
// with, without trailing punctuation, or 0.
func bareURL(s string) int {
	if !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "www.") {
		return 0
	}
	n := strings.IndexAny(s, " \n<")
	if n < 0 {
		n = len(s)
	}
	for n > 0 && strings.IndexByte(".,:;!?*_~'\"", s[n-1]) >= 0 {
		n--
	}
	// A closing parenthesis without its opening one is the sentence's.
	for n > 0 && s[n-1] == ')' && strings.Count(s[:n], "(") < strings.Count(s[:n], ")") {
		n--
	}
	if n <= len("www.") {
		return 0
	}
	return n
}
