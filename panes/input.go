package panes

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/okstra/cockpit/panes/term"
)

// Mod is a set of modifier keys held with a key or mouse event.
type Mod uint8

const (
	ModShift Mod = 1 << iota
	ModAlt
	ModCtrl
	ModMeta
)

// KeyCode is a key: a Unicode code point for keys that type a character,
// or one of the named keys below, which lie beyond Unicode.
type KeyCode rune

// Named keys.
const (
	KeyUp KeyCode = utf8.MaxRune + 1 + iota
	KeyDown
	KeyRight
	KeyLeft
	KeyHome
	KeyEnd
	KeyInsert
	KeyDelete
	KeyPageUp
	KeyPageDown
	KeyEnter
	KeyTab
	KeyBackspace
	KeyEscape
	KeyF1
	KeyF2
	KeyF3
	KeyF4
	KeyF5
	KeyF6
	KeyF7
	KeyF8
	KeyF9
	KeyF10
	KeyF11
	KeyF12
)

// Key is a key press as the UI saw it. For character keys Code is the
// character the key typed (already shifted, e.g. 'A' for shift+a); Mod still
// says which modifiers were held.
type Key struct {
	Code KeyCode
	Mod  Mod
}

// xtermMod is the modifier parameter xterm puts in CSI 1;m sequences.
func xtermMod(m Mod) int {
	n := 0
	if m&ModShift != 0 {
		n |= 1
	}
	if m&ModAlt != 0 {
		n |= 2
	}
	if m&ModCtrl != 0 {
		n |= 4
	}
	if m&ModMeta != 0 {
		n |= 8
	}
	return 1 + n
}

// appendKey appends the bytes xterm sends for k. Unmodified cursor keys and
// Home/End follow application cursor mode (DECCKM); modified keys use the
// CSI 1;m form, which xterm sends in either mode.
func appendKey(dst []byte, k Key, modes term.Modes) []byte {
	mod := xtermMod(k.Mod)
	// SS3/CSI final-byte keys: arrows, Home, End, F1-F4.
	final := byte(0)
	switch k.Code {
	case KeyUp:
		final = 'A'
	case KeyDown:
		final = 'B'
	case KeyRight:
		final = 'C'
	case KeyLeft:
		final = 'D'
	case KeyHome:
		final = 'H'
	case KeyEnd:
		final = 'F'
	case KeyF1:
		final = 'P'
	case KeyF2:
		final = 'Q'
	case KeyF3:
		final = 'R'
	case KeyF4:
		final = 'S'
	}
	if final != 0 {
		switch {
		case mod > 1:
			dst = append(dst, "\x1b[1;"...)
			dst = strconv.AppendInt(dst, int64(mod), 10)
			return append(dst, final)
		case final >= 'P' && final <= 'S', modes.AppCursor:
			return append(dst, '\x1b', 'O', final)
		default:
			return append(dst, '\x1b', '[', final)
		}
	}
	// CSI n ~ keys.
	num := 0
	switch k.Code {
	case KeyInsert:
		num = 2
	case KeyDelete:
		num = 3
	case KeyPageUp:
		num = 5
	case KeyPageDown:
		num = 6
	case KeyF5:
		num = 15
	case KeyF6:
		num = 17
	case KeyF7:
		num = 18
	case KeyF8:
		num = 19
	case KeyF9:
		num = 20
	case KeyF10:
		num = 21
	case KeyF11:
		num = 23
	case KeyF12:
		num = 24
	}
	if num != 0 {
		dst = append(dst, '\x1b', '[')
		dst = strconv.AppendInt(dst, int64(num), 10)
		if mod > 1 {
			dst = append(dst, ';')
			dst = strconv.AppendInt(dst, int64(mod), 10)
		}
		return append(dst, '~')
	}
	alt := k.Mod&(ModAlt|ModMeta) != 0
	switch k.Code {
	case KeyEnter:
		return appendAlt(dst, alt, '\r')
	case KeyTab:
		if k.Mod&ModShift != 0 {
			return append(dst, "\x1b[Z"...)
		}
		return appendAlt(dst, alt, '\t')
	case KeyBackspace:
		if k.Mod&ModCtrl != 0 {
			return appendAlt(dst, alt, '\b')
		}
		return appendAlt(dst, alt, 0x7f)
	case KeyEscape:
		return appendAlt(dst, alt, '\x1b')
	}
	r := rune(k.Code)
	if r < 0 || r > utf8.MaxRune {
		return dst
	}
	if k.Mod&ModCtrl != 0 {
		if c, ok := ctrlByte(r); ok {
			return appendAlt(dst, alt, c)
		}
	} else if k.Mod&ModShift != 0 && r >= 'a' && r <= 'z' {
		r -= 'a' - 'A'
	}
	if alt {
		dst = append(dst, '\x1b')
	}
	return utf8.AppendRune(dst, r)
}

