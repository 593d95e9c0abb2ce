package vt

import (
	"bytes"
	"strconv"

	"github.com/okstra/cockpit/panes/term"
)

// execute runs a C0 control.
func (e *Emulator) execute(b byte) {
	switch b {
	case 0x07:
		e.emit(term.Event{Kind: term.EventBell})
	case 0x08:
		if e.x > 0 {
			e.x--
		}
		e.wrapPending = false
	case 0x09:
		e.tab(1)
	case 0x0a, 0x0b, 0x0c:
		e.index()
		if e.lnm {
			e.x = 0
		}
	case 0x0d:
		e.x = 0
		e.wrapPending = false
	case 0x0e:
		e.gl = 1
		e.refreshFancy()
	case 0x0f:
		e.gl = 0
		e.refreshFancy()
	}
}

func (e *Emulator) tab(n int) {
	for ; n > 0 && e.x < e.cols-1; n-- {
		e.x++
		for e.x < e.cols-1 && !e.tabs[e.x] {
			e.x++
		}
	}
}

func (e *Emulator) backTab(n int) {
	e.wrapPending = false
	for ; n > 0 && e.x > 0; n-- {
		e.x--
		for e.x > 0 && !e.tabs[e.x] {
			e.x--
		}
	}
}

// index moves down a line, scrolling the region when at its bottom.
func (e *Emulator) index() {
	e.wrapPending = false
	if !e.alt && e.sb.limit > 0 && encFast {
		// Encode the line being left while it is hot; a scroll copies it.
		ln := e.scr.row(e.y)
		if !ln.encValid {
			ln.enc = encodeLine(ln.enc[:0], ln.cells[:min(ln.used, len(ln.cells))], ln.wrapped)
			ln.encValid = true
			ln.inc.cells = -1
		}
	}
	switch {
	case e.y == e.bot:
		e.scrollUp(e.top, e.bot, 1, true)
	case e.y < e.rows-1:
		e.y++
	}
}

// reverseIndex moves up a line, scrolling the region down at its top. A
// pending wrap survives it, as in tmux and x/vt.
func (e *Emulator) reverseIndex() {
	switch {
	case e.y == e.top:
		e.scrollDown(e.top, e.bot, 1)
	case e.y > 0:
		e.y--
	}
}

func clearCells(cells []Cell, bg Color) {
	if bg == 0 {
		clear(cells)
		return
	}
	for i := range cells {
		c := &cells[i]
		c.Ch, c.Fg, c.Bg, c.Attr, c.Ext = 0, 0, bg, 0, 0
	}
}

// scrollUp scrolls rows top..bot up by n. With history, a full-screen scroll
// of the normal screen moves the top lines into the scrollback; the ring head
// advances instead of cells moving.
func (e *Emulator) scrollUp(top, bot, n int, history bool) {
	n = min(n, bot-top+1)
	if n <= 0 {
		return
	}
	bg := e.pen.bg
	if top == 0 && bot == e.rows-1 {
		s := e.scr
		for range n {
			ln := s.row(0)
			if history && !e.alt {
				e.sb.push(ln)
			}
			ln.clear(bg)
			s.head++
			if s.head == len(s.lines) {
				s.head = 0
			}
		}
		e.markAll()
		return
	}
	s := e.scr
	tmp := e.lineTmp(n)
	for i := range n {
		tmp[i] = *s.row(top + i)
	}
	for y := top; y+n <= bot; y++ {
		*s.row(y) = *s.row(y + n)
	}
	for i := range n {
		ln := s.row(bot - n + 1 + i)
		*ln = tmp[i]
		ln.clear(bg)
	}
	e.markRange(top, bot)
}

