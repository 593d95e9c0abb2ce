package vt

// ESC sequences: ESC [intermediates] final, dispatched by escDispatch.

func (e *Emulator) escDispatch(b byte) {
	p := &e.p
	if p.ninter > 0 {
		switch p.inter {
		case '(', ')', '*', '+':
			e.designateCharset(p.inter-'(', b) // SCS
		case '#':
			if b == '8' {
				e.decaln() // DECALN
			}
		}
		return
	}
	switch b {
	case '7':
		e.saveCursor() // DECSC
	case '8':
		e.restoreCursor() // DECRC
	case 'D':
		e.index() // IND
	case 'E':
		e.newLine() // NEL
	case 'H':
		e.setTabStop() // HTS
	case 'M':
		e.reverseIndex() // RI
	case 'c':
		e.reset() // RIS
	case '=':
		e.modes.AppKeypad = true // DECKPAM
	case '>':
		e.modes.AppKeypad = false // DECKPNM
	case 'n':
		e.lockShift(2) // LS2
	case 'o':
		e.lockShift(3) // LS3
	case 'N':
		e.singleShift(2) // SS2
	case 'O':
		e.singleShift(3) // SS3
	}
}

// designateCharset makes charset final (0: DEC special graphics, A: UK,
// anything else: ASCII) G<g>.
func (e *Emulator) designateCharset(g, final byte) {
	switch final {
	case '0':
		e.charsets[g] = csDECGraphics
	case 'A':
		e.charsets[g] = csUK
	default:
		e.charsets[g] = csASCII
	}
	e.refreshFancy()
}

// singleShift maps the next printed character through G<g> (SS2, SS3).
func (e *Emulator) singleShift(g uint8) {
	e.single = g
	e.refreshFancy()
}

// newLine is NEL: a line feed and a carriage return.
func (e *Emulator) newLine() {
	e.index()
	e.carriageReturn()
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