func appendAlt(dst []byte, alt bool, c byte) []byte {
	if alt {
		dst = append(dst, '\x1b')
	}
	return append(dst, c)
}

// ctrlByte maps ctrl+r to its C0 control, as xterm does (including the
// ctrl+digit aliases); false when the combination has none.
func ctrlByte(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r - 'a' + 1), true
	case r >= '@' && r <= '_': // @, A-Z, [, \, ], ^, _
		return byte(r - '@'), true
	case r == ' ' || r == '2':
		return 0, true
	case r >= '3' && r <= '7':
		return byte(r - '3' + 0x1b), true
	case r == '8' || r == '?':
		return 0x7f, true
	case r == '/':
		return 0x1f, true
	}
	return 0, false
}

const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// appendPaste appends text as a paste. Line breaks become CR, as a terminal
// sends for Enter; with bracketed paste the text is wrapped in the paste
// markers. Markers inside the text are removed first, so pasted text can
// never end the paste early and run the rest as typed commands.
func appendPaste(dst []byte, text string, bracketed bool) []byte {
	for strings.Contains(text, pasteEnd) || strings.Contains(text, pasteStart) {
		// Repeat: removing one marker can join the pieces of another.
		text = strings.ReplaceAll(text, pasteEnd, "")
		text = strings.ReplaceAll(text, pasteStart, "")
	}
	if bracketed {
		dst = append(dst, pasteStart...)
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			continue
		}
		if c == '\n' {
			c = '\r'
		}
		dst = append(dst, c)
	}
	if bracketed {
		dst = append(dst, pasteEnd...)
	}
	return dst
}

// MouseButton is the button of a mouse event.
type MouseButton uint8

const (
	MouseNoButton MouseButton = iota // motion with no button held
	MouseLeft
	MouseMiddle
	MouseRight
	MouseWheelUp
	MouseWheelDown
	MouseWheelLeft
	MouseWheelRight
	MouseBackward // button 8
	MouseForward  // button 9
)

// MouseAction says what the mouse did.
type MouseAction uint8

const (
	MousePress MouseAction = iota
	MouseRelease
	MouseMotion
)

// Mouse is a mouse event in pane cells, 0-based from the pane's top left.
type Mouse struct {
	X, Y   int
	Button MouseButton
	Action MouseAction
	Mod    Mod
}

// mouseState remembers the last motion report, so moving within one cell is
// not reported again (xterm reports cell changes only).
type mouseState struct {
	x, y   int
	button MouseButton
	valid  bool
}

// wantsMouse reports whether the program's mouse mode asks for ev.
func wantsMouse(ev Mouse, mode term.MouseMode) bool {
	wheel := ev.Button >= MouseWheelUp && ev.Button <= MouseWheelRight
	switch ev.Action {
	case MousePress:
		return mode != term.MouseNone && ev.Button != MouseNoButton
	case MouseRelease:
		// X10 mode reports presses only; wheels have no release.
		return mode >= term.MouseNormal && !wheel
	case MouseMotion:
		switch mode {
		case term.MouseButton:
			return ev.Button != MouseNoButton
		case term.MouseAny:
			return true
		}
	}
	return false
}

