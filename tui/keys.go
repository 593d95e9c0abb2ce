package tui

import (
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/panes"
)

// keyOp is the pane op that sends k to pane id. Text of more than one code
// point (an IME commit, an emoji with modifiers or joiners, a grapheme
// with combining marks) is written whole, as a terminal passes typed text
// through; Alt prefixes it with ESC as xterm's metaSendsEscape does. Every
// other key goes through paneKey's xterm encoding.
func keyOp(id string, k tea.Key) (paneOp, bool) {
	if utf8.RuneCountInString(k.Text) > 1 && !k.Mod.Contains(tea.ModCtrl) && utf8.ValidString(k.Text) {
		text := k.Text
		if k.Mod.Contains(tea.ModAlt) {
			text = "\x1b" + text
		}
		return paneOp{kind: opText, id: id, text: text}, true
	}
	pk, ok := paneKey(k)
	if !ok {
		return paneOp{}, false
	}
	return paneOp{kind: opKey, id: id, key: pk}, true
}

// paneKey translates a bubbletea key press into the pane's key, or reports
// false for keys a terminal cannot send (lone modifiers, media keys).
func paneKey(k tea.Key) (panes.Key, bool) {
	var mod panes.Mod
	if k.Mod.Contains(tea.ModShift) {
		mod |= panes.ModShift
	}
	if k.Mod.Contains(tea.ModAlt) {
		mod |= panes.ModAlt
	}
	if k.Mod.Contains(tea.ModCtrl) {
		mod |= panes.ModCtrl
	}
	if k.Mod.Contains(tea.ModMeta) {
		mod |= panes.ModMeta
	}
	if code, ok := namedKeys[k.Code]; ok {
		return panes.Key{Code: code, Mod: mod}, true
	}
	if k.Code == tea.KeyExtended {
		r, _ := utf8.DecodeRuneInString(k.Text)
		if r == utf8.RuneError {
			return panes.Key{}, false
		}
		return panes.Key{Code: panes.KeyCode(r), Mod: mod}, true
	}
	// A character key: the pane wants the character it typed, already
	// shifted, which is the text when there is one.
	code := k.Code
	if k.Text != "" {
		r, _ := utf8.DecodeRuneInString(k.Text)
		code = r
	} else if k.ShiftedCode != 0 && mod&panes.ModShift != 0 {
		code = k.ShiftedCode
	}
	if code < 0 || code > utf8.MaxRune || !utf8.ValidRune(code) {
		return panes.Key{}, false
	}
	return panes.Key{Code: panes.KeyCode(code), Mod: mod}, true
}

// namedKeys maps bubbletea's named keys to the pane's. Keypad keys are sent
// as their main-keyboard equivalents, as a terminal without application
// keypad mode does.
var namedKeys = map[rune]panes.KeyCode{
	tea.KeyUp:         panes.KeyUp,
	tea.KeyDown:       panes.KeyDown,
	tea.KeyRight:      panes.KeyRight,
	tea.KeyLeft:       panes.KeyLeft,
	tea.KeyHome:       panes.KeyHome,
	tea.KeyEnd:        panes.KeyEnd,
	tea.KeyInsert:     panes.KeyInsert,
	tea.KeyDelete:     panes.KeyDelete,
	tea.KeyPgUp:       panes.KeyPageUp,
	tea.KeyPgDown:     panes.KeyPageDown,
	tea.KeyEnter:      panes.KeyEnter,
	tea.KeyKpEnter:    panes.KeyEnter,
	tea.KeyTab:        panes.KeyTab,
	tea.KeyBackspace:  panes.KeyBackspace,
	tea.KeyEscape:     panes.KeyEscape,
	tea.KeyF1:         panes.KeyF1,
	tea.KeyF2:         panes.KeyF2,
	tea.KeyF3:         panes.KeyF3,
	tea.KeyF4:         panes.KeyF4,
	tea.KeyF5:         panes.KeyF5,
	tea.KeyF6:         panes.KeyF6,
	tea.KeyF7:         panes.KeyF7,
	tea.KeyF8:         panes.KeyF8,
	tea.KeyF9:         panes.KeyF9,
	tea.KeyF10:        panes.KeyF10,
	tea.KeyF11:        panes.KeyF11,
	tea.KeyF12:        panes.KeyF12,
	tea.KeyKpUp:       panes.KeyUp,
	tea.KeyKpDown:     panes.KeyDown,
	tea.KeyKpLeft:     panes.KeyLeft,
	tea.KeyKpRight:    panes.KeyRight,
	tea.KeyKpHome:     panes.KeyHome,
	tea.KeyKpEnd:      panes.KeyEnd,
	tea.KeyKpPgUp:     panes.KeyPageUp,
	tea.KeyKpPgDown:   panes.KeyPageDown,
	tea.KeyKpInsert:   panes.KeyInsert,
	tea.KeyKpDelete:   panes.KeyDelete,
	tea.KeyKp0:        '0',
	tea.KeyKp1:        '1',
	tea.KeyKp2:        '2',
	tea.KeyKp3:        '3',
	tea.KeyKp4:        '4',
	tea.KeyKp5:        '5',
	tea.KeyKp6:        '6',
	tea.KeyKp7:        '7',
	tea.KeyKp8:        '8',
	tea.KeyKp9:        '9',
	tea.KeyKpPlus:     '+',
	tea.KeyKpMinus:    '-',
	tea.KeyKpMultiply: '*',
	tea.KeyKpDivide:   '/',
	tea.KeyKpDecimal:  '.',
	tea.KeyKpEqual:    '=',
	tea.KeyKpComma:    ',',
}
