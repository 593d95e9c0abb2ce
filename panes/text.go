package panes

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/panes/term"
)

// View is a stretch of a pane's text as scroll mode shows it: Lines[i] is
// text line First+i (term.Pos numbering: scrollback, then the screen).
type View struct {
	Lines []string
	First int
	// End is the number after the screen's last row: the lines are
	// [First, First+len(Lines)) of [End-ScrollbackLen-rows, End).
	End               int
	ScrollbackLen     int
	ScrollbackDropped uint64
}

// View returns up to n lines ending back lines above the bottom of the
// screen (back 0: the screen's last rows), styled or plain, read under one
// lock so the numbering holds. A closed pane has none.
func (p *Pane) View(back, n int, styled bool) View {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return View{}
	}
	sb := p.emu.ScrollbackLen()
	_, rows := p.emu.Size()
	end := sb + rows - min(max(back, 0), sb)
	start := max(end-max(n, 0), 0)
	v := View{
		Lines:             make([]string, 0, end-start),
		First:             int(p.emu.ScrollbackDropped()) + start,
		End:               int(p.emu.ScrollbackDropped()) + sb + rows,
		ScrollbackLen:     sb,
		ScrollbackDropped: p.emu.ScrollbackDropped(),
	}
	var buf []byte
	for i := start; i < end; i++ {
		if i < sb {
			buf = p.emu.AppendScrollback(buf[:0], i, styled)
		} else {
			buf = p.emu.AppendLine(buf[:0], i-sb, styled)
		}
		v.Lines = append(v.Lines, string(buf))
	}
	return v
}

// Search returns every occurrence of query in the pane's scrollback and
// screen, oldest first (term.Finder: literal, smart case, across soft
// wraps). An emulator that is not a term.Finder is searched line by line in
// its plain text, with no soft wraps. A closed pane has none.
func (p *Pane) Search(query string) []term.Match {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || query == "" {
		return nil
	}
	if f, ok := p.emu.(term.Finder); ok {
		return f.Search(nil, query)
	}
	fold := strings.IndexFunc(query, func(r rune) bool { return unicode.IsUpper(r) || unicode.IsTitle(r) }) < 0
	if fold {
		query = strings.ToLower(query)
	}
	var out []term.Match
	p.eachPlainLocked(func(line int, text string) {
		if fold {
			text = strings.ToLower(text)
		}
		for from := 0; ; {
			i := strings.Index(text[from:], query)
			if i < 0 {
				return
			}
			c0 := ansi.StringWidth(text[:from+i])
			c1 := c0 + ansi.StringWidth(query)
			out = append(out, term.Match{Start: term.Pos{Line: line, Col: c0}, End: term.Pos{Line: line, Col: c1}})
			from += i + 1
		}
	})
	return out
}

// Text returns the text between two positions (term.Finder). An emulator
// that is not a term.Finder gives its plain lines, cut by columns.
func (p *Pane) Text(from, to term.Pos, lines bool) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ""
	}
	if f, ok := p.emu.(term.Finder); ok {
		return f.Text(from, to, lines)
	}
	if to.Less(from) {
		from, to = to, from
	}
	if lines {
		from.Col, to.Col = 0, 1<<30
	}
	var out []string
	p.eachPlainLocked(func(line int, text string) {
		if line < from.Line || line > to.Line {
			return
		}
		c0, c1 := 0, 1<<30
		if line == from.Line {
			c0 = from.Col
		}
		if line == to.Line {
			c1 = to.Col
		}
		out = append(out, strings.TrimRight(ansi.Cut(text, c0, c1), " "))
	})
	return strings.Join(out, "\n")
}

// eachPlainLocked calls f with every line's number and plain text,
// scrollback then screen.
func (p *Pane) eachPlainLocked(f func(line int, text string)) {
	base := int(p.emu.ScrollbackDropped())
	sb := p.emu.ScrollbackLen()
	_, rows := p.emu.Size()
	var buf []byte
	for i := range sb + rows {
		if i < sb {
			buf = p.emu.AppendScrollback(buf[:0], i, false)
		} else {
			buf = p.emu.AppendLine(buf[:0], i-sb, false)
		}
		f(base+i, string(buf))
	}
}
