package vt

// Resize changes the screen size. Columns are cropped or extended (a wide
// character cut in half becomes a blank); on the normal screen, rows removed
// at the top go into the scrollback and rows added at the top come back from
// it, so nothing is lost, and the cursor stays on the same text. The scroll
// region is reset to the whole screen.
func (e *Emulator) Resize(cols, rows int) {
	cols, rows = max(cols, 1), max(rows, 1)
	if cols == e.cols && rows == e.rows {
		return
	}
	// Normal screen first: rows shrink from the bottom while the rows below
	// the cursor are blank, then from the top into the scrollback.
	curNormal := !e.alt
	for i := range e.screens {
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
	if e.wrapPending && (cols != oldCols) {
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
