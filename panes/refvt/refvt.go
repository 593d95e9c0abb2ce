// Package refvt owns the reference terminal emulator: a thin adapter that puts
// github.com/charmbracelet/x/vt v0.1.0 behind term.Emulator. The project's own
// emulator (panes/vt) is differentially tested against it, and a pane can run
// on it. Correctness over speed: dirty rows are found by re-rendering every
// row and comparing, and rows render in the canonical form of
// docs/EMULATOR.md ("Rendering form"), the one panes/vt produces.
//
// What the adapter adds to x/vt: replies (DA, DSR, CPR, DECRQM) come out of a
// blocking pipe inside x/vt; a goroutine drains it and Write hands them to the
// reply callback before it returns, so callers see them synchronously. Mode
// 2026 (synchronized output), its DECRQM answer, OSC 9 and OSC 777;notify
// notifications, and DEC mode tracking for Modes are done here. Close (or
// garbage collection) ends the drainer.
//
// Limits: x/vt's own behaviour is not hidden. docs/EMULATOR.md lists the x/vt
// bugs found by the differential tests (a wide character in the last column
// is dropped, NEL and IRM are ignored, titles containing ';' are dropped, the
// pending wrap survives most sequences, …), each pinned by a test in
// panes/vt. x/vt is slow on long output (its scrollback shifts a slice per
// line: ~1 MB/s on a 10,000-line scrollback).
//
// The adapter is not safe for concurrent use, as term.Emulator says.
package refvt

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"runtime"
	"strconv"
	"sync"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	xvt "github.com/charmbracelet/x/vt"

	"github.com/okstra/cockpit/panes/term"
)

// sentinel is written into x/vt's reply pipe after every Write: when the
// drainer has read it, every reply written before it has been collected.
var sentinel = []byte("\x00refvt-sync\x00")

// Emulator is x/vt behind term.Emulator.
type Emulator struct {
	e          *xvt.Emulator
	cols, rows int

	sink  *sink  // replies collected by the drainer
	st    *state // what x/vt's callbacks write
	reply func([]byte)

	prev   [][]byte // last rendering of each row, for TakeDirty
	buf    []byte
	closed bool
}

// sink collects replies read from x/vt's pipe by the drainer goroutine.
type sink struct {
	mu      sync.Mutex
	pending []byte
}

// state is what x/vt's callbacks update. It is separate from Emulator so that
// nothing the drainer goroutine reaches refers back to the Emulator, which can
// then be collected (and its cleanup close x/vt, ending the drainer).
type state struct {
	title string
	modes map[int]bool // DEC private modes by number
	event func(term.Event)
}

func (st *state) emit(ev term.Event) {
	if st.event != nil {
		st.event(ev)
	}
}

var _ term.Emulator = (*Emulator)(nil)

// New returns x/vt at cols×rows behind term.Emulator.
func New(cols, rows int) term.Emulator {
	return NewEmulator(cols, rows)
}

// NewEmulator is New with the concrete type, for tests that need Inner.
func NewEmulator(cols, rows int) *Emulator {
	cols, rows = max(cols, 1), max(rows, 1)
	inner := xvt.NewEmulator(cols, rows)
	st := &state{modes: map[int]bool{7: true, 25: true}}
	r := &Emulator{e: inner, cols: cols, rows: rows, sink: &sink{}, st: st}
	r.prev = make([][]byte, rows)
	go r.sink.drain(inner)
	inner.SetCallbacks(xvt.Callbacks{
		Bell:  func() { st.emit(term.Event{Kind: term.EventBell}) },
		Title: func(s string) { st.title = s; st.emit(term.Event{Kind: term.EventTitle, Title: s}) },
		EnableMode: func(m ansi.Mode) {
			if d, ok := m.(ansi.DECMode); ok {
				st.modes[int(d)] = true
			}
		},
		DisableMode: func(m ansi.Mode) {
			if d, ok := m.(ansi.DECMode); ok {
				st.modes[int(d)] = false
			}
		},
	})
	inner.RegisterOscHandler(9, func(data []byte) bool {
		_, body, _ := bytes.Cut(data, []byte{';'})
		st.emit(term.Event{Kind: term.EventNotify, Body: string(body)})
		return true
	})
	inner.RegisterOscHandler(777, func(data []byte) bool {
		parts := bytes.SplitN(data, []byte{';'}, 4)
		if len(parts) >= 3 && string(parts[1]) == "notify" {
			ev := term.Event{Kind: term.EventNotify, Title: string(parts[2])}
			if len(parts) == 4 {
				ev.Body = string(parts[3])
			}
			st.emit(ev)
		}
		return true
	})
	// DECRQM for 2026: x/vt answers from its own table, which knows nothing
	// of synchronized output; report what this adapter tracked.
	inner.RegisterCsiHandler(ansi.Command('?', '$', 'p'), func(params ansi.Params) bool {
		n, _, ok := params.Param(0, 0)
		if !ok || n != 2026 {
			return false
		}
		v := 2
		if st.modes[2026] {
			v = 1
		}
		_, _ = inner.InputPipe().Write([]byte("\x1b[?2026;" + strconv.Itoa(v) + "$y"))
		return true
	})
	// Closing the reply pipe ends the drainer once r is unreachable.
	runtime.AddCleanup(r, func(e *xvt.Emulator) { _ = closePipe(e) }, inner)
	return r
}

