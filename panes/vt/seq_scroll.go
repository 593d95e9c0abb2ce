package vt

// Scrolling and the scroll region: IND, RI, SU, SD and DECSTBM, and the
// region scrolls that IL, DL and line feeds use.

// inRegion reports whether the cursor's row is inside the scroll region.
func (e *Emulator) inRegion() bool { return e.y >= e.top && e.y <= e.bot }

// setScrollRegion is DECSTBM: rows top..bot, 1-based, bot clamped to the
// screen; an empty region is ignored. The cursor goes home.
func (e *Emulator) setScrollRegion(top, bot int) {
	bot = min(bot, e.rows)
	if top < bot {
		e.top, e.bot = top-1, bot-1
		e.cup(1, 1)
	}
}

// scrollRegionUp is SU: the region scrolls up n lines, into the scrollback
// when the region is the whole normal screen.
func (e *Emulator) scrollRegionUp(n int) { e.scrollUp(e.top, e.bot, n, true) }

// scrollRegionDown is SD: the region scrolls down n lines.
func (e *Emulator) scrollRegionDown(n int) {
	e.unwrapRow(e.top)
	e.unwrapAbove(e.top)
	e.scrollDown(e.top, e.bot, n)
}

// index moves down a line, scrolling the region when at its bottom (IND,
// LF).
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

// reverseIndex moves up a line, scrolling the region down at its top (RI).
// A pending wrap survives it, as in tmux and x/vt.
func (e *Emulator) reverseIndex() {
	switch {
	case e.y == e.top:
		e.unwrapRow(e.top)
		e.unwrapAbove(e.top)
		e.scrollDown(e.top, e.bot, 1)
	case e.y > 0:
		e.y--
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

// lineTmp is a reused buffer of n line headers for the region scrolls.
func (e *Emulator) lineTmp(n int) []line {
	if cap(e.tmpLines) < n {
		e.tmpLines = make([]line, n)
	}
	return e.tmpLines[:n]
}
