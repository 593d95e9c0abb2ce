package vt

// Resize changes the screen size as tmux does (screen_resize): the height
// first, at the old width, then the width.
//
// Height, on each screen: rows shrink from the bottom up to the cursor's row
// (below the cursor is the program's to redraw, whatever it holds), then
// from the top, into the scrollback on the normal screen; rows grow back
// from the scrollback on the normal screen, then as blanks at the bottom.
//
// Width: the normal screen and its scrollback are reflowed — lines joined
// by autowrap re-wrapped at the new width, longer lines split — and the
// screen is the last rows lines of the result (blank rows at the bottom
// included, so split lines push the top into the scrollback), the cursor
// (or, under the alternate screen, the saved cursor) following its
// character. The alternate screen, which its program repaints, is cropped
// or extended, a wide character cut in half becoming a blank. The scroll
// region is reset to the whole screen.
func (e *Emulator) Resize(cols, rows int) {
	cols, rows = max(cols, 1), max(rows, 1)
	if cols == e.cols && rows == e.rows {
		return
	}
	if rows != e.rows {
		for i := range e.screens {
			e.resizeRows(i, rows)
		}
		e.rows = rows
	}
	if cols != e.cols {
		e.reflow(cols, rows)
		e.cropAlt(cols)
	}
	e.cols = cols
	e.x = min(max(e.x, 0), cols-1)
	e.y = min(max(e.y, 0), rows-1)
	for i := range e.saved {
		if e.saved[i].valid {
			e.saved[i].x = min(max(e.saved[i].x, 0), cols-1)
			e.saved[i].y = min(max(e.saved[i].y, 0), rows-1)
		}
	}
	e.top, e.bot = 0, rows-1
	oldTabs := e.tabs
	e.tabs = make([]bool, cols)
	for x := range e.tabs {
		if x < len(oldTabs) {
			e.tabs[x] = oldTabs[x]
		} else {
			e.tabs[x] = x%8 == 0
		}
	}
	e.dirty = make([]bool, rows)
	e.markAll()
}

// resizeRows gives screen i rows rows at the current width (tmux's
// screen_resize_y): fewer, by dropping the rows below its cursor from the
// bottom, then the top rows (into the scrollback for the normal screen);
// more, by taking lines back from the scrollback (normal screen), then
// blank rows at the bottom. The screen's cursor (the saved one when the
// screen is not showing) moves with its row; one whose row went goes to
// the top left, as in tmux.
func (e *Emulator) resizeRows(i, rows int) {
	s := &e.screens[i]
	cx, cy := &e.x, &e.y
	if i != e.screenIndex() {
		cx, cy = &e.saved[i].x, &e.saved[i].y
	}
	old := make([]line, e.rows)
	for y := range old {
		old[y] = *s.row(y)
	}
	var back [][]byte
	shift := 0
	if rows < e.rows {
		needed := e.rows - rows
		below := min(needed, max(e.rows-1-*cy, 0))
		old = old[:e.rows-below]
		needed -= below
		if i == 0 {
			for y := 0; y < needed; y++ {
				e.sb.push(&old[y])
			}
		}
		old = old[needed:]
		shift = -needed
	} else if i == 0 {
		for len(old)+len(back) < rows && e.sb.len() > 0 {
			back = append(back, e.sb.popNewest())
		}
		shift = len(back)
	}
	ns := newScreen(e.cols, rows)
	y := 0
	for k := len(back) - 1; k >= 0; k-- {
		cells, wrapped := decodeLine(e.cellsBuf[:0], back[k])
		e.cellsBuf = cells
		copyCells(ns.lines[y].cells, cells)
		ns.lines[y].used = e.cols
		ns.lines[y].wrapped = wrapped
		y++
	}
	for k := range old {
		copyCells(ns.lines[y].cells, old[k].cells)
		ns.lines[y].used = old[k].used
		ns.lines[y].wrapped = old[k].wrapped
		y++
	}
	*s = ns
	*cy += shift
	if *cy < 0 {
		*cx, *cy = 0, 0
		if cy == &e.y {
			e.wrapPending = false
		}
	}
}

// cropAlt crops or extends the alternate screen to cols columns.
func (e *Emulator) cropAlt(cols int) {
	s := &e.screens[1]
	ns := newScreen(cols, e.rows)
	for y := 0; y < e.rows; y++ {
		copyCells(ns.lines[y].cells, s.row(y).cells)
		ns.lines[y].used = cols
		ns.lines[y].wrapped = s.row(y).wrapped && cols >= e.cols
	}
	*s = ns
	if e.alt && e.wrapPending {
		e.wrapPending = false
	}
}

