package tui

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
)

// DefaultPrefix is the key that leaves a pane back to navigation mode, as
// tmux's prefix does.
const DefaultPrefix = "ctrl+b"

// KeyMap is every binding of the screen, one group per mode, region and
// overlay. Keys are matched only through it, and the help overlay is
// generated from it (helpSections): a binding added here is documented
// there. A binding with no help text shares the row of the one before it
// (right, up and down are listed with left).
type KeyMap struct {
	// Prefix is the screen's key while typing into a pane (one-shot, as
	// tmux's: the next key is a screen command, then typing goes on).
	Prefix   key.Binding
	Nav      NavKeys
	Prefixed PrefixedKeys
	Scroll   ScrollKeys
	Search   SearchKeys
	Select   SelectKeys
	Prompt   PromptKeys
	Gate     GateKeys
	Overview OverviewKeys
	Result   ResultKeys
	Help     HelpKeys
	Confirm  ConfirmKeys
	// Mouse is documentation only: what the mouse does, for the help.
	Mouse []key.Binding
}

// NavKeys are navigation mode's keys; after the prefix they work from any
// mode (ctrl+b z zooms while typing, and typing goes on).
type NavKeys struct {
	Left, Right, Up, Down key.Binding
	Next, Prev            key.Binding
	Jump                  key.Binding // 1-9: focus the n-th pane
	Enter                 key.Binding
	Zoom                  key.Binding
	Scroll                key.Binding
	ScrollPage            key.Binding // pgup: scroll mode, a page up
	Timeline              key.Binding
	Close                 key.Binding
	Gate                  key.Binding
	Overview              key.Binding // the run overview (overview.go)
	Detach                key.Binding // an attached screen only (Config.Attached)
	Quit                  key.Binding
	Help                  key.Binding
}

// PrefixedKeys only mean something right after the prefix.
type PrefixedKeys struct {
	Navigate   key.Binding // stay in navigation mode (keys drive the screen)
	SendPrefix key.Binding // the prefix again: the program gets it (help only; it is Prefix)
	Once       key.Binding // help only: every navigation key works once after the prefix
}

// ScrollKeys move through the focused pane's history (scroll mode).
type ScrollKeys struct {
	LineUp, LineDown key.Binding
	PageUp, PageDown key.Binding
	HalfUp, HalfDown key.Binding
	Top, Bottom      key.Binding
	Exit             key.Binding
}

// SearchKeys search the scrolled pane (search.go).
type SearchKeys struct {
	Forward, Backward key.Binding
	Next, Prev        key.Binding
	Clear             key.Binding
}

// SelectKeys select and copy in scroll mode, as tmux's copy-mode-vi
// (selection.go).
type SelectKeys struct {
	Start, Lines, Copy, Cancel, Swap, Anchor key.Binding
	// Cursor motions.
	Left, Right, Down, Up           key.Binding
	LineStart, FirstChar, LineEnd   key.Binding
	WordNext, WordBack, WordEnd     key.Binding
	BigNext, BigBack, BigEnd        key.Binding
	Top, Bottom                     key.Binding
	ViewTop, ViewMiddle, ViewBottom key.Binding
	HalfUp, HalfDown                key.Binding
	PageUp, PageDown                key.Binding
}

// PromptKeys are a text field's: the search query, the gate's note. Edit
// is bubbles/textinput's own key map (cursor motion and deletion).
type PromptKeys struct {
	Submit, Cancel key.Binding
	Edit           textinput.KeyMap
}

// GateKeys are the gate dialog's (gatedialog.go). The note (or the
// reason) always has the keyboard, so no letter is a command there: the
// choice moves with the arrows and tab, and the dialog shows what enter
// sends.
type GateKeys struct {
	Up, Down   key.Binding
	Answer     key.Binding
	Later      key.Binding // close, the gate keeps waiting
	NextGate   key.Binding
	PrevGate   key.Binding
	ScrollUp   key.Binding
	ScrollDown key.Binding
}

// OverviewKeys are the run overview's (overview.go).
type OverviewKeys struct {
	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	First, Last      key.Binding
	Open             key.Binding
	Result           key.Binding
	Close            key.Binding
}

// ResultKeys are the result view's (result.go).
type ResultKeys struct {
	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	HalfUp, HalfDown key.Binding
	Top, Bottom      key.Binding
	Back             key.Binding
}

// HelpKeys are the help overlay's: it scrolls when taller than the
// screen; any other key closes it.
type HelpKeys struct {
	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	Close            key.Binding
}

