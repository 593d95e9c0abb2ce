package vt

import (
	"github.com/okstra/cockpit/panes/term"
)

// DefaultScrollback is the number of scrollback lines kept unless
// WithScrollback says otherwise.
const DefaultScrollback = 10000

// Option configures an Emulator.
type Option func(*Emulator)

// WithScrollback keeps at most n lines of scrollback (0 keeps none).
func WithScrollback(n int) Option {
	return func(e *Emulator) { e.sb.limit = max(n, 0) }
}

type line struct {
	cells   []Cell
	used    int  // no cell at or after used is anything but a default blank
	wrapped bool // the text goes on in the next line (autowrap)
	// enc is the line's scrollback encoding, kept up to date while text is
	// appended at its end (the common case of output) and otherwise made
	// when the cursor leaves the line by a line feed, while the cells are in
	// cache; encValid says no other change came after. A scroll then copies
	// enc instead of re-reading cells that have long left the cache.
	enc      []byte
	encValid bool
	inc      encState // how to go on appending to enc; cells < 0: cannot
}

// encState is where an incremental encoding stands.
type encState struct {
	cells   int    // cells covered by enc; -1 when enc cannot be extended
	countAt int    // offset of the open run's count in enc; -1: no run yet
	count   int    // items in the open run
	fg      uint64 // open run's style, as in fast.go's words
	style   uint64
}

// clearLine blanks the whole line with background bg.
func (ln *line) clear(bg Color) {
	clearCells(ln.cells[:max(ln.used, 0)], 0)
	if bg != 0 {
		clearCells(ln.cells, bg)
		ln.used = len(ln.cells)
		ln.wrapped = false
		ln.encValid = false
		return
	}
	ln.used = 0
	ln.wrapped = false
	// An empty line's encoding is its flags byte; appends extend it.
	ln.enc = append(ln.enc[:0], 0)
	ln.encValid = true
	ln.inc = encState{cells: 0, countAt: -1}
}

// touch marks row y changed: dirty for TakeDirty, its encoding stale.
func (e *Emulator) touch(y int) {
	e.dirty[y] = true
	e.scr.row(y).encValid = false
}

// screen is a ring of lines: row y is lines[(head+y) % len(lines)], so a
// full-screen scroll moves head instead of cells.
type screen struct {
	lines []line
	head  int
}

func (s *screen) row(y int) *line {
	i := s.head + y
	if i >= len(s.lines) {
		i -= len(s.lines)
	}
	return &s.lines[i]
}

// savedCursor is what DECSC keeps.
type savedCursor struct {
	x, y        int
	wrapPending bool
	pen         pen
	charsets    [4]uint8
	gl          uint8
	origin      bool
	valid       bool
}

// pen is the style new cells get.
type pen struct {
	fg, bg Color
	attr   Attr
	ul     Color
	link   uint16
	ext    uint16 // interned (ul, link)
}

const (
	csASCII uint8 = iota
	csDECGraphics
	csUK
)

// Emulator is the cockpit's terminal emulator. It implements term.Emulator
// and is not safe for concurrent use.
type Emulator struct {
	cols, rows int
	screens    [2]screen
	scr        *screen
	alt        bool

	x, y        int
	wrapPending bool
	pen         pen
	charsets    [4]uint8
	gl          uint8
	single      uint8 // single shift (2 or 3) for the next character
	// fancy says printing needs printRune's care: a non-ASCII charset in GL,
	// a single shift, insert mode or a pending ZWJ (see refreshFancy).
	fancy bool
	saved [2]savedCursor

	top, bot int // scroll region, inclusive

	autowrap, origin, insert, lnm, cursorVisible bool
	modes                                        term.Modes

	tabs     []bool
	sb       scrollback
	dirty    []bool
	allDirty bool // every row changed (scroll, screen switch, resize)
	title    string

	reply  func([]byte)
	event  func(term.Event)
	colors term.Colors // what colour queries are answered with

	t tables
	p parser

	utf8buf  [4]byte
	utf8n    int // bytes in utf8buf
	lastCh   rune
	lastX    int // cell of a last-column print without autowrap, else -1
	lastY    int
	joinNext bool // the last rune was a ZWJ: the next one joins its cluster
	scratch  []byte
	replyBuf []byte
	cellsBuf []Cell
	tmpLines []line
	srch     searcher // Search's buffers, reused
}

var (
	_ term.Emulator    = (*Emulator)(nil)
	_ term.ColorSetter = (*Emulator)(nil)
)

// New returns an emulator of cols×rows with DefaultScrollback lines of
// scrollback unless an option says otherwise.
func New(cols, rows int, opts ...Option) *Emulator {
	e := &Emulator{}
	e.sb.limit = DefaultScrollback
	for _, o := range opts {
		o(e)
	}
	e.t.init()
	e.colors = term.DefaultColors()
	e.cols, e.rows = max(cols, 1), max(rows, 1)
	for i := range e.screens {
		e.screens[i] = newScreen(e.cols, e.rows)
	}
	e.dirty = make([]bool, e.rows)
	e.reset()
	return e
}

func newScreen(cols, rows int) screen {
	s := screen{lines: make([]line, rows)}
	block := make([]Cell, cols*rows)
	for i := range s.lines {
		s.lines[i].cells = block[i*cols : (i+1)*cols : (i+1)*cols]
	}
	return s
}