// drain reads x/vt's reply pipe until it is closed, parking replies in
// pending and dropping the sync sentinel.
func (k *sink) drain(e *xvt.Emulator) {
	buf := make([]byte, 64<<10)
	for {
		n, err := e.Read(buf)
		if n > 0 && !bytes.Equal(buf[:n], sentinel) {
			k.mu.Lock()
			k.pending = append(k.pending, buf[:n]...)
			k.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// Close stops the reply drainer. The Emulator must not be used afterwards.
// An Emulator that is dropped without Close is closed when collected.
func (r *Emulator) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if err := closePipe(r.e); err != nil {
		return fmt.Errorf("close x/vt reply pipe: %w", err)
	}
	return nil
}

// closePipe closes x/vt's reply pipe from the writing end, which ends the
// drainer's Read with EOF. x/vt's own Close would also do it, but it sets a
// flag that its Read reads without a lock (a data race with the drainer).
func closePipe(e *xvt.Emulator) error {
	if pw, ok := e.InputPipe().(*io.PipeWriter); ok {
		return pw.Close()
	}
	return nil
}

// Inner is the wrapped x/vt emulator.
func (r *Emulator) Inner() *xvt.Emulator { return r.e }

// Write feeds program output to x/vt and hands its replies to the reply
// callback before returning.
func (r *Emulator) Write(p []byte) (int, error) {
	if r.closed {
		return 0, io.ErrClosedPipe
	}
	n, err := r.e.Write(p)
	if _, serr := r.e.InputPipe().Write(sentinel); serr == nil {
		r.sink.mu.Lock()
		out := r.sink.pending
		r.sink.pending = nil
		r.sink.mu.Unlock()
		if len(out) > 0 && r.reply != nil {
			r.reply(out)
		}
	}
	return n, err
}

// Resize changes the screen size.
func (r *Emulator) Resize(cols, rows int) {
	cols, rows = max(cols, 1), max(rows, 1)
	if cols == r.cols && rows == r.rows {
		return
	}
	r.cols, r.rows = cols, rows
	r.e.Resize(cols, rows)
	r.prev = make([][]byte, rows) // every row dirty
}

// Size reports the screen size.
func (r *Emulator) Size() (int, int) { return r.cols, r.rows }

// Cursor reports the cursor of the active screen.
func (r *Emulator) Cursor() term.Cursor {
	p := r.e.CursorPosition()
	return term.Cursor{X: p.X, Y: p.Y, Visible: !r.e.CursorHidden()}
}

// Modes reports the modes x/vt was asked for.
func (r *Emulator) Modes() term.Modes {
	m := term.Modes{
		AltScreen:      r.e.IsAltScreen(),
		BracketedPaste: r.st.modes[2004],
		AppCursor:      r.st.modes[1],
		AppKeypad:      r.st.modes[66],
		SyncOutput:     r.st.modes[2026],
		FocusEvents:    r.st.modes[1004],
		MouseSGR:       r.st.modes[1006],
	}
	switch {
	case r.st.modes[1003]:
		m.Mouse = term.MouseAny
	case r.st.modes[1002]:
		m.Mouse = term.MouseButton
	case r.st.modes[1000]:
		m.Mouse = term.MouseNormal
	case r.st.modes[9]:
		m.Mouse = term.MouseX10
	}
	return m
}

// Title is the last OSC 0/2 title.
func (r *Emulator) Title() string { return r.st.title }

// AppendLine appends visible row to dst in the canonical form of
// docs/EMULATOR.md ("Rendering"), the same form panes/vt produces.
func (r *Emulator) AppendLine(dst []byte, row int, styled bool) []byte {
	if row < 0 || row >= r.rows {
		return dst
	}
	line := make(uv.Line, r.cols)
	for x := range line {
		if c := r.e.CellAt(x, row); c != nil {
			line[x] = *c
		}
	}
	return AppendCells(dst, line, styled)
}

// ScrollbackLen is the number of lines x/vt keeps above the normal screen.
func (r *Emulator) ScrollbackLen() int { return r.e.ScrollbackLen() }

// ScrollbackDropped is always 0: x/vt does not say when its scrollback
// evicts a line (a scrolled view over refvt drifts once the history is full).
func (r *Emulator) ScrollbackDropped() uint64 { return 0 }

// AppendScrollback appends scrollback line i (0 = oldest) to dst.
func (r *Emulator) AppendScrollback(dst []byte, i int, styled bool) []byte {
	sb := r.e.Scrollback()
	if sb == nil {
		return dst
	}
	line := sb.Line(i)
	if line == nil {
		return dst
	}
	return AppendCells(dst, line, styled)
}

// TakeDirty re-renders every row and reports those that differ from the
// previous call.
func (r *Emulator) TakeDirty(dst []int) []int {
	for y := 0; y < r.rows; y++ {
		r.buf = r.AppendLine(r.buf[:0], y, true)
		if r.prev[y] == nil || !bytes.Equal(r.prev[y], r.buf) {
			r.prev[y] = append(r.prev[y][:0], r.buf...)
			if r.prev[y] == nil {
				r.prev[y] = []byte{}
			}
			dst = append(dst, y)
		}
	}
	return dst
}

// SetCallbacks sets where replies and events go.
func (r *Emulator) SetCallbacks(reply func(p []byte), event func(term.Event)) {
	r.reply, r.st.event = reply, event
}

// AppendCells renders x/vt cells in the canonical form: one full SGR
// ("ESC[0;...m") wherever the style changes, OSC 8 wherever the link
// changes, trailing blanks without a visible style trimmed, a reset at the
// end when anything is open. Without styled it is the bare text.
func AppendCells(dst []byte, line uv.Line, styled bool) []byte {
	end := len(line)
	for end > 0 && trimmable(&line[end-1]) {
		end--
	}
	var pen uv.Style
	var link uv.Link
	for x := 0; x < end; x++ {
		c := &line[x]
		if c.Width == 0 && c.Content == "" {
			continue // covered by a wide character
		}
		if styled {
			if !c.Style.Equal(&pen) {
				dst = appendSGR(dst, &c.Style)
				pen = c.Style
			}
			if c.Link != link {
				dst = appendLink(dst, c.Link)
				link = c.Link
			}
		}
		if c.Content == "" {
			dst = append(dst, ' ')
		} else {
			dst = append(dst, c.Content...)
		}
	}
	if styled {
		if link != (uv.Link{}) {
			dst = append(dst, "\x1b]8;;\x1b\\"...)
		}
		if !pen.IsZero() {
			dst = append(dst, "\x1b[0m"...)
		}
	}
	return dst
}

func trimmable(c *uv.Cell) bool {
	if c.Content != "" && c.Content != " " {
		return false
	}
	s := &c.Style
	return s.Bg == nil && s.Underline == 0 && s.Attrs&(uv.AttrReverse|uv.AttrStrikethrough) == 0 && c.Link == (uv.Link{})
}

func appendLink(dst []byte, l uv.Link) []byte {
	dst = append(dst, "\x1b]8;"...)
	dst = append(dst, l.Params...)
	dst = append(dst, ';')
	dst = append(dst, l.URL...)
	return append(dst, "\x1b\\"...)
}

func appendSGR(dst []byte, s *uv.Style) []byte {
	dst = append(dst, "\x1b[0"...)
	a := s.Attrs
	for _, f := range [...]struct {
		bit  uint8
		code string
	}{
		{uv.AttrBold, ";1"}, {uv.AttrFaint, ";2"}, {uv.AttrItalic, ";3"},
	} {
		if a&f.bit != 0 {
			dst = append(dst, f.code...)
		}
	}
	switch s.Underline {
	case ansi.UnderlineNone:
	case ansi.UnderlineSingle:
		dst = append(dst, ";4"...)
	default:
		dst = append(dst, ";4:"...)
		dst = strconv.AppendInt(dst, int64(s.Underline), 10)
	}
	for _, f := range [...]struct {
		bit  uint8
		code string
	}{
		{uv.AttrBlink, ";5"}, {uv.AttrRapidBlink, ";6"}, {uv.AttrReverse, ";7"},
		{uv.AttrConceal, ";8"}, {uv.AttrStrikethrough, ";9"},
	} {
		if a&f.bit != 0 {
			dst = append(dst, f.code...)
		}
	}
	dst = appendColor(dst, s.Fg, 30)
	dst = appendColor(dst, s.Bg, 40)
	dst = appendColor(dst, s.UnderlineColor, 50)
	return append(dst, 'm')
}

// appendColor writes a colour in the canonical form for base 30 (fg), 40 (bg)
// or 50 (underline, which has no 16-colour form).
func appendColor(dst []byte, c color.Color, base int) []byte {
	switch c := c.(type) {
	case nil:
		return dst
	case ansi.BasicColor:
		if base == 50 {
			dst = append(dst, ";58;5;"...)
			return strconv.AppendInt(dst, int64(c), 10)
		}
		dst = append(dst, ';')
		if c < 8 {
			return strconv.AppendInt(dst, int64(base)+int64(c), 10)
		}
		return strconv.AppendInt(dst, int64(base)+60+int64(c)-8, 10)
	case ansi.IndexedColor:
		dst = append(dst, ';')
		dst = strconv.AppendInt(dst, int64(base)+8, 10)
		dst = append(dst, ";5;"...)
		return strconv.AppendInt(dst, int64(c), 10)
	default:
		r, g, b, a := c.RGBA()
		if a == 0 {
			return dst // transparent: treated as default
		}
		dst = append(dst, ';')
		dst = strconv.AppendInt(dst, int64(base)+8, 10)
		dst = append(dst, ";2;"...)
		dst = strconv.AppendInt(dst, int64(r>>8), 10)
		dst = append(dst, ';')
		dst = strconv.AppendInt(dst, int64(g>>8), 10)
		dst = append(dst, ';')
		return strconv.AppendInt(dst, int64(b>>8), 10)
	}
}