// copyCells copies src into dst (dst's length wins), blanking a wide
// character whose covered cell falls off the end.
func copyCells(dst, src []Cell) {
	n := copy(dst, src)
	if n > 0 && dst[n-1].Attr&AttrWide != 0 && (n == len(dst)) {
		dst[n-1].Ch, dst[n-1].Attr = ' ', dst[n-1].Attr&^(AttrWide|attrCluster)
	}
}

// reflow re-wraps the normal screen and its scrollback at cols and lays the
// result out on rows rows, the cursor (or, under the alternate screen, the
// saved cursor) following its character.
func (e *Emulator) reflow(cols, rows int) {
	s := &e.screens[0]
	cx, cy, pending := e.x, e.y, e.wrapPending
	if e.alt {
		cx, cy, pending = e.saved[0].x, e.saved[0].y, e.saved[0].wrapPending
	}
	if pending {
		cx++ // the cursor is logically past the last column's character
	}
	// Physical lines: the scrollback, then every row of the screen (blank
	// rows too: as in tmux, they are lines like any other).
	last := e.rows - 1
	type phys struct {
		cells   []Cell
		wrapped bool
	}
	var lines []phys
	for i := 0; i < e.sb.len(); i++ {
		cells, wrapped := decodeLine(nil, e.sb.at(i))
		lines = append(lines, phys{cells, wrapped})
	}
	curLine := len(lines) + cy
	for y := 0; y <= last; y++ {
		ln := s.row(y)
		cells := append([]Cell(nil), ln.cells...)
		lines = append(lines, phys{cells, ln.wrapped})
	}
	// Logical lines, and where the cursor is in its logical line.
	type logical struct{ cells []Cell }
	var logs []logical
	curLog, curOff := 0, 0
	for i := 0; i < len(lines); {
		var cells []Cell
		for {
			p := lines[i]
			c := p.cells
			if p.wrapped {
				// The text filled the line: keep its full width, except a
				// blank left where a wide character did not fit.
				for len(c) < e.cols {
					c = append(c, Cell{})
				}
				if i+1 < len(lines) && len(lines[i+1].cells) > 0 && lines[i+1].cells[0].Attr&AttrWide != 0 &&
					c[len(c)-1].blank() && c[len(c)-1].Ch == 0 {
					c = c[:len(c)-1]
				}
			}
			if i == curLine {
				curLog, curOff = len(logs), len(cells)+cx
			}
			cells = append(cells, c...)
			i++
			if !p.wrapped || i == len(lines) {
				break
			}
		}
		end := len(cells)
		for end > 0 && cells[end-1].trimmable() {
			end--
		}
		logs = append(logs, logical{cells[:end]})
	}
	// Re-wrap at the new width.
	var out []phys
	nx, ny := 0, 0
	for li, l := range logs {
		row := make([]Cell, 0, cols)
		placed := false
		for k := 0; k < len(l.cells); k++ {
			c := l.cells[k]
			if c.Attr&AttrWideCont != 0 {
				continue
			}
			w := 1
			if c.Attr&AttrWide != 0 {
				w = 2
			}
			if len(row)+w > cols {
				for len(row) < cols {
					row = append(row, Cell{})
				}
				out = append(out, phys{row, true})
				row = make([]Cell, 0, cols)
			}
			if li == curLog && k == curOff {
				nx, ny, placed = len(row), len(out), true
			}
			row = append(row, c)
			if w == 2 && len(row) < cols+1 {
				row = append(row, l.cells[min(k+1, len(l.cells)-1)])
			}
		}
		if li == curLog && !placed {
			// The cursor is past the text: keep its distance from it.
			nx, ny = len(row)+(curOff-len(l.cells)), len(out)
			for nx > cols {
				nx -= cols
				ny++
			}
		}
		out = append(out, phys{row, false})
	}
	for len(out) <= ny {
		out = append(out, phys{nil, false})
	}
	// The screen is the last rows lines; fewer lines leave blank rows at the
	// bottom.
	top := max(0, len(out)-rows)
	e.sb.clear()
	for i := 0; i < top; i++ {
		ln := line{cells: out[i].cells, used: len(out[i].cells), wrapped: out[i].wrapped}
		e.sb.push(&ln)
	}
	ns := newScreen(cols, rows)
	for y := 0; y < rows && top+y < len(out); y++ {
		copyCells(ns.lines[y].cells, out[top+y].cells)
		ns.lines[y].used = cols
		ns.lines[y].wrapped = out[top+y].wrapped
	}
	*s = ns
	ny -= top
	pending = nx >= cols && e.autowrap
	nx = min(nx, cols-1)
	if ny < 0 {
		// The cursor's line went into the scrollback: top left, as tmux.
		nx, ny, pending = 0, 0, false
	}
	if e.alt {
		e.saved[0].x, e.saved[0].y = nx, ny
		e.saved[0].wrapPending = pending
	} else {
		e.x, e.y = nx, ny
		e.wrapPending = pending
	}
}
