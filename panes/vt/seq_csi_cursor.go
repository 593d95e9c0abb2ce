package vt

// Cursor movement: CUU, CUD, CUF, CUB, CNL, CPL, CHA/HPA, HPR, VPA, VPR,
// CUP/HVP, and saving and restoring the cursor (DECSC/DECRC, CSI s/u).
// Counts arrive already defaulted (a missing or zero count is 1).

// setCursor moves to (x, y) of the screen, clamped; it ends a pending wrap.
func (e *Emulator) setCursor(x, y int) {
	e.x = min(max(x, 0), e.cols-1)
	e.y = min(max(y, 0), e.rows-1)
	e.wrapPending = false
}

// rowBy is the row n rows below the cursor (above it for n < 0) for a
// relative vertical move: the scroll region's margin in the direction of
// travel stops it unless the cursor is already beyond that margin, in which
// case only the screen's edge does (setCursor clamps to that).
func (e *Emulator) rowBy(n int) int {
	y := e.y + n
	switch {
	case n < 0 && e.y >= e.top:
		return max(y, e.top)
	case n > 0 && e.y <= e.bot:
		return min(y, e.bot)
	}
	return y
}

// originRow is the screen row of the 1-based row of CUP and VPA: in origin
// mode it counts from the region's top and stops at its bottom.
func (e *Emulator) originRow(row int) int {
	if e.origin {
		return min(e.top+row-1, e.bot)
	}
	return row - 1
}

// cursorUp is CUU.
func (e *Emulator) cursorUp(n int) { e.setCursor(e.x, e.rowBy(-n)) }

// cursorDown is CUD and VPR.
func (e *Emulator) cursorDown(n int) { e.setCursor(e.x, e.rowBy(n)) }

// cursorForward is CUF and HPR.
func (e *Emulator) cursorForward(n int) { e.setCursor(e.x+n, e.y) }

// cursorBackward is CUB.
func (e *Emulator) cursorBackward(n int) { e.setCursor(e.x-n, e.y) }

// cursorNextLine is CNL: down n rows, to the first column.
func (e *Emulator) cursorNextLine(n int) { e.setCursor(0, e.rowBy(n)) }

// cursorPrevLine is CPL: up n rows, to the first column.
func (e *Emulator) cursorPrevLine(n int) { e.setCursor(0, e.rowBy(-n)) }

// cursorColumn is CHA and HPA; col is 1-based.
func (e *Emulator) cursorColumn(col int) { e.setCursor(col-1, e.y) }

// cursorRow is VPA; row is 1-based and relative to the region in origin
// mode.
func (e *Emulator) cursorRow(row int) { e.setCursor(e.x, e.originRow(row)) }

// cup is CUP and HVP: row and column are 1-based and relative to the region
// in origin mode.
func (e *Emulator) cup(row, col int) { e.setCursor(col-1, e.originRow(row)) }

// saveCursor is DECSC (and CSI s, 1048 set): the position, pending wrap,
// pen, charsets and origin mode of the active screen.
func (e *Emulator) saveCursor() {
	e.saved[e.screenIndex()] = savedCursor{
		x: e.x, y: e.y, wrapPending: e.wrapPending, pen: e.pen,
		charsets: e.charsets, gl: e.gl, origin: e.origin, valid: true,
	}
}

// restoreCursor is DECRC (and CSI u, 1048 reset); with nothing saved it
// homes the cursor and resets the pen, charsets and origin mode.
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