// scrollDown scrolls rows top..bot down by n, blank lines coming in at top.
func (e *Emulator) scrollDown(top, bot, n int) {
	n = min(n, bot-top+1)
	if n <= 0 {
		return
	}
	s := e.scr
	tmp := e.lineTmp(n)
	for i := range n {
		tmp[i] = *s.row(bot - n + 1 + i)
	}
	for y := bot; y-n >= top; y-- {
		*s.row(y) = *s.row(y - n)
	}
	for i := range n {
		ln := s.row(top + i)
		*ln = tmp[i]
		ln.clear(e.pen.bg)
	}
	e.markRange(top, bot)
}

func (e *Emulator) lineTmp(n int) []line {
	if cap(e.tmpLines) < n {
		e.tmpLines = make([]line, n)
	}
	return e.tmpLines[:n]
}

// eraseCells blanks columns a..b-1 of row y with the pen's background,
// breaking wide characters cut at either edge.
func (e *Emulator) eraseCells(y, a, b int) {
	a, b = max(a, 0), min(b, e.cols)
	if a >= b {
		return
	}
	ln := e.scr.row(y)
	if a >= ln.used && e.pen.bg == 0 {
		// Nothing but default blanks there: nothing changes. (Log output
		// often ends its lines with EL.)
		if b == e.cols && ln.wrapped {
			ln.wrapped = false
			e.touch(y)
		}
		return
	}
	if ln.cells[a].Attr&AttrWideCont != 0 && a > 0 {
		e.breakWide(ln, a-1)
	}
	if ln.cells[b-1].Attr&AttrWide != 0 && b < e.cols {
		e.breakWide(ln, b-1)
	}
	if a == 0 && b == e.cols {
		ln.clear(e.pen.bg)
	} else {
		clearCells(ln.cells[a:b], e.pen.bg)
		if e.pen.bg != 0 {
			ln.used = max(ln.used, b)
		}
		if b == e.cols {
			ln.wrapped = false
		}
	}
	e.touch(y)
}

func (e *Emulator) eraseDisplay(mode int) {
	switch mode {
	case 0:
		e.eraseCells(e.y, e.x, e.cols)
		for y := e.y + 1; y < e.rows; y++ {
			e.eraseCells(y, 0, e.cols)
		}
	case 1:
		for y := 0; y < e.y; y++ {
			e.eraseCells(y, 0, e.cols)
		}
		e.eraseCells(e.y, 0, e.x+1)
	case 2:
		if !e.alt {
			// As tmux (scroll-on-clear): the used part of the screen goes
			// into the scrollback rather than nowhere.
			last := -1
			for y := e.rows - 1; y >= 0; y-- {
				if !lineBlank(e.scr.row(y)) {
					last = y
					break
				}
			}
			for y := 0; y <= last; y++ {
				e.sb.push(e.scr.row(y))
			}
		}
		for y := 0; y < e.rows; y++ {
			e.eraseCells(y, 0, e.cols)
		}
	case 3:
		e.sb.clear()
	}
}

func lineBlank(ln *line) bool {
	for i := range ln.cells[:min(ln.used, len(ln.cells))] {
		if !ln.cells[i].trimmable() {
			return false
		}
	}
	return true
}

// insertBlanks shifts the cells from the cursor right by n (ICH, IRM).
func (e *Emulator) insertBlanks(n int) {
	ln := e.scr.row(e.y)
	x := e.x
	n = min(n, e.cols-x)
	if n <= 0 {
		return
	}
	cells := ln.cells
	if cells[x].Attr&AttrWideCont != 0 && x > 0 {
		e.breakWide(ln, x-1)
	}
	copy(cells[x+n:], cells[x:e.cols-n])
	ln.used = min(ln.used+n, e.cols)
	if e.pen.bg != 0 {
		ln.used = e.cols
	}
	if last := e.cols - 1; cells[last].Attr&AttrWide != 0 {
		e.breakWide(ln, last)
	}
	clearCells(cells[x:x+n], e.pen.bg)
	e.touch(e.y)
}