// ConfirmKeys answer a question: quit, close a pane, detach or end.
type ConfirmKeys struct {
	Yes    key.Binding
	No     key.Binding
	Detach key.Binding // the attached screen's q dialog
	EndRun key.Binding
}

// bind is a binding with its help text; with help "" it is listed on the
// row of the binding before it.
func bind(help, desc string, keys ...string) key.Binding {
	if help == "" {
		return key.NewBinding(key.WithKeys(keys...))
	}
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// helpOnly is a row of the help that no key matches (the mouse, a
// summary).
func helpOnly(keys, desc string) key.Binding {
	return key.NewBinding(key.WithHelp(keys, desc))
}

// NewKeyMap returns the default bindings with prefix as the prefix key
// (bubbletea's spelling or tmux's: see ParsePrefix); an empty or invalid
// prefix means DefaultPrefix.
func NewKeyMap(prefix string) KeyMap {
	p, err := ParsePrefix(prefix)
	if err != nil || prefix == "" {
		p = DefaultPrefix
	}
	edit := textinput.DefaultKeyMap()
	edit.Paste = key.NewBinding(key.WithDisabled()) // a paste arrives as a paste
	edit.AcceptSuggestion = key.NewBinding(key.WithDisabled())
	edit.NextSuggestion = key.NewBinding(key.WithDisabled())
	edit.PrevSuggestion = key.NewBinding(key.WithDisabled())
	edit.CharacterBackward = key.NewBinding(key.WithKeys("left"))
	edit.CharacterForward = key.NewBinding(key.WithKeys("right"))
	edit.DeleteWordBackward.SetHelp("ctrl+w/u", "delete word / to start")
	return KeyMap{
		Prefix: bind(p, "then one screen key", p),
		Nav: NavKeys{
			Left:       bind("←↓↑→ hjkl", "move focus", "left", "h"),
			Right:      bind("", "", "right", "l"),
			Up:         bind("", "", "up", "k"),
			Down:       bind("", "", "down", "j"),
			Next:       bind("tab/S-tab", "next / previous pane", "tab"),
			Prev:       bind("", "", "shift+tab"),
			Jump:       bind("1-9", "focus pane n", "1", "2", "3", "4", "5", "6", "7", "8", "9"),
			Enter:      bind("enter/i", "type into the pane", "enter", "i"),
			Zoom:       bind("z", "zoom / unzoom", "z"),
			Scroll:     bind("[/pgup", "scroll the history", "["),
			ScrollPage: bind("", "", "pgup"),
			Timeline:   bind("t", "show / hide timeline", "t"),
			Close:      bind("x", "close a worker pane", "x"),
			Gate:       bind("g", "answer a waiting gate", "g"),
			Overview:   bind("w", "run overview", "w"),
			Detach:     bind("d", "detach (the run goes on)", "d"),
			Quit:       bind("q", "quit", "q", "ctrl+c"),
			Help:       bind("?", "this help", "?"),
		},
		Prefixed: PrefixedKeys{
			Navigate:   bind("esc", "navigation mode", "esc"),
			SendPrefix: bind(p, "send "+p+" itself", p),
			Once:       helpOnly("z [ w ? …", "a navigation key, once"),
		},
		Scroll: ScrollKeys{
			LineUp:   bind("↑↓ kj", "line up / down", "up", "k"),
			LineDown: bind("", "", "down", "j"),
			PageUp:   bind("pgup/pgdn", "page (also b f)", "pgup", "b"),
			PageDown: bind("", "", "pgdown", "f"),
			HalfUp:   bind("ctrl+u/d", "half page", "ctrl+u"),
			HalfDown: bind("", "", "ctrl+d"),
			Top:      bind("g/G", "oldest / newest", "g", "home"),
			Bottom:   bind("", "", "G", "end"),
			Exit:     bind("q/esc", "leave scroll mode", "q", "esc"),
		},
		Search: SearchKeys{
			Forward:  bind("/ ?", "search down / up", "/"),
			Backward: bind("", "", "?"),
			Next:     bind("n/N", "next / previous match", "n"),
			Prev:     bind("", "", "N"),
			Clear:    bind("esc", "clear the search", "esc"),
		},
		Select: SelectKeys{
			Start:      bind("v/space", "select", "v", "space"),
			Lines:      bind("V", "select lines", "V"),
			Copy:       bind("y/enter", "copy and leave", "y", "enter"),
			Cancel:     bind("esc", "drop the selection", "esc", "ctrl+c"),
			Swap:       bind("o", "other end", "o"),
			Anchor:     bind("", "", "space"),
			Left:       bind("hjkl w b e", "move (W B E: WORDs)", "h", "left", "backspace"),
			Right:      bind("", "", "l", "right"),
			Down:       bind("", "", "j", "down", "ctrl+n", "ctrl+j"),
			Up:         bind("", "", "k", "up", "ctrl+p"),
			LineStart:  bind("0 ^ $", "line start / text / end", "0", "home"),
			FirstChar:  bind("", "", "^"),
			LineEnd:    bind("", "", "$", "end"),
			WordNext:   bind("", "", "w"),
			WordBack:   bind("", "", "b"),
			WordEnd:    bind("", "", "e"),
			BigNext:    bind("", "", "W"),
			BigBack:    bind("", "", "B"),
			BigEnd:     bind("", "", "E"),
			Top:        bind("g G H M L", "ends; view top/mid/end", "g"),
			Bottom:     bind("", "", "G"),
			ViewTop:    bind("", "", "H"),
			ViewMiddle: bind("", "", "M"),
			ViewBottom: bind("", "", "L"),
			HalfUp:     bind("", "", "ctrl+u"),
			HalfDown:   bind("", "", "ctrl+d"),
			PageUp:     bind("", "", "ctrl+b", "pgup"),
			PageDown:   bind("", "", "ctrl+f", "pgdown"),
		},
		Prompt: PromptKeys{
			Submit: bind("enter", "search (empty: again)", "enter"),
			Cancel: bind("esc", "give up", "esc", "ctrl+c", "ctrl+g"),
			Edit:   edit,
		},
		Gate: GateKeys{
			Up:         bind("↑↓ tab", "choose; letters: the note", "up", "shift+tab"),
			Down:       bind("", "", "down", "tab"),
			Answer:     bind("enter", "send the answer shown", "enter"),
			Later:      bind("esc", "later (it keeps waiting)", "esc"),
			NextGate:   bind("ctrl+n/p", "other waiting gates", "ctrl+n"),
			PrevGate:   bind("", "", "ctrl+p"),
			ScrollUp:   bind("pgup/pgdn", "scroll a tall dialog", "pgup"),
			ScrollDown: bind("", "", "pgdown"),
		},
		Overview: OverviewKeys{
			Up:       bind("↑↓ kj", "choose a dispatch", "up", "k"),
			Down:     bind("", "", "down", "j"),
			PageUp:   bind("pgup/pgdn", "page (b f space)", "pgup", "b"),
			PageDown: bind("", "", "pgdown", "f", "space"),
			First:    bind("g/G", "first / last", "g", "home"),
			Last:     bind("", "", "G", "end"),
			Open:     bind("enter", "its pane, or its log", "enter"),
			Result:   bind("r", "its result file", "r"),
			Close:    bind("esc/q/w", "close", "esc", "q", "w"),
		},
		Result: ResultKeys{
			Up:       bind("↑↓ kj", "line up / down", "up", "k"),
			Down:     bind("", "", "down", "j", "enter"),
			PageUp:   bind("pgup/pgdn", "page (b f space)", "pgup", "b"),
			PageDown: bind("", "", "pgdown", "f", "space"),
			HalfUp:   bind("ctrl+u/d", "half page", "ctrl+u"),
			HalfDown: bind("", "", "ctrl+d"),
			Top:      bind("g/G", "top / bottom", "g", "home"),
			Bottom:   bind("", "", "G", "end"),
			Back:     bind("esc/q/r", "back to the overview", "esc", "q", "r"),
		},
		Help: HelpKeys{
			Up:       bind("↑↓ pgup/pgdn", "scroll this help", "up", "k"),
			Down:     bind("", "", "down", "j"),
			PageUp:   bind("", "", "pgup", "b"),
			PageDown: bind("", "", "pgdown", "f", "space"),
			Close:    bind("esc/q/?", "close (any key)", "esc", "q", "?"),
		},
		Mouse: []key.Binding{
			helpOnly("click", "focus (typing: sent too)"),
			helpOnly("drag 2× 3×", "copy selection/word/line"),
			helpOnly("wheel", "scroll (or to a program)"),
			helpOnly("click", "gate: choose; again: send"),
		},
		Confirm: ConfirmKeys{
			Yes:    bind("y", "yes (q again quits)", "y"),
			No:     bind("n/esc", "no (any other key)", "n", "esc"),
			Detach: bind("d", "detach: the run goes on", "d"),
			EndRun: bind("e/y", "end the run", "e", "y"),
		},
	}
}
