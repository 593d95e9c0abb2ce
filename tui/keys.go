package tui

import (
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/panes"
)

// DefaultPrefix is the key that leaves a pane back to navigation mode, as
// tmux's prefix does.
const DefaultPrefix = "ctrl+b"

// KeyMap is every binding of the screen. The help overlay is generated from
// it, so a binding added here is documented there.
type KeyMap struct {
	// Navigation mode.
	Left, Right, Up, Down key.Binding
	Next, Prev            key.Binding
	Jump                  key.Binding // 1-9: focus the n-th pane
	Enter                 key.Binding
	Zoom                  key.Binding
	Scroll                key.Binding
	Timeline              key.Binding
	Close                 key.Binding
	Gate                  key.Binding
	Overview              key.Binding // the run overview (overview.go)
	Detach                key.Binding // an attached screen only (Config.Attached)
	Quit                  key.Binding
	Help                  key.Binding

	// Pane-input mode: only the prefix is the screen's.
	Prefix key.Binding

	// Scroll mode.
	LineUp, LineDown      key.Binding
	PageUp, PageDown      key.Binding
	HalfUp, HalfDown      key.Binding
	Top, Bottom           key.Binding
	ExitScroll            key.Binding
	ConfirmYes, ConfirmNo key.Binding
	// The attached screen's q dialog: Detach, EndRun, ConfirmNo.
	EndRun key.Binding
}

// NewKeyMap returns the default bindings with prefix as the prefix key.
func NewKeyMap(prefix string) KeyMap {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Left:     b("←/h", "focus left", "left", "h"),
		Right:    b("→/l", "focus right", "right", "l"),
		Up:       b("↑/k", "focus up", "up", "k"),
		Down:     b("↓/j", "focus down", "down", "j"),
		Next:     b("tab", "next pane", "tab"),
		Prev:     b("shift+tab", "previous pane", "shift+tab"),
		Jump:     b("1-9", "focus pane n", "1", "2", "3", "4", "5", "6", "7", "8", "9"),
		Enter:    b("enter/i", "type into the pane", "enter", "i"),
		Zoom:     b("z", "zoom / unzoom", "z"),
		Scroll:   b("[/pgup", "scroll history", "[", "pgup"),
		Timeline: b("t", "show / hide timeline", "t"),
		Close:    b("x", "close worker pane", "x"),
		Gate:     b("g", "answer the waiting gate", "g"),
		Overview: b("w", "run overview (enter, r)", "w"),
		Detach:   b("d", "detach: the run goes on", "d"),
		Quit:     b("q", "quit", "q", "ctrl+c"),
		Help:     b("?", "help", "?"),

		Prefix: b(prefix, "back to navigation", prefix),

		LineUp:     b("↑/k", "line up", "up", "k"),
		LineDown:   b("↓/j", "line down", "down", "j"),
		PageUp:     b("pgup/b", "page up", "pgup", "b"),
		PageDown:   b("pgdn/f", "page down", "pgdown", "f"),
		HalfUp:     b("ctrl+u", "half page up", "ctrl+u"),
		HalfDown:   b("ctrl+d", "half page down", "ctrl+d"),
		Top:        b("g", "oldest line", "g", "home"),
		Bottom:     b("G", "newest line", "G", "end"),
		ExitScroll: b("q/esc", "leave scroll mode", "q", "esc"),

		ConfirmYes: b("y", "confirm", "y"),
		ConfirmNo:  b("n/esc", "cancel", "n", "esc"),
		EndRun:     b("e/y", "end the run", "e", "y"),
	}
}

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