// deleteCells removes n cells at the cursor, shifting the rest left (DCH).
func (e *Emulator) deleteCells(n int) {
	ln := e.scr.row(e.y)
	x := e.x
	n = min(n, e.cols-x)
	if n <= 0 {
		return
	}
	cells := ln.cells
	if cells[x].Attr&AttrWideCont != 0 && x > 0 {
		e.breakWide(ln, x-1)
	}
	if end := x + n - 1; cells[end].Attr&AttrWide != 0 && end+1 < e.cols {
		e.breakWide(ln, end)
	}
	copy(cells[x:], cells[x+n:])
	clearCells(cells[e.cols-n:], e.pen.bg)
	if e.pen.bg != 0 {
		ln.used = e.cols
	}
	e.touch(e.y)
}

// setCursor moves to (x, y) of the screen, clamped; it ends a pending wrap.
func (e *Emulator) setCursor(x, y int) {
	e.x = min(max(x, 0), e.cols-1)
	e.y = min(max(y, 0), e.rows-1)
	e.wrapPending = false
}

// cup is CUP: row and column are 1-based and relative to the region in
// origin mode.
func (e *Emulator) cup(row, col int) {
	if e.origin {
		e.setCursor(col-1, min(e.top+row-1, e.bot))
		return
	}
	e.setCursor(col-1, row-1)
}

func (e *Emulator) saveCursor() {
	e.saved[e.screenIndex()] = savedCursor{
		x: e.x, y: e.y, wrapPending: e.wrapPending, pen: e.pen,
		charsets: e.charsets, gl: e.gl, origin: e.origin, valid: true,
	}
}

func (e *Emulator) restoreCursor() {
	s := e.saved[e.screenIndex()]
	if !s.valid {
		e.setCursor(0, 0)
		e.pen = pen{}
		e.origin = false
		e.charsets = [4]uint8{}
		e.gl = 0
		e.refreshFancy()
		return
	}
	e.setCursor(s.x, s.y)
	e.wrapPending = s.wrapPending && e.x == e.cols-1
	e.pen = s.pen
	e.charsets, e.gl = s.charsets, s.gl
	e.origin = s.origin
	e.refreshFancy()
}

// setAlt switches between the normal and the alternate screen.
func (e *Emulator) setAlt(on, clearAlt bool) {
	if on == e.alt {
		return
	}
	e.alt = on
	if on {
		e.scr = &e.screens[1]
		if clearAlt {
			for y := 0; y < e.rows; y++ {
				e.scr.row(y).clear(0)
			}
		}
	} else {
		e.scr = &e.screens[0]
	}
	e.markAll()
}

func (e *Emulator) escDispatch(b byte) {
	defer e.refreshFancy()
	p := &e.p
	if p.ninter > 0 {
		switch p.inter {
		case '(', ')', '*', '+':
			g := p.inter - '('
			switch b {
			case '0':
				e.charsets[g] = csDECGraphics
			case 'A':
				e.charsets[g] = csUK
			default:
				e.charsets[g] = csASCII
			}
		case '#':
			if b == '8' {
				e.decaln()
			}
		}
		return
	}
	switch b {
	case '7':
		e.saveCursor()
	case '8':
		e.restoreCursor()
	case 'D':
		e.index()
	case 'E':
		e.index()
		e.x = 0
	case 'H':
		e.tabs[e.x] = true
	case 'M':
		e.reverseIndex()
	case 'c':
		e.reset()
	case '=':
		e.modes.AppKeypad = true
	case '>':
		e.modes.AppKeypad = false
	case 'n':
		e.gl = 2
	case 'o':
		e.gl = 3
	case 'N':
		e.single = 2
	case 'O':
		e.single = 3
	}
}

// decaln fills the screen with 'E' (DEC screen alignment test).
func (e *Emulator) decaln() {
	e.top, e.bot = 0, e.rows-1
	for y := 0; y < e.rows; y++ {
		ln := e.scr.row(y)
		for x := range ln.cells {
			ln.cells[x] = Cell{Ch: 'E'}
		}
		ln.used = len(ln.cells)
		ln.wrapped = false
		ln.encValid = false
	}
	e.setCursor(0, 0)
	e.markAll()
}

