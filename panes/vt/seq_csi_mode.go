package vt

import "github.com/okstra/cockpit/panes/term"

// Modes: SM/RM (ANSI modes), DECSET/DECRST (DEC private modes), DECRQM (mode
// reports) and the alternate screen. A mode added to setDECMode (or
// setANSIMode) goes into decModeState (or ansiModeState) too, so DECRQM
// reports it.

// setANSIModes is SM (on) and RM (off) for each parameter.
func (e *Emulator) setANSIModes(p *parser, on bool) {
	for i := 0; i <= p.np; i++ {
		e.setANSIMode(int(p.params[i]), on)
	}
}

func (e *Emulator) setANSIMode(mode int, on bool) {
	switch mode {
	case 4: // IRM
		e.insert = on
		e.refreshFancy()
	case 20: // LNM
		e.lnm = on
	}
}

// setDECModes is DECSET (on) and DECRST (off) for each parameter.
func (e *Emulator) setDECModes(p *parser, on bool) {
	for i := 0; i <= p.np; i++ {
		e.setDECMode(int(p.params[i]), on)
	}
}

func (e *Emulator) setDECMode(mode int, on bool) {
	switch mode {
	case 1: // DECCKM
		e.modes.AppCursor = on
	case 3: // DECCOLM
		e.setColumnMode()
	case 6: // DECOM
		e.origin = on
		e.cup(1, 1)
	case 7: // DECAWM
		e.autowrap = on
		if !on {
			e.wrapPending = false
		}
	case 9, 1000, 1002, 1003:
		if !on {
			e.modes.Mouse = term.MouseNone
			return
		}
		switch mode {
		case 9:
			e.modes.Mouse = term.MouseX10
		case 1000:
			e.modes.Mouse = term.MouseNormal
		case 1002:
			e.modes.Mouse = term.MouseButton
		case 1003:
			e.modes.Mouse = term.MouseAny
		}
	case 25: // DECTCEM
		e.cursorVisible = on
	case 47:
		e.setAlt(on, false)
	case 1047:
		if !on && e.alt {
			for y := 0; y < e.rows; y++ {
				e.scr.row(y).clear(0)
			}
		}
		e.setAlt(on, false)
	case 1048:
		if on {
			e.saveCursor()
		} else {
			e.restoreCursor()
		}
	case 1049:
		if on {
			if !e.alt {
				e.saveCursor()
				e.setAlt(true, true)
			}
		} else {
			// As xterm and tmux: the cursor is restored even when the normal
			// screen is already showing.
			e.setAlt(false, false)
			e.restoreCursor()
		}
	case 1004:
		e.modes.FocusEvents = on
	case 1006:
		e.modes.MouseSGR = on
	case 2004:
		e.modes.BracketedPaste = on
	case 2026:
		e.modes.SyncOutput = on
	}
}

// setColumnMode is DECCOLM (set and reset alike): as a VT100 and xterm, the
// screen is cleared, the margins reset and the cursor homed; the width stays
// the pane's (the program's terminal size is the PTY's, not 80 or 132). The
// clear is ED 2's, so the normal screen's text goes to the scrollback as in
// tmux, which clears and homes but keeps the margins (docs/EMULATOR.md).
func (e *Emulator) setColumnMode() {
	e.top, e.bot = 0, e.rows-1
	e.eraseDisplay(2)
	e.x, e.y, e.wrapPending = 0, 0, false
}

// setAlt switches between the normal and the alternate screen.
func (e *Emulator) setAlt(on, clearAlt bool) {
	if on == e.alt {
		return
	}
	e.alt = on
	if on {
		e.scr = &e.screens[1]
		if clearAlt {
			for y := 0; y < e.rows; y++ {
				e.scr.row(y).clear(0)
			}
		}
	} else {
		e.scr = &e.screens[0]
	}
	e.markAll()
}

// Mode states as DECRQM reports them.
const (
	modeUnknown = 0
	modeSet     = 1
	modeReset   = 2
)

func modeState(on bool) int {
	if on {
		return modeSet
	}
	return modeReset
}

// reportMode answers DECRQM (CSI ? Ps $ p and CSI Ps $ p) for the mode in
// the first parameter: 1 set, 2 reset, 0 not recognised.
func (e *Emulator) reportMode(p *parser) {
	mode := int(p.params[0])
	if p.prefix == '?' {
		e.replyf3("\x1b[?", mode, ';', e.decModeState(mode), "$y")
		return
	}
	e.replyf3("\x1b[", mode, ';', e.ansiModeState(mode), "$y")
}

func (e *Emulator) decModeState(mode int) int {
	switch mode {
	case 1:
		return modeState(e.modes.AppCursor)
	case 6:
		return modeState(e.origin)
	case 7:
		return modeState(e.autowrap)
	case 9:
		return modeState(e.modes.Mouse == term.MouseX10)
	case 1000:
		return modeState(e.modes.Mouse == term.MouseNormal)
	case 1002:
		return modeState(e.modes.Mouse == term.MouseButton)
	case 1003:
		return modeState(e.modes.Mouse == term.MouseAny)
	case 25:
		return modeState(e.cursorVisible)
	case 47, 1047, 1049:
		return modeState(e.alt)
	case 1004:
		return modeState(e.modes.FocusEvents)
	case 1006:
		return modeState(e.modes.MouseSGR)
	case 2004:
		return modeState(e.modes.BracketedPaste)
	case 2026:
		return modeState(e.modes.SyncOutput)
	}
	return modeUnknown
}

func (e *Emulator) ansiModeState(mode int) int {
	switch mode {
	case 4:
		return modeState(e.insert)
	case 20:
		return modeState(e.lnm)
	}
	return modeUnknown
}
