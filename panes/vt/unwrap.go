package vt

// A line that wrapped at the right margin continues into the next one, and a
// resize joins them (reflow). tmux ends that link where a program redraws:
// a whole-line erase (EL 2, EL 0 from the first column, ED below a line, an
// ECH of the whole row) and a line move (IL, DL, RI and SD at the top of the
// scroll region) clear the wrap of the line above (grid_clear_lines and
// grid_move_lines), so a spinner or status line redrawn in place on a
// narrow pane stays one frame a line when the pane is widened instead of
// being joined into one long line. Only text that really ran past the
// margin stays joined; a line feed that scrolls a region up keeps the wraps
// (tmux's history grid scrolls regions with grid_scroll_history_region,
// which keeps them too). TestReflowMatchesTmux compares with tmux.

// unwrapRow ends row y's continuation into the next row.
func (e *Emulator) unwrapRow(y int) {
	if y < 0 || y >= e.rows {
		return
	}
	ln := e.scr.row(y)
	if !ln.wrapped {
		return
	}
	ln.wrapped = false
	if ln.encValid {
		ln.enc[0] &^= 1
	}
}

// unwrapAbove ends the continuation into row y: row y-1's, or for the top
// row of the normal screen the newest scrollback line's.
func (e *Emulator) unwrapAbove(y int) {
	if y > 0 {
		e.unwrapRow(y - 1)
	} else if !e.alt {
		e.sb.unwrapNewest()
	}
}

// unwrapNewest clears the wrapped flag of the newest line.
func (s *scrollback) unwrapNewest() {
	if s.n == 0 {
		return
	}
	r := s.rec(s.n - 1)
	if r.n > 0 {
		s.arena[r.off] &^= 1
	}
}