func (e *Emulator) csiDispatch(final byte) {
	p := &e.p
	if p.ninter == 1 {
		switch {
		case p.inter == '!' && final == 'p':
			e.softReset()
		case p.inter == '$' && final == 'p':
			e.reportMode()
		}
		return // other intermediates: DECSCUSR, DECSCA, ... ignored
	}
	switch p.prefix {
	case 0:
	case '?':
		switch final {
		case 'h', 'l':
			for i := 0; i <= p.np; i++ {
				e.setDECMode(int(p.params[i]), final == 'h')
			}
		case 'n':
			if p.param(0, 0) == 6 {
				e.replyf3("\x1b[?", e.cprRow(), ';', e.x+1, ";1R")
			}
		}
		return
	case '>':
		switch final {
		case 'c':
			if p.param(0, 0) == 0 {
				e.sendReply(append(e.replyBuf[:0], "\x1b[>1;10;0c"...))
			}
		case 'q':
			if p.param(0, 0) == 0 {
				e.sendReply(append(e.replyBuf[:0], "\x1bP>|cockpit\x1b\\"...))
			}
		}
		return
	default:
		return
	}
	switch final {
	case '@':
		e.wrapPending = false
		e.insertBlanks(p.param(0, 1))
	case 'A':
		n := p.param(0, 1)
		if e.y >= e.top {
			e.setCursor(e.x, max(e.y-n, e.top))
		} else {
			e.setCursor(e.x, e.y-n)
		}
	case 'B', 'e':
		n := p.param(0, 1)
		if e.y <= e.bot {
			e.setCursor(e.x, min(e.y+n, e.bot))
		} else {
			e.setCursor(e.x, e.y+n)
		}
	case 'C', 'a':
		e.setCursor(e.x+p.param(0, 1), e.y)
	case 'D':
		e.setCursor(e.x-p.param(0, 1), e.y)
	case 'E':
		n := p.param(0, 1)
		if e.y <= e.bot {
			e.setCursor(0, min(e.y+n, e.bot))
		} else {
			e.setCursor(0, e.y+n)
		}
	case 'F':
		n := p.param(0, 1)
		if e.y >= e.top {
			e.setCursor(0, max(e.y-n, e.top))
		} else {
			e.setCursor(0, e.y-n)
		}
	case 'G', '`':
		e.setCursor(p.param(0, 1)-1, e.y)
	case 'H', 'f':
		e.cup(p.param(0, 1), p.param(1, 1))
	case 'I':
		e.tab(p.param(0, 1))
	case 'J':
		e.wrapPending = false
		e.eraseDisplay(p.param(0, 0))
	case 'K':
		e.wrapPending = false
		switch p.param(0, 0) {
		case 0:
			e.eraseCells(e.y, e.x, e.cols)
		case 1:
			e.eraseCells(e.y, 0, e.x+1)
		case 2:
			e.eraseCells(e.y, 0, e.cols)
		}
	case 'L':
		if e.y >= e.top && e.y <= e.bot {
			e.scrollDown(e.y, e.bot, p.param(0, 1))
			e.setCursor(0, e.y)
		}
	case 'M':
		if e.y >= e.top && e.y <= e.bot {
			e.scrollUp(e.y, e.bot, p.param(0, 1), false)
			e.setCursor(0, e.y)
		}
	case 'P':
		e.wrapPending = false
		e.deleteCells(p.param(0, 1))
	case 'S':
		e.scrollUp(e.top, e.bot, p.param(0, 1), true)
	case 'T':
		if p.np == 0 {
			e.scrollDown(e.top, e.bot, p.param(0, 1))
		}
	case 'X':
		e.wrapPending = false
		e.eraseCells(e.y, e.x, e.x+p.param(0, 1))
	case 'Z':
		e.backTab(p.param(0, 1))
	case 'b':
		if e.lastCh != 0 {
			for n := min(p.param(0, 1), e.cols*e.rows); n > 0; n-- {
				e.printRune(e.lastCh)
			}
		}
	case 'c':
		if p.param(0, 0) == 0 {
			e.sendReply(append(e.replyBuf[:0], "\x1b[?62;22c"...))
		}
	case 'd':
		row := p.param(0, 1)
		if e.origin {
			e.setCursor(e.x, min(e.top+row-1, e.bot))
		} else {
			e.setCursor(e.x, row-1)
		}
	case 'g':
		switch p.param(0, 0) {
		case 0:
			e.tabs[e.x] = false
		case 3:
			clear(e.tabs)
		}
	case 'h', 'l':
		for i := 0; i <= p.np; i++ {
			switch p.params[i] {
			case 4:
				e.insert = final == 'h'
				e.refreshFancy()
			case 20:
				e.lnm = final == 'h'
			}
		}
	case 'm':
		e.sgr()
	case 'n':
		switch p.param(0, 0) {
		case 5:
			e.sendReply(append(e.replyBuf[:0], "\x1b[0n"...))
		case 6:
			e.replyf3("\x1b[", e.cprRow(), ';', e.x+1, "R")
		}
	case 'r':
		top, bot := p.param(0, 1), p.param(1, e.rows)
		bot = min(bot, e.rows)
		if top < bot {
			e.top, e.bot = top-1, bot-1
			e.cup(1, 1)
		}
	case 's':
		e.saveCursor()
	case 'u':
		e.restoreCursor()
	case 't':
		if p.param(0, 0) == 18 {
			e.replyf3("\x1b[8;", e.rows, ';', e.cols, "t")
		}
	}
}

