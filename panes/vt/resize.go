package vt

// Resize changes the screen size. On a width change the normal screen and
// its scrollback are reflowed: lines joined by autowrap are re-wrapped at the
// new width, and the cursor stays on the same character. Otherwise (and on
// the alternate screen, which its program repaints) columns are cropped or
// extended, a wide character cut in half becoming a blank. On the normal
// screen rows removed at the top go into the scrollback and rows added at
// the top come back from it, so nothing is lost. The scroll region is reset
// to the whole screen.
func (e *Emulator) Resize(cols, rows int) {
	cols, rows = max(cols, 1), max(rows, 1)
	if cols == e.cols && rows == e.rows {
		return
	}
	reflowed := false
	if cols != e.cols {
		e.reflow(cols, rows)
		reflowed = true
	}
	// Normal screen first: rows shrink from the bottom while the rows below
	// the cursor are blank, then from the top into the scrollback.
	curNormal := !e.alt
	for i := range e.screens {
		if i == 0 && reflowed {
			continue
		}
		s := &e.screens[i]
		old := make([]line, e.rows)
		for y := range old {
			old[y] = *s.row(y)
		}
		cy := e.y
		if !curNormal && i == 0 {
			cy = e.saved[0].y
		}
		top := 0
		if rows < e.rows && i == 0 {
			drop := e.rows - rows
			// Trailing blank lines below the cursor go first.
			for drop > 0 && len(old) > cy+1 && lineBlank(&old[len(old)-1]) {
				old = old[:len(old)-1]
				drop--
			}
			top = drop
			if i == 0 {
				for y := 0; y < top; y++ {
					e.sb.push(&old[y])
				}
			}
			old = old[top:]
		}
		var back [][]byte
		if i == 0 && len(old) < rows {
			for len(old)+len(back) < rows && e.sb.len() > 0 {
				back = append(back, e.sb.popNewest())
			}
		}
		ns := newScreen(cols, rows)
		y := 0
		for k := len(back) - 1; k >= 0; k-- {
			cells, wrapped := decodeLine(e.cellsBuf[:0], back[k])
			e.cellsBuf = cells
			copyCells(ns.lines[y].cells, cells)
			ns.lines[y].used = cols
			ns.lines[y].wrapped = wrapped
			y++
		}
		shift := len(back) - top
		for k := range old {
			if y >= rows {
				break
			}
			copyCells(ns.lines[y].cells, old[k].cells)
			ns.lines[y].used = cols
			ns.lines[y].wrapped = old[k].wrapped && cols >= e.cols
			y++
		}
		*s = ns
		if i == e.screenIndex() {
			e.y += shift
		}
		if i == 0 {
			e.saved[0].y += shift
			if e.saved[0].valid {
				e.saved[0].y = min(max(e.saved[0].y, 0), rows-1)
				e.saved[0].x = min(e.saved[0].x, cols-1)
			}
		} else if e.saved[1].valid {
			e.saved[1].y = min(e.saved[1].y, rows-1)
			e.saved[1].x = min(e.saved[1].x, cols-1)
		}
	}
	oldCols := e.cols
	e.cols, e.rows = cols, rows
	e.x = min(max(e.x, 0), cols-1)
	e.y = min(max(e.y, 0), rows-1)
	if e.wrapPending && cols != oldCols && e.alt {
		e.wrapPending = false
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
	// Physical lines: the scrollback, then the screen down to the cursor or
	// the last non-blank row.
	last := cy
	for y := e.rows - 1; y > cy; y-- {
		if !lineBlank(s.row(y)) {
			last = y
			break
		}
	}
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
	top := min(max(0, len(out)-rows), ny)
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
	if e.alt {
		e.saved[0].x, e.saved[0].y = nx, ny
		e.saved[0].wrapPending = pending
	} else {
		e.x, e.y = nx, ny
		e.wrapPending = pending
	}
}
