package vt

// Erasing, inserting and deleting: ED, EL, ECH, ICH, DCH, IL, DL and REP.
// Cells that come in blank take the pen's background. All but REP end a
// pending wrap (IL and DL only inside the scroll region, where they act).

// eraseDisplay is ED.
func (e *Emulator) eraseDisplay(mode int) {
	e.wrapPending = false
	switch mode {
	case 0: // from the cursor
		e.eraseCells(e.y, e.x, e.cols)
		for y := e.y + 1; y < e.rows; y++ {
			e.eraseCells(y, 0, e.cols)
		}
	case 1: // up to the cursor
		for y := 0; y < e.y; y++ {
			e.eraseCells(y, 0, e.cols)
		}
		e.eraseCells(e.y, 0, e.x+1)
	case 2: // all
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
	case 3: // the scrollback
		e.sb.clear()
	}
}

// eraseLine is EL: 0 from the cursor, 1 up to the cursor, 2 all.
func (e *Emulator) eraseLine(mode int) {
	e.wrapPending = false
	a, b := 0, e.cols
	switch mode {
	case 0:
		a = e.x
	case 1:
		b = e.x + 1
	case 2:
	default:
		return
	}
	e.eraseCells(e.y, a, b)
}

// eraseChars is ECH: n cells from the cursor, the cursor staying.
func (e *Emulator) eraseChars(n int) {
	e.wrapPending = false
	e.eraseCells(e.y, e.x, e.x+n)
}

// insertChars is ICH.
func (e *Emulator) insertChars(n int) {
	e.wrapPending = false
	e.insertBlanks(n)
}

// deleteChars is DCH.
func (e *Emulator) deleteChars(n int) {
	e.wrapPending = false
	e.deleteCells(n)
}

// insertLines is IL: inside the scroll region, n blank lines at the cursor's
// row push the rows below down; the cursor goes to the first column.
func (e *Emulator) insertLines(n int) {
	if e.inRegion() {
		// As tmux: the row above and the last row that moves down end
		// their continuations.
		e.unwrapAbove(e.y)
		if n <= e.bot-e.y {
			e.unwrapRow(e.y + max(n, 1) - 1)
		}
		e.scrollDown(e.y, e.bot, n)
		e.setCursor(0, e.y)
	}
}

// deleteLines is DL: inside the scroll region, n rows from the cursor's go
// and the rows below come up; the cursor goes to the first column.
func (e *Emulator) deleteLines(n int) {
	if e.inRegion() {
		// As tmux: the row above, and the last row that moves up, end
		// their continuations.
		e.unwrapAbove(e.y)
		e.scrollUp(e.y, e.bot, n, false)
		if n = max(n, 1); n <= e.bot-e.y {
			e.unwrapRow(e.bot - n)
		}
		e.setCursor(0, e.y)
	}
}

// repeatLast is REP: the last printed character n more times (at most a
// screenful).
func (e *Emulator) repeatLast(n int) {
	if e.lastCh == 0 {
		return
	}
	for n = min(n, e.cols*e.rows); n > 0; n-- {
		e.printRune(e.lastCh)
	}
}

// eraseCells blanks columns a..b-1 of row y with the pen's background,
// breaking wide characters cut at either edge.
func (e *Emulator) eraseCells(y, a, b int) {
	a, b = max(a, 0), min(b, e.cols)
	if a >= b {
		return
	}
	if a == 0 && b == e.cols {
		e.unwrapAbove(y) // the row above no longer runs on into this one
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

// cursorSpan is the cursor's row and the number of cells, at most n, from
// the cursor to the end of the row, for an edit there (ICH, DCH); a wide
// character whose right half is under the cursor is broken first. n is 0
// when there is nothing to do.
func (e *Emulator) cursorSpan(n int) (*line, int) {
	ln := e.scr.row(e.y)
	x := e.x
	n = min(n, e.cols-x)
	if n <= 0 {
		return ln, 0
	}
	if ln.cells[x].Attr&AttrWideCont != 0 && x > 0 {
		e.breakWide(ln, x-1)
	}
	return ln, n
}

// insertBlanks shifts the cells from the cursor right by n (ICH, IRM).
func (e *Emulator) insertBlanks(n int) {
	ln, n := e.cursorSpan(n)
	if n == 0 {
		return
	}
	x, cells := e.x, ln.cells
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
	ln, n := e.cursorSpan(n)
	if n == 0 {
		return
	}
	x, cells := e.x, ln.cells
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

// clearCells blanks cells with background bg.
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

// lineBlank reports whether a line shows nothing.
func lineBlank(ln *line) bool {
	for i := range ln.cells[:min(ln.used, len(ln.cells))] {
		if !ln.cells[i].trimmable() {
			return false
		}
	}
	return true
}