func (e *Emulator) cprRow() int {
	if e.origin {
		return e.y - e.top + 1
	}
	return e.y + 1
}

// replyf3 sends pre + a + sep + b + post.
func (e *Emulator) replyf3(pre string, a int, sep byte, b int, post string) {
	r := append(e.replyBuf[:0], pre...)
	r = strconv.AppendInt(r, int64(a), 10)
	r = append(r, sep)
	r = strconv.AppendInt(r, int64(b), 10)
	r = append(r, post...)
	e.replyBuf = r
	e.sendReply(r)
}

func (e *Emulator) setDECMode(mode int, on bool) {
	switch mode {
	case 1:
		e.modes.AppCursor = on
	case 6:
		e.origin = on
		e.cup(1, 1)
	case 7:
		e.autowrap = on
		if !on {
			e.wrapPending = false
		}
	case 9, 1000, 1002, 1003:
		if !on {
			e.modes.Mouse = term.MouseNone
			return
		}
		switch mode {
		case 9:
			e.modes.Mouse = term.MouseX10
		case 1000:
			e.modes.Mouse = term.MouseNormal
		case 1002:
			e.modes.Mouse = term.MouseButton
		case 1003:
			e.modes.Mouse = term.MouseAny
		}
	case 25:
		e.cursorVisible = on
	case 47:
		e.setAlt(on, false)
	case 1047:
		if !on && e.alt {
			for y := 0; y < e.rows; y++ {
				e.scr.row(y).clear(0)
			}
		}
		e.setAlt(on, false)
	case 1048:
		if on {
			e.saveCursor()
		} else {
			e.restoreCursor()
		}
	case 1049:
		if on {
			if !e.alt {
				e.saveCursor()
				e.setAlt(true, true)
			}
		} else {
			// As xterm and tmux: the cursor is restored even when the normal
			// screen is already showing.
			e.setAlt(false, false)
			e.restoreCursor()
		}
	case 1004:
		e.modes.FocusEvents = on
	case 1006:
		e.modes.MouseSGR = on
	case 2004:
		e.modes.BracketedPaste = on
	case 2026:
		e.modes.SyncOutput = on
	}
}

