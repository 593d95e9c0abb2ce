package vt

// The parser is the DEC/ANSI state machine of Paul Williams' diagram
// (vt100.net/emu/dec_ansi_parser), driven by a [state][byte] table as
// alacritty's vte does, with two modern changes: bytes 0x80–0xFF are UTF-8,
// never C1 controls, and BEL ends an OSC string as xterm allows. Ground-state
// printable ASCII never reaches the table: Write copies such runs straight
// into cells.

const (
	stGround uint8 = iota
	stEscape
	stEscInter
	stCSIEntry
	stCSIParam
	stCSIInter
	stCSIIgnore
	stDCSEntry
	stDCSParam
	stDCSInter
	stDCSPass
	stDCSIgnore
	stOSC
	stString // SOS, PM, APC: consumed and ignored
	nStates
)

const (
	actNone uint8 = iota
	actPrint
	actExecute
	actCollect
	actPrefix
	actParam
	actEscDispatch
	actCSIDispatch
	actOSCPut
	actUTF8
)

// stay in a table entry means "no transition": no exit or entry action.
const stay = 0xff

// parseTable[state][byte] = action<<8 | next state.
var parseTable [nStates][256]uint16

func init() {
	set := func(st uint8, lo, hi int, act, next uint8) {
		for b := lo; b <= hi; b++ {
			parseTable[st][b] = uint16(act)<<8 | uint16(next)
		}
	}
	// C0 controls are executed in most states.
	execC0 := func(st uint8) {
		set(st, 0x00, 0x17, actExecute, stay)
		set(st, 0x19, 0x19, actExecute, stay)
		set(st, 0x1c, 0x1f, actExecute, stay)
	}
	for st := uint8(0); st < nStates; st++ {
		set(st, 0x00, 0xff, actNone, stay)
	}

	execC0(stGround)
	set(stGround, 0x20, 0x7e, actPrint, stay)
	set(stGround, 0x80, 0xff, actUTF8, stay)

	execC0(stEscape)
	set(stEscape, 0x20, 0x2f, actCollect, stEscInter)
	set(stEscape, 0x30, 0x7e, actEscDispatch, stGround)
	set(stEscape, '[', '[', actNone, stCSIEntry)
	set(stEscape, ']', ']', actNone, stOSC)
	set(stEscape, 'P', 'P', actNone, stDCSEntry)
	set(stEscape, 'X', 'X', actNone, stString)
	set(stEscape, '^', '_', actNone, stString)

	execC0(stEscInter)
	set(stEscInter, 0x20, 0x2f, actCollect, stay)
	set(stEscInter, 0x30, 0x7e, actEscDispatch, stGround)

	execC0(stCSIEntry)
	set(stCSIEntry, 0x20, 0x2f, actCollect, stCSIInter)
	set(stCSIEntry, 0x30, 0x3b, actParam, stCSIParam)
	set(stCSIEntry, 0x3c, 0x3f, actPrefix, stCSIParam)
	set(stCSIEntry, 0x40, 0x7e, actCSIDispatch, stGround)

	execC0(stCSIParam)
	set(stCSIParam, 0x30, 0x3b, actParam, stay)
	set(stCSIParam, 0x3c, 0x3f, actNone, stCSIIgnore)
	set(stCSIParam, 0x20, 0x2f, actCollect, stCSIInter)
	set(stCSIParam, 0x40, 0x7e, actCSIDispatch, stGround)

	execC0(stCSIInter)
	set(stCSIInter, 0x20, 0x2f, actCollect, stay)
	set(stCSIInter, 0x30, 0x3f, actNone, stCSIIgnore)
	set(stCSIInter, 0x40, 0x7e, actCSIDispatch, stGround)

	execC0(stCSIIgnore)
	set(stCSIIgnore, 0x40, 0x7e, actNone, stGround)

	set(stDCSEntry, 0x20, 0x2f, actNone, stDCSInter)
	set(stDCSEntry, 0x30, 0x3b, actNone, stDCSParam)
	set(stDCSEntry, 0x3c, 0x3f, actNone, stDCSParam)
	set(stDCSEntry, 0x40, 0x7e, actNone, stDCSPass)
	set(stDCSParam, 0x3c, 0x3f, actNone, stDCSIgnore)
	set(stDCSParam, 0x20, 0x2f, actNone, stDCSInter)
	set(stDCSParam, 0x40, 0x7e, actNone, stDCSPass)
	set(stDCSInter, 0x30, 0x3f, actNone, stDCSIgnore)
	set(stDCSInter, 0x40, 0x7e, actNone, stDCSPass)

	set(stOSC, 0x20, 0xff, actOSCPut, stay)
	set(stOSC, 0x7f, 0x7f, actNone, stay)
	set(stOSC, 0x07, 0x07, actNone, stGround)

	// Anywhere: CAN and SUB abort, ESC starts over.
	for st := uint8(0); st < nStates; st++ {
		set(st, 0x18, 0x18, actExecute, stGround)
		set(st, 0x1a, 0x1a, actExecute, stGround)
		set(st, 0x1b, 0x1b, actNone, stEscape)
	}
}

