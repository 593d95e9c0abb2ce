// Package term is the contract between a pane and the terminal emulator behind
// it: what a pane feeds in (program output, a new size) and what it reads back
// (styled rows, cursor, modes, title, replies and events). It holds types only,
// so the emulator can be swapped (the project's own in panes/vt, x/vt as a
// reference in tests) without touching panes or the UI. It must not import
// bubbletea, lipgloss or anything okstra-specific.
package term

// Emulator turns a program's output bytes into a screen.
//
// An Emulator is not safe for concurrent use: the pane serialises every call
// under its own lock. Write must never block on I/O; replies and events are
// handed to the callbacks from SetCallbacks, which must not block either.
type Emulator interface {
	// Write feeds program output. Sequences may be split across calls at any
	// byte; the result must not depend on how the stream was cut.
	Write(p []byte) (int, error)

	// Resize changes the screen size. The cursor stays on screen; content is
	// kept (reflowed or cropped) and never lost into nowhere.
	Resize(cols, rows int)
	Size() (cols, rows int)

	// Cursor reports the cursor of the active screen.
	Cursor() Cursor
	// Modes reports the terminal modes a pane needs for input and drawing.
	Modes() Modes
	// Title is the last OSC 0/2 title.
	Title() string

	// AppendLine appends visible row (0 ≤ row < rows) to dst. With styled set
	// it carries SGR (and OSC 8 hyperlink) sequences and ends in a reset when
	// any style was emitted; without, plain text. Trailing blank cells without a
	// background are trimmed; wide characters count two columns and their
	// covered cell is not written.
	AppendLine(dst []byte, row int, styled bool) []byte
	// ScrollbackLen is the number of lines that scrolled off the top of the
	// normal screen and are kept (0 ≤ i < ScrollbackLen, 0 = oldest).
	ScrollbackLen() int
	// ScrollbackDropped counts the lines evicted from the oldest end of a
	// full scrollback since the emulator started; it never decreases. With
	// ScrollbackLen it tells a scrolled view how far new output moved the
	// lines it shows, even when the length no longer grows.
	ScrollbackDropped() uint64
	AppendScrollback(dst []byte, i int, styled bool) []byte

	// TakeDirty appends to dst the visible rows changed since the previous
	// call and clears the marks. A full redraw (resize, alternate screen,
	// scroll) reports every row.
	TakeDirty(dst []int) []int

	// SetCallbacks sets where terminal replies (DA, DSR, CPR: bytes to write
	// back to the program's input) and events (bell, notifications, title)
	// go. Either may be nil.
	SetCallbacks(reply func(p []byte), event func(Event))
}

// Cursor is a cursor position in cells, 0-based, on the visible screen.
type Cursor struct {
	X, Y    int
	Visible bool
}

// MouseMode is the mouse tracking a program asked for (DECSET 9/1000/1002/1003).
type MouseMode uint8

const (
	MouseNone   MouseMode = iota
	MouseX10              // 9: press only
	MouseNormal           // 1000: press and release
	MouseButton           // 1002: plus motion with a button down
	MouseAny              // 1003: all motion
)

// Modes are the modes a pane reads to encode input and to decide when to draw.
type Modes struct {
	AltScreen      bool // 1049/1047/47 active
	BracketedPaste bool // 2004
	AppCursor      bool // DECCKM (1)
	AppKeypad      bool // DECKPAM
	SyncOutput     bool // 2026: hold the frame while set
	FocusEvents    bool // 1004
	Mouse          MouseMode
	MouseSGR       bool // 1006
}

// EventKind says what happened.
type EventKind uint8

const (
	EventBell   EventKind = iota + 1 // BEL outside a sequence
	EventNotify                      // OSC 9 or OSC 777;notify
	EventTitle                       // OSC 0/2 changed the title
)

// Event is something a program signalled that the UI may surface.
type Event struct {
	Kind  EventKind
	Title string // notification title (OSC 777) or the new window title
	Body  string // notification body
}

// Pos is a cell of a pane's text: scrollback and screen as one sequence of
// lines. Line counts from the first line the emulator ever kept, so a line
// keeps its number while output scrolls it up: scrollback line i is
// ScrollbackDropped()+i, visible row r is ScrollbackDropped()+
// ScrollbackLen()+r. Col is a cell column (a wide character's two cells are
// Col and Col+1).
type Pos struct{ Line, Col int }

// Less orders positions as text: by line, then column.
func (p Pos) Less(q Pos) bool { return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col }

// Match is a found piece of text from Start to End (exclusive). End is on
// Start's line or, for a match running across a soft wrap, a later one.
type Match struct{ Start, End Pos }

// Finder is what an emulator that can search and copy its text offers, on
// top of Emulator (panes/vt does; panes fall back to plain lines for others).
type Finder interface {
	// Search appends to dst every occurrence of query in the scrollback and
	// the visible screen, oldest first: literal, case-insensitive unless the
	// query has an upper-case letter, lines joined where they soft-wrapped.
	Search(dst []Match, query string) []Match
	// Text is the text from one position to another (End exclusive; with
	// lines, the whole lines from's and to's lines): trailing blanks of each
	// line trimmed, soft-wrapped lines joined, other lines ended by "\n".
	Text(from, to Pos, lines bool) string
}
