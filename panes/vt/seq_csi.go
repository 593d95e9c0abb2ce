package vt

// csiDispatch runs the CSI sequence whose parameters the parser holds (e.p)
// and whose final byte is final. It only decodes: each sequence is one named
// operation in the file of its family (seq_csi_cursor.go, seq_csi_edit.go,
// seq_scroll.go, seq_tabs.go, seq_csi_mode.go, seq_csi_sgr.go,
// seq_csi_report.go), called with its parameters already defaulted.
// Constant byte cases: the compiler makes jump tables of these switches.
func (e *Emulator) csiDispatch(final byte) {
	p := &e.p
	if p.ninter == 1 {
		switch {
		case p.inter == '!' && final == 'p':
			e.softReset() // DECSTR
		case p.inter == '$' && final == 'p':
			e.reportMode(p) // DECRQM
		}
		return // other intermediates: DECSCUSR, DECSCA, ... ignored
	}
	switch p.prefix {
	case 0:
	case '?':
		switch final {
		case 'h':
			e.setDECModes(p, true) // DECSET
		case 'l':
			e.setDECModes(p, false) // DECRST
		case 'n':
			if p.param(0, 0) == 6 {
				e.extendedCPR() // DECXCPR
			}
		}
		return
	case '>':
		switch final {
		case 'c':
			if p.param(0, 0) == 0 {
				e.secondaryDA() // DA2
			}
		case 'q':
			if p.param(0, 0) == 0 {
				e.xtversion() // XTVERSION
			}
		}
		return
	default:
		return
	}
	switch final {
	case '@':
		e.insertChars(p.param(0, 1)) // ICH
	case 'A':
		e.cursorUp(p.param(0, 1)) // CUU
	case 'B', 'e':
		e.cursorDown(p.param(0, 1)) // CUD, VPR
	case 'C', 'a':
		e.cursorForward(p.param(0, 1)) // CUF, HPR
	case 'D':
		e.cursorBackward(p.param(0, 1)) // CUB
	case 'E':
		e.cursorNextLine(p.param(0, 1)) // CNL
	case 'F':
		e.cursorPrevLine(p.param(0, 1)) // CPL
	case 'G', '`':
		e.cursorColumn(p.param(0, 1)) // CHA, HPA
	case 'H', 'f':
		e.cup(p.param(0, 1), p.param(1, 1)) // CUP, HVP
	case 'I':
		e.tab(p.param(0, 1)) // CHT
	case 'J':
		e.eraseDisplay(p.param(0, 0)) // ED
	case 'K':
		e.eraseLine(p.param(0, 0)) // EL
	case 'L':
		e.insertLines(p.param(0, 1)) // IL
	case 'M':
		e.deleteLines(p.param(0, 1)) // DL
	case 'P':
		e.deleteChars(p.param(0, 1)) // DCH
	case 'S':
		e.scrollRegionUp(p.param(0, 1)) // SU
	case 'T':
		if p.np == 0 { // with more parameters: xterm's mouse highlight, ignored
			e.scrollRegionDown(p.param(0, 1)) // SD
		}
	case 'X':
		e.eraseChars(p.param(0, 1)) // ECH
	case 'Z':
		e.backTab(p.param(0, 1)) // CBT
	case 'b':
		e.repeatLast(p.param(0, 1)) // REP
	case 'c':
		if p.param(0, 0) == 0 {
			e.primaryDA() // DA1
		}
	case 'd':
		e.cursorRow(p.param(0, 1)) // VPA
	case 'g':
		e.clearTabs(p.param(0, 0)) // TBC
	case 'h':
		e.setANSIModes(p, true) // SM
	case 'l':
		e.setANSIModes(p, false) // RM
	case 'm':
		e.sgr(p) // SGR
	case 'n':
		e.deviceStatus(p.param(0, 0)) // DSR
	case 'r':
		e.setScrollRegion(p.param(0, 1), p.param(1, e.rows)) // DECSTBM
	case 's':
		e.saveCursor() // SCOSC
	case 't':
		e.windowOp(p.param(0, 0)) // XTWINOPS
	case 'u':
		e.restoreCursor() // SCORC
	}
}
