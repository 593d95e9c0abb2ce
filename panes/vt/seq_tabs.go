package vt

// Tab stops: HT, CHT, CBT, HTS and TBC. Stops are every 8 columns after a
// reset; a wider screen gets them in its new columns (resize.go).

// tab moves to the n-th next tab stop, stopping at the last column (HT,
// CHT). A pending wrap stays.
func (e *Emulator) tab(n int) {
	for ; n > 0 && e.x < e.cols-1; n-- {
		e.x++
		for e.x < e.cols-1 && !e.tabs[e.x] {
			e.x++
		}
	}
}

// backTab moves to the n-th previous tab stop, stopping at the first column
// (CBT).
func (e *Emulator) backTab(n int) {
	e.wrapPending = false
	for ; n > 0 && e.x > 0; n-- {
		e.x--
		for e.x > 0 && !e.tabs[e.x] {
			e.x--
		}
	}
}

// setTabStop is HTS: a stop at the cursor's column.
func (e *Emulator) setTabStop() { e.tabs[e.x] = true }

// clearTabs is TBC: 0 clears the stop at the cursor, 3 all stops.
func (e *Emulator) clearTabs(mode int) {
	switch mode {
	case 0:
		e.tabs[e.x] = false
	case 3:
		clear(e.tabs)
	}
}

// resetTabs puts a stop every 8 columns.
func (e *Emulator) resetTabs() {
	if cap(e.tabs) >= e.cols {
		e.tabs = e.tabs[:e.cols]
	} else {
		e.tabs = make([]bool, e.cols)
	}
	for i := range e.tabs {
		e.tabs[i] = i%8 == 0 && i > 0
	}
}