// reset is RIS: both screens and the scrollback cleared, modes and tabs to
// their defaults, as xterm's full reset (tmux 3.3a keeps its history, see
// docs/EMULATOR.md). ScrollbackDropped does not go back, as with ED 3.
func (e *Emulator) reset() {
	e.sb.clear()
	for i := range e.screens {
		s := &e.screens[i]
		for y := range s.lines {
			ln := &s.lines[y]
			ln.used = len(ln.cells)
			ln.clear(0)
		}
		s.head = 0
	}
	e.scr = &e.screens[0]
	e.alt = false
	e.x, e.y, e.wrapPending = 0, 0, false
	e.pen = pen{}
	e.charsets = [4]uint8{}
	e.gl, e.single = 0, 0
	e.saved = [2]savedCursor{}
	e.top, e.bot = 0, e.rows-1
	e.autowrap, e.origin, e.insert, e.lnm, e.cursorVisible = true, false, false, false, true
	e.modes = term.Modes{}
	e.resetTabs()
	e.lastCh = 0
	e.joinNext = false
	e.p.state = stGround
	e.utf8n = 0
	e.markAll()
	e.refreshFancy()
}

// refreshFancy recomputes fancy; every path that changes charsets, GL, the
// single shift, insert mode or joinNext ends by calling it (SCS, lockShift,
// singleShift, IRM, restoreCursor, DECSTR, RIS, printRune).
func (e *Emulator) refreshFancy() {
	e.fancy = e.charsets[e.gl] != csASCII || e.single != 0 || e.insert || e.joinNext
}

// softReset is DECSTR.
func (e *Emulator) softReset() {
	e.insert, e.origin, e.autowrap, e.cursorVisible = false, false, true, true
	e.modes.AppCursor, e.modes.AppKeypad = false, false
	e.top, e.bot = 0, e.rows-1
	e.pen = pen{}
	e.charsets = [4]uint8{}
	e.gl, e.single = 0, 0
	e.saved[e.screenIndex()] = savedCursor{}
	e.wrapPending = false
	e.refreshFancy()
}

func (e *Emulator) screenIndex() int {
	if e.alt {
		return 1
	}
	return 0
}

func (e *Emulator) markAll() { e.allDirty = true }

func (e *Emulator) markRange(top, bot int) {
	for i := top; i <= bot; i++ {
		e.dirty[i] = true
	}
}

// Write feeds program output. It never blocks and keeps partial sequences
// and partial UTF-8 for the next call.
func (e *Emulator) Write(p []byte) (int, error) {
	i := 0
	for i < len(p) {
		if e.p.state == stGround {
			b := p[i]
			if e.utf8n > 0 {
				i += e.utf8Continue(p[i:])
				continue
			}
			if b >= 0x20 && b < 0x7f {
				i += e.printASCII(p[i:])
				continue
			}
			if b >= 0x80 {
				i += e.printUTF8(p[i:])
				continue
			}
			if b == 0x1b {
				if i+1 < len(p) && p[i+1] == '[' {
					if n := e.fastCSI(p[i:]); n > 0 {
						i += n
						continue
					}
				}
			} else if b < 0x20 {
				// C0 in ground state: the table would only say "execute".
				e.execute(b)
				i++
				continue
			}
		}
		e.advance(p[i])
		i++
	}
	return len(p), nil
}

// Size reports the screen size.
func (e *Emulator) Size() (int, int) { return e.cols, e.rows }

// Cursor reports the cursor of the active screen.
func (e *Emulator) Cursor() term.Cursor {
	return term.Cursor{X: e.x, Y: e.y, Visible: e.cursorVisible}
}

// Modes reports the modes a pane needs.
func (e *Emulator) Modes() term.Modes {
	m := e.modes
	m.AltScreen = e.alt
	return m
}

// Title is the last OSC 0/2 title.
func (e *Emulator) Title() string { return e.title }

// SetColors sets the colours OSC 10, 11, 12 and 4 queries are answered
// with (term.ColorSetter); RIS keeps them, as they are the terminal's.
func (e *Emulator) SetColors(c term.Colors) { e.colors = c }

// SetCallbacks sets where replies and events go.
func (e *Emulator) SetCallbacks(reply func(p []byte), event func(term.Event)) {
	e.reply, e.event = reply, event
}

// TakeDirty appends the rows changed since the previous call and clears the
// marks.
func (e *Emulator) TakeDirty(dst []int) []int {
	all := e.allDirty
	e.allDirty = false
	for y, d := range e.dirty {
		if d || all {
			dst = append(dst, y)
			e.dirty[y] = false
		}
	}
	return dst
}

// Cell returns the cell at column x of visible row y (zero Cell when out of
// range). A wide character's covered cell has AttrWideCont.
func (e *Emulator) Cell(x, y int) Cell {
	if x < 0 || y < 0 || x >= e.cols || y >= e.rows {
		return Cell{}
	}
	return e.scr.row(y).cells[x]
}

// CellText is the text of a cell ("" for a wide character's covered cell,
// " " for a blank).
func (e *Emulator) CellText(c Cell) string {
	if c.Attr&AttrWideCont != 0 {
		return ""
	}
	return string(e.t.appendContent(nil, &c))
}

// Wrapped reports whether visible row y continues on the next row because
// the text autowrapped.
func (e *Emulator) Wrapped(y int) bool {
	if y < 0 || y >= e.rows {
		return false
	}
	return e.scr.row(y).wrapped
}

// CellStyle reports the underline colour and hyperlink (params, URL) of a
// cell's Ext.
func (e *Emulator) CellStyle(c Cell) (ul Color, params, url string) {
	x := e.t.extras[c.Ext]
	l := e.t.links[x.link]
	return x.ul, l.params, l.url
}

func (e *Emulator) emit(ev term.Event) {
	if e.event != nil {
		e.event(ev)
	}
}

func (e *Emulator) sendReply(b []byte) {
	if e.reply != nil {
		e.reply(b)
	}
}
