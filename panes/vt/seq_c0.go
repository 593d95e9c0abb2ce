package vt

import "github.com/okstra/cockpit/panes/term"

// C0 controls. CAN and SUB are executed too, but all they do is end the
// sequence in progress, which the parser's table does.

// execute runs a C0 control.
func (e *Emulator) execute(b byte) {
	switch b {
	case 0x07:
		e.bell() // BEL
	case 0x08:
		e.backspace() // BS
	case 0x09:
		e.tab(1) // HT
	case 0x0a, 0x0b, 0x0c:
		e.lineFeed() // LF, VT, FF
	case 0x0d:
		e.carriageReturn() // CR
	case 0x0e:
		e.lockShift(1) // SO: G1 into GL
	case 0x0f:
		e.lockShift(0) // SI: G0 into GL
	}
}

func (e *Emulator) bell() { e.emit(term.Event{Kind: term.EventBell}) }

// backspace moves one column left, stopping at the first; it ends a pending
// wrap.
func (e *Emulator) backspace() {
	if e.x > 0 {
		e.x--
	}
	e.wrapPending = false
}

// lineFeed is IND, and a carriage return too in new-line mode (LNM).
func (e *Emulator) lineFeed() {
	e.index()
	if e.lnm {
		e.x = 0
	}
}

func (e *Emulator) carriageReturn() {
	e.x = 0
	e.wrapPending = false
}

// lockShift puts charset G<g> into GL (SI, SO, LS2, LS3).
func (e *Emulator) lockShift(g uint8) {
	e.gl = g
	e.refreshFancy()
}