// appendMouse appends the report for ev in the encoding the program chose
// (SGR 1006, else X10 bytes), or reports false when the program did not ask
// for this event or X10 cannot express its position.
func appendMouse(dst []byte, ev Mouse, modes term.Modes) ([]byte, bool) {
	if ev.X < 0 || ev.Y < 0 || !wantsMouse(ev, modes.Mouse) {
		return dst, false
	}
	var cb int
	switch ev.Button {
	case MouseNoButton:
		cb = 3
	case MouseLeft:
		cb = 0
	case MouseMiddle:
		cb = 1
	case MouseRight:
		cb = 2
	case MouseWheelUp, MouseWheelDown, MouseWheelLeft, MouseWheelRight:
		cb = 64 + int(ev.Button-MouseWheelUp)
	case MouseBackward, MouseForward:
		cb = 128 + int(ev.Button-MouseBackward)
	default:
		return dst, false
	}
	if ev.Action == MouseMotion {
		cb += 32
	}
	// X10 mode (9) carries no modifiers.
	if modes.Mouse != term.MouseX10 {
		if ev.Mod&ModShift != 0 {
			cb += 4
		}
		if ev.Mod&(ModAlt|ModMeta) != 0 {
			cb += 8
		}
		if ev.Mod&ModCtrl != 0 {
			cb += 16
		}
	}
	if modes.MouseSGR {
		dst = append(dst, "\x1b[<"...)
		dst = strconv.AppendInt(dst, int64(cb), 10)
		dst = append(dst, ';')
		dst = strconv.AppendInt(dst, int64(ev.X+1), 10)
		dst = append(dst, ';')
		dst = strconv.AppendInt(dst, int64(ev.Y+1), 10)
		if ev.Action == MouseRelease {
			return append(dst, 'm'), true
		}
		return append(dst, 'M'), true
	}
	// X10 encoding: one byte each, offset by 32, so positions past 223
	// cannot be sent; the release of any button is button 3.
	if ev.Action == MouseRelease {
		cb = 3 | cb&(4|8|16)
	}
	if cb+32 > 255 || ev.X+33 > 255 || ev.Y+33 > 255 {
		return dst, false
	}
	return append(dst, '\x1b', '[', 'M', byte(cb+32), byte(ev.X+33), byte(ev.Y+33)), true
}

// Write sends raw bytes to the program's input.
func (p *Pane) Write(b []byte) (int, error) {
	if err := p.inputErr(); err != nil {
		return 0, err
	}
	if err := p.enqueue(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// SendKey sends k encoded as xterm does, honouring application cursor mode.
func (p *Pane) SendKey(k Key) error {
	var buf [32]byte
	return p.send(func(m term.Modes) []byte { return appendKey(buf[:0], k, m) })
}

// Paste sends text as a paste: wrapped in bracketed-paste markers when the
// program enabled mode 2004, with any markers inside the text removed.
func (p *Pane) Paste(text string) error {
	return p.send(func(m term.Modes) []byte {
		return appendPaste(make([]byte, 0, len(text)+12), text, m.BracketedPaste)
	})
}

// SendMouse sends ev if the program asked for such events (modes 9, 1000,
// 1002, 1003) in the encoding it chose, and reports whether it did; the UI
// may use an unsent event itself (e.g. to select text).
func (p *Pane) SendMouse(ev Mouse) (bool, error) {
	if err := p.inputErr(); err != nil {
		return false, err
	}
	var buf [32]byte
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return false, ErrClosed
	}
	out, ok := appendMouse(buf[:0], ev, p.emu.Modes())
	if ok && ev.Action == MouseMotion {
		last := p.mouse
		p.mouse = mouseState{x: ev.X, y: ev.Y, button: ev.Button, valid: true}
		if last.valid && last.x == ev.X && last.y == ev.Y && last.button == ev.Button {
			ok = false
		}
	} else if ok {
		p.mouse.valid = false
	}
	p.mu.Unlock()
	if !ok {
		return false, nil
	}
	if err := p.enqueue(out); err != nil {
		return false, err
	}
	return true, nil
}

// Focus reports focus gained or lost to the program if it enabled focus
// events (mode 1004).
func (p *Pane) Focus(in bool) error {
	return p.send(func(m term.Modes) []byte {
		switch {
		case !m.FocusEvents:
			return nil
		case in:
			return []byte("\x1b[I")
		default:
			return []byte("\x1b[O")
		}
	})
}

// send encodes with the modes of the emulator's latest write (the encoding
// depends on them; the reader publishes them, so a key waits for no lock the
// reader holds) and queues the result.
func (p *Pane) send(encode func(term.Modes) []byte) error {
	if err := p.inputErr(); err != nil {
		return err
	}
	m := p.modes.Load()
	if m == nil {
		return ErrClosed
	}
	return p.enqueue(encode(*m))
}

func (p *Pane) inputErr() error {
	select {
	case <-p.closedCh:
		return ErrClosed
	case <-p.exitCh:
		return ErrExited
	default:
		return nil
	}
}