// reportMode answers DECRQM: 1 set, 2 reset, 0 not recognised.
func (e *Emulator) reportMode() {
	p := &e.p
	mode := int(p.params[0])
	v := 0
	b2v := func(b bool) int {
		if b {
			return 1
		}
		return 2
	}
	if p.prefix == '?' {
		switch mode {
		case 1:
			v = b2v(e.modes.AppCursor)
		case 6:
			v = b2v(e.origin)
		case 7:
			v = b2v(e.autowrap)
		case 9:
			v = b2v(e.modes.Mouse == term.MouseX10)
		case 1000:
			v = b2v(e.modes.Mouse == term.MouseNormal)
		case 1002:
			v = b2v(e.modes.Mouse == term.MouseButton)
		case 1003:
			v = b2v(e.modes.Mouse == term.MouseAny)
		case 25:
			v = b2v(e.cursorVisible)
		case 47, 1047, 1049:
			v = b2v(e.alt)
		case 1004:
			v = b2v(e.modes.FocusEvents)
		case 1006:
			v = b2v(e.modes.MouseSGR)
		case 2004:
			v = b2v(e.modes.BracketedPaste)
		case 2026:
			v = b2v(e.modes.SyncOutput)
		}
		e.replyf3("\x1b[?", mode, ';', v, "$y")
		return
	}
	switch mode {
	case 4:
		v = b2v(e.insert)
	case 20:
		v = b2v(e.lnm)
	}
	e.replyf3("\x1b[", mode, ';', v, "$y")
}

// sgr applies Select Graphic Rendition, both ';' and ':' forms.
func (e *Emulator) sgr() {
	p := &e.p
	pen := &e.pen
	oldUL, oldLink := pen.ul, pen.link
	for i := 0; i <= p.np; i++ {
		v := p.params[i]
		// Constant cases: the compiler makes a jump table of this switch.
		switch v {
		case 0:
			pen.fg, pen.bg, pen.attr, pen.ul = 0, 0, 0, 0
		case 1:
			pen.attr |= AttrBold
		case 2:
			pen.attr |= AttrDim
		case 3:
			pen.attr |= AttrItalic
		case 4:
			style := Attr(1)
			if p.sub&(1<<i) != 0 && i < p.np {
				i++
				style = Attr(min(p.params[i], 5))
				for p.sub&(1<<i) != 0 && i < p.np {
					i++ // ignore further sub-parameters
				}
			}
			pen.attr = pen.attr&^AttrUnderlineMask | style<<attrULShift
		case 5:
			pen.attr |= AttrBlink
		case 6:
			pen.attr |= AttrRapidBlink
		case 7:
			pen.attr |= AttrInverse
		case 8:
			pen.attr |= AttrHidden
		case 9:
			pen.attr |= AttrStrike
		case 21:
			pen.attr = pen.attr&^AttrUnderlineMask | 2<<attrULShift
		case 22:
			pen.attr &^= AttrBold | AttrDim
		case 23:
			pen.attr &^= AttrItalic
		case 24:
			pen.attr &^= AttrUnderlineMask
		case 25:
			pen.attr &^= AttrBlink | AttrRapidBlink
		case 27:
			pen.attr &^= AttrInverse
		case 28:
			pen.attr &^= AttrHidden
		case 29:
			pen.attr &^= AttrStrike
		case 30, 31, 32, 33, 34, 35, 36, 37:
			pen.fg = BasicColor(uint8(v - 30))
		case 38, 48, 58:
			c, n := e.sgrColor(i)
			i += n
			if n > 0 && c != colorInvalid {
				switch v {
				case 38:
					pen.fg = c
				case 48:
					pen.bg = c
				default:
					pen.ul = c
				}
			}
		case 39:
			pen.fg = 0
		case 40, 41, 42, 43, 44, 45, 46, 47:
			pen.bg = BasicColor(uint8(v - 40))
		case 49:
			pen.bg = 0
		case 59:
			pen.ul = 0
		case 90, 91, 92, 93, 94, 95, 96, 97:
			pen.fg = BasicColor(uint8(v - 90 + 8))
		case 100, 101, 102, 103, 104, 105, 106, 107:
			pen.bg = BasicColor(uint8(v - 100 + 8))
		default:
			// unknown: skip its sub-parameters
			for p.sub&(1<<i) != 0 && i < p.np {
				i++
			}
		}
	}
	if pen.ul != oldUL || pen.link != oldLink {
		pen.ext = e.t.extra(extra{ul: pen.ul, link: pen.link})
	}
}