const maxParams = 32

// parser holds the sequence being collected.
type parser struct {
	state  uint8
	params [maxParams]uint16
	np     int    // index of the parameter being collected
	sub    uint32 // bit i: parameter i is followed by ':' (a sub-parameter)
	prefix byte   // private marker '<' '=' '>' '?'
	inter  byte   // first intermediate
	ninter int
	osc    []byte
	oscBig bool // OSC longer than maxOSC: dropped
	oscBEL bool // the OSC being dispatched ended with BEL (else ST)
}

const maxOSC = 64 << 10

func (p *parser) clear() {
	p.params[0] = 0
	p.np = 0
	p.sub = 0
	p.prefix = 0
	p.inter = 0
	p.ninter = 0
}

// param returns parameter i, or def when it is missing or zero.
func (p *parser) param(i int, def int) int {
	if i > p.np || p.params[i] == 0 {
		return def
	}
	return int(p.params[i])
}

// advance runs one byte through the state table.
func (e *Emulator) advance(b byte) {
	p := &e.p
	t := parseTable[p.state][b]
	act, next := uint8(t>>8), uint8(t)
	if next != stay {
		switch p.state {
		case stOSC:
			if b == 0x07 || b == 0x1b {
				p.oscBEL = b == 0x07
				e.oscDispatch()
			}
		}
	}
	switch act {
	case actPrint:
		e.printRune(rune(b))
	case actUTF8:
		e.utf8Byte(b)
	case actExecute:
		e.execute(b)
	case actCollect:
		if p.ninter == 0 {
			p.inter = b
		}
		p.ninter++
	case actPrefix:
		p.prefix = b
	case actParam:
		switch {
		case b <= '9':
			v := uint32(p.params[p.np])*10 + uint32(b-'0')
			p.params[p.np] = uint16(min(v, 0xffff))
		case p.np < maxParams-1:
			if b == ':' {
				p.sub |= 1 << p.np
			}
			p.np++
			p.params[p.np] = 0
		}
	case actEscDispatch:
		e.escDispatch(b)
	case actCSIDispatch:
		if p.ninter <= 1 {
			e.csiDispatch(b)
		}
	case actOSCPut:
		if len(p.osc) < maxOSC {
			p.osc = append(p.osc, b)
		} else {
			p.oscBig = true
		}
	}
	if next != stay {
		p.state = next
		switch next {
		case stEscape, stCSIEntry, stDCSEntry:
			p.clear()
		case stOSC:
			p.osc = p.osc[:0]
			p.oscBig = false
		}
	}
}

// fastCSI parses a whole, plain CSI sequence (ESC [ [marker] params final)
// at the start of p in one loop and dispatches it, returning its length. It
// returns 0, touching nothing but the parameter buffer, for anything else
// (intermediates, controls inside, a sequence cut by the end of p), which
// then goes through the state table byte by byte with the same result.
func (e *Emulator) fastCSI(p []byte) int {
	ps := &e.p
	ps.sub, ps.prefix, ps.inter, ps.ninter = 0, 0, 0, 0
	np := 0
	j := 2
	if j < len(p) && p[j] >= 0x3c && p[j] <= 0x3f {
		ps.prefix = p[j]
		j++
	}
	v := uint32(0)
	for ; j < len(p); j++ {
		b := p[j]
		if d := uint32(b) - '0'; d <= 9 {
			v = min(v*10+d, 0xffff)
			continue
		}
		switch {
		case b == ';' || b == ':':
			if np < maxParams-1 {
				ps.params[np] = uint16(v)
				if b == ':' {
					ps.sub |= 1 << np
				}
				np++
				v = 0
			}
		case b >= 0x40 && b <= 0x7e:
			ps.params[np] = uint16(v)
			ps.np = np
			e.csiDispatch(b)
			return j + 1
		default:
			return 0
		}
	}
	return 0
}
