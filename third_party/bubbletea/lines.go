package tea

import (
	"runtime"
	"strings"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// This file is the cockpit's fourth patch to bubbletea v2.1.1 (see
// README.md in this directory). Upstream's flush clears the whole cell
// buffer and parses the whole view into it on every frame, so every row is
// "touched" and the terminal renderer compares every row with the screen:
// a key echoed in one pane of a 160×48 screen cost a parse and a diff of
// all 7,680 cells (≈1.6 ms at load 25 on the 2-vCPU machine, most of a
// keystroke's echo). Here a frame redraws only the rows whose text differs
// from the previous frame's, when that gives the same cells: each row of
// both frames starts with the default pen (the SGR style and hyperlink
// carried over a newline are empty) and nothing in a row can reach into
// another (no pass-through string sequences, no row starting with a
// combining mark, no unterminated sequence, valid UTF-8). Otherwise, or
// after a resize, an erase, a reset or a width-method change, the frame is
// drawn whole as upstream draws it.

// scrollOptim is upstream's choice of scroll optimization (reset): off on
// Windows, for some terminals' bugs.
var scrollOptim = runtime.GOOS != "windows"

// viewLines is what the renderer keeps of the last frame it drew.
type viewLines struct {
	rows []string
	// clean[i] says row i cannot change how another row is parsed (see
	// lineClean), so it can be drawn alone; all says every row is.
	clean []bool
	all   bool
}

// drawContent draws content into the cell buffer: only the changed rows
// when whole is false and the last frame allows it, else everything.
// Called with s.mu held.
func (s *cursedRenderer) drawContent(content string, alt, whole bool) {
	rows := strings.Split(content, "\n")
	prev := s.lines
	s.lines = nil
	if !whole && alt && prev != nil && prev.all && len(rows) == len(prev.rows) && len(rows) == s.cellbuf.Height() {
		clean := make([]bool, len(rows))
		ok := true
		for i, r := range rows {
			if r == prev.rows[i] {
				clean[i] = prev.clean[i]
			} else {
				clean[i] = lineClean(r, s.cellbuf.Method)
			}
			if !clean[i] {
				ok = false
				break
			}
		}
		if ok {
			w := s.cellbuf.Width()
			changed := 0
			for i, r := range rows {
				if r != prev.rows[i] {
					uv.NewStyledString(r).Draw(s.cellbuf, uv.Rect(0, i, w, 1))
					changed++
				}
			}
			// A scroll changes every row of its region: with a few rows
			// changed there is none worth finding, and looking (hashing every
			// row of both buffers) would cost more than the rows drawn. The
			// hashes of a later frame that looks are taken afresh: every row
			// keeps a touched record once drawn, and those are rehashed.
			s.scr.SetScrollOptim(scrollOptim && changed > len(rows)/4)
			s.lines = &viewLines{rows: rows, clean: clean, all: true}
			return
		}
	}
	s.scr.SetScrollOptim(scrollOptim)
	s.cellbuf.Clear()
	uv.NewStyledString(content).Draw(s.cellbuf, s.cellbuf.Bounds())
	if alt && len(rows) == s.cellbuf.Height() {
		clean := make([]bool, len(rows))
		all := true
		for i, r := range rows {
			clean[i] = lineClean(r, s.cellbuf.Method)
			all = all && clean[i]
		}
		s.lines = &viewLines{rows: rows, clean: clean, all: all}
	}
}

// lineClean says whether row r, parsed alone from the default pen, gives
// the cells it gives in the whole view, and leaves the default pen for the
// row after it: it is valid UTF-8, does not start with a zero-width
// character (which the whole parse folds into the previous row's last
// cell), holds no DCS, APC, SOS or PM (which ride on the next glyph, maybe
// the next row's) and no unterminated sequence, and its SGR and OSC 8
// sequences end with the default style and no link.
func lineClean(r string, m ansi.Method) bool {
	if !utf8.ValidString(r) {
		return false
	}
	if len(r) > 0 && r[0] >= utf8.RuneSelf {
		if m != ansi.GraphemeWidth {
			m = ansi.WcWidth
		}
		if _, w := ansi.FirstGraphemeCluster(r, m); w == 0 {
			return false
		}
	}
	// A C1 control as a character (U+0080–U+009F) may start a sequence.
	for i := strings.IndexByte(r, 0xc2); i >= 0 && i+1 < len(r); {
		if r[i+1] < 0xa0 {
			return false
		}
		j := strings.IndexByte(r[i+1:], 0xc2)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if strings.IndexByte(r, ansi.ESC) < 0 {
		return true
	}
	p := ansi.GetParser()
	defer ansi.PutParser(p)
	var style uv.Style
	var link uv.Link
	for i := strings.IndexByte(r, ansi.ESC); i >= 0; {
		rest := r[i:]
		seq, _, n, state := ansi.DecodeSequence(rest, ansi.NormalState, p)
		if state != ansi.NormalState || n == 0 {
			return false // cut off at the row's end
		}
		switch {
		case ansi.HasCsiPrefix(seq) && p.Command() == 'm':
			uv.ReadStyle(p.Params(), &style)
		case ansi.HasOscPrefix(seq) && p.Command() == 8:
			uv.ReadLink(p.Data(), &link)
		case ansi.HasDcsPrefix(seq) || ansi.HasApcPrefix(seq) || ansi.HasSosPrefix(seq) || ansi.HasPmPrefix(seq):
			return false
		}
		if i+n == len(r) && !terminatedSeq(seq) {
			return false // it would run on into the next row
		}
		j := strings.IndexByte(rest[n:], ansi.ESC)
		if j < 0 {
			break
		}
		i += n + j
	}
	return style.IsZero() && link == (uv.Link{})
}

// terminatedSeq says whether an escape sequence at a row's end is
// complete: a CSI with its final byte, an OSC ended by BEL or ST, any other
// sequence of at least two bytes.
func terminatedSeq(seq string) bool {
	switch {
	case ansi.HasCsiPrefix(seq):
		c := seq[len(seq)-1]
		return len(seq) > 2 && c >= 0x40 && c <= 0x7e
	case ansi.HasOscPrefix(seq):
		return strings.HasSuffix(seq, "\x07") || strings.HasSuffix(seq, "\x1b\\")
	}
	return len(seq) >= 2
}