const colorInvalid Color = 0xffffffff

// sgrColor reads the colour after parameter i (38, 48 or 58) and returns it
// with the number of further parameters consumed.
func (e *Emulator) sgrColor(i int) (Color, int) {
	p := &e.p
	if p.sub&(1<<i) != 0 {
		// Colon form: the sub-parameters of i.
		j := i
		for p.sub&(1<<j) != 0 && j < p.np {
			j++
		}
		sub := p.params[i+1 : j+1]
		n := j - i
		if len(sub) == 0 {
			return colorInvalid, n
		}
		switch sub[0] {
		case 5:
			if len(sub) >= 2 {
				return IndexedColor(uint8(min(sub[1], 255))), n
			}
		case 2:
			switch {
			case len(sub) >= 5: // 2:cs:r:g:b (cs may be empty)
				return RGBColor(uint8(sub[2]), uint8(sub[3]), uint8(sub[4])), n
			case len(sub) == 4: // 2:r:g:b
				return RGBColor(uint8(sub[1]), uint8(sub[2]), uint8(sub[3])), n
			}
		}
		return colorInvalid, n
	}
	if i+1 > p.np {
		return colorInvalid, 0
	}
	switch p.params[i+1] {
	case 5:
		if i+2 <= p.np {
			return IndexedColor(uint8(min(p.params[i+2], 255))), 2
		}
		return colorInvalid, 1
	case 2:
		if i+4 <= p.np {
			return RGBColor(uint8(p.params[i+2]), uint8(p.params[i+3]), uint8(p.params[i+4])), 4
		}
		return colorInvalid, p.np - i
	}
	return colorInvalid, 1
}

// oscDispatch handles the OSC string collected in p.osc.
func (e *Emulator) oscDispatch() {
	p := &e.p
	if p.oscBig {
		return
	}
	data := p.osc
	num, rest, found := bytes.Cut(data, []byte{';'})
	cmd, err := strconv.Atoi(string(num))
	if err != nil {
		return
	}
	switch cmd {
	case 0, 2:
		if !found {
			return
		}
		if string(rest) != e.title {
			e.title = string(rest)
			e.emit(term.Event{Kind: term.EventTitle, Title: e.title})
		}
	case 8:
		params, url, ok := bytes.Cut(rest, []byte{';'})
		if !ok {
			return
		}
		id := uint16(0)
		if len(url) > 0 {
			id = e.t.link(link{params: string(params), url: string(url)})
		}
		if id != e.pen.link {
			e.pen.link = id
			e.pen.ext = e.t.extra(extra{ul: e.pen.ul, link: id})
		}
	case 9:
		if bytes.HasPrefix(rest, []byte("4;")) {
			return // ConEmu progress, not a notification
		}
		e.emit(term.Event{Kind: term.EventNotify, Body: string(rest)})
	case 777:
		kind, tail, _ := bytes.Cut(rest, []byte{';'})
		if string(kind) != "notify" {
			return
		}
		title, body, _ := bytes.Cut(tail, []byte{';'})
		e.emit(term.Event{Kind: term.EventNotify, Title: string(title), Body: string(body)})
	case 10, 11, 12:
		if string(rest) == "?" {
			c := "rgb:ffff/ffff/ffff"
			if cmd == 11 {
				c = "rgb:0000/0000/0000"
			}
			r := append(e.replyBuf[:0], "\x1b]"...)
			r = strconv.AppendInt(r, int64(cmd), 10)
			r = append(r, ';')
			r = append(r, c...)
			r = append(r, "\x1b\\"...)
			e.replyBuf = r
			e.sendReply(r)
		}
	}
}
