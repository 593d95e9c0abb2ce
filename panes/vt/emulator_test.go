package vt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/okstra/cockpit/panes/term"
)

func feed(t testing.TB, e *Emulator, s string) {
	t.Helper()
	if _, err := e.Write([]byte(s)); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// screenText is the plain screen, rows joined by '\n'.
func screenText(e term.Emulator) string {
	_, rows := e.Size()
	var b []byte
	for y := 0; y < rows; y++ {
		if y > 0 {
			b = append(b, '\n')
		}
		b = e.AppendLine(b, y, false)
	}
	return string(b)
}

func styledText(e term.Emulator) string {
	_, rows := e.Size()
	var b []byte
	for y := 0; y < rows; y++ {
		if y > 0 {
			b = append(b, '\n')
		}
		b = e.AppendLine(b, y, true)
	}
	return string(b)
}

func wantScreen(t *testing.T, e *Emulator, want ...string) {
	t.Helper()
	if got := screenText(e); got != strings.Join(want, "\n") {
		t.Fatalf("screen:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func wantCursor(t *testing.T, e *Emulator, x, y int) {
	t.Helper()
	if c := e.Cursor(); c.X != x || c.Y != y {
		t.Fatalf("cursor = (%d,%d), want (%d,%d)", c.X, c.Y, x, y)
	}
}

func TestPrintAndPendingWrap(t *testing.T) {
	e := New(5, 3)
	feed(t, e, "abcde")
	wantCursor(t, e, 4, 0) // pending wrap: cursor stays in the last column
	feed(t, e, "f")
	wantScreen(t, e, "abcde", "f", "")
	if !e.Wrapped(0) || e.Wrapped(1) {
		t.Fatal("row 0 should be marked wrapped, row 1 not")
	}
	feed(t, e, "\r\nxyzuv")
	wantScreen(t, e, "abcde", "f", "xyzuv")
	wantCursor(t, e, 4, 2)
}

func TestPendingWrapClearedByCursorMove(t *testing.T) {
	e := New(5, 3)
	feed(t, e, "abcde\x1b[1;3HX")
	wantScreen(t, e, "abXde", "", "")
	feed(t, e, "\x1b[1;5HY\rZ") // CR ends the pending wrap
	wantScreen(t, e, "ZbXdY", "", "")
}

func TestNoAutowrap(t *testing.T) {
	e := New(5, 2)
	feed(t, e, "\x1b[?7labcdefgh")
	wantScreen(t, e, "abcdh", "")
	wantCursor(t, e, 4, 0)
	feed(t, e, "\x1b[2;1H漢字漢") // a wide character that does not fit is dropped
	wantScreen(t, e, "abcdh", "漢字")
}

func TestWideCharAtLastColumnWraps(t *testing.T) {
	e := New(5, 3)
	feed(t, e, "abcd漢")
	wantScreen(t, e, "abcd", "漢", "")
	wantCursor(t, e, 2, 1)
	c := e.Cell(0, 1)
	if c.Attr&AttrWide == 0 || e.Cell(1, 1).Attr&AttrWideCont == 0 {
		t.Fatalf("wide cell flags: %v %v", c.Attr, e.Cell(1, 1).Attr)
	}
}

func TestOverwriteHalfOfWideChar(t *testing.T) {
	e := New(6, 1)
	feed(t, e, "漢字\x1b[1;2Hx")
	wantScreen(t, e, " x字")
	feed(t, e, "\x1b[1;3Hy")
	wantScreen(t, e, " xy")
}

func TestCombiningAndZWJ(t *testing.T) {
	e := New(10, 1)
	feed(t, e, "e\u0301x")
	wantScreen(t, e, "e\u0301x")
	wantCursor(t, e, 2, 0)
	e = New(10, 1)
	feed(t, e, "👨\u200d👩!")
	wantScreen(t, e, "👨\u200d👩!")
	wantCursor(t, e, 3, 0)
}

func TestUTF8SplitAcrossWrites(t *testing.T) {
	e := New(10, 1)
	for _, b := range []byte("é漢😀") {
		feed(t, e, string([]byte{b}))
	}
	wantScreen(t, e, "é漢😀")
	feed(t, e, "\r\xe6\xbcX") // truncated rune then ASCII: one U+FFFD per bad byte
	wantScreen(t, e, "\uFFFD\uFFFDX😀")
}

func TestTabs(t *testing.T) {
	e := New(30, 1)
	feed(t, e, "a\tb\tc")
	wantScreen(t, e, "a       b       c")
	feed(t, e, "\r\x1b[3g\x1b[5G\x1bH\r\tX") // clear all, set one at column 5
	wantScreen(t, e, "a   X   b       c")
	feed(t, e, "\t\t\t\t\tZ") // no more stops: last column
	wantCursor(t, e, 29, 0)
	feed(t, e, "\r\x1b[0g") // TBC 0 at column 0 (no stop there): harmless
	feed(t, e, "\x1b[20G\x1b[Z")
	wantCursor(t, e, 4, 0)
}

func TestCursorMoves(t *testing.T) {
	e := New(10, 5)
	steps := []struct {
		seq  string
		x, y int
	}{
		{"\x1b[3;4H", 3, 2}, {"\x1b[A", 3, 1}, {"\x1b[5B", 3, 4}, {"\x1b[2C", 5, 4},
		{"\x1b[20D", 0, 4}, {"\x1b[2;2f", 1, 1}, {"\x1b[7G", 6, 1}, {"\x1b[4d", 6, 3},
		{"\x1b[2`", 1, 3}, {"\x1b[E", 0, 4}, {"\x1b[2F", 0, 2}, {"\x1b[99;99H", 9, 4},
		{"\x1b[H", 0, 0}, {"\x1b[3a", 3, 0}, {"\x1b[2e", 3, 2},
	}
	for _, s := range steps {
		feed(t, e, s.seq)
		if c := e.Cursor(); c.X != s.x || c.Y != s.y {
			t.Fatalf("after %q cursor = (%d,%d), want (%d,%d)", s.seq, c.X, c.Y, s.x, s.y)
		}
	}
	feed(t, e, "\x1b[2;3H\x1b7\x1b[5;5H\x1b8")
	wantCursor(t, e, 2, 1)
	feed(t, e, "\x1b[4;4H\x1b[s\x1b[H\x1b[u")
	wantCursor(t, e, 3, 3)
}

func TestSaveRestoreKeepsPen(t *testing.T) {
	e := New(10, 2)
	feed(t, e, "\x1b[31m\x1b7\x1b[0m\x1b8x")
	if got := styledText(e); got != "\x1b[0;31mx\x1b[0m\n" {
		t.Fatalf("styled = %q", got)
	}
}

func TestErase(t *testing.T) {
	fill := "\x1b[H11111\r\n22222\r\n33333\x1b[2;3H"
	for _, tc := range []struct {
		seq  string
		want []string
	}{
		{"\x1b[K", []string{"11111", "22", "33333"}},
		{"\x1b[1K", []string{"11111", "   22", "33333"}},
		{"\x1b[2K", []string{"11111", "", "33333"}},
		{"\x1b[J", []string{"11111", "22", ""}},
		{"\x1b[1J", []string{"", "   22", "33333"}},
		{"\x1b[2J", []string{"", "", ""}},
		{"\x1b[2X", []string{"11111", "22  2", "33333"}},
		{"\x1b[2P", []string{"11111", "222", "33333"}},
		{"\x1b[2@", []string{"11111", "22  222", "33333"}},
	} {
		e := New(7, 3)
		feed(t, e, fill+tc.seq)
		if got := screenText(e); got != strings.Join(tc.want, "\n") {
			t.Errorf("%q: screen %q, want %q", tc.seq, got, strings.Join(tc.want, "\n"))
		}
	}
}

func TestEraseUsesBackground(t *testing.T) {
	e := New(4, 1)
	feed(t, e, "\x1b[44m\x1b[K\x1b[0m")
	if got := styledText(e); got != "\x1b[0;44m    \x1b[0m" {
		t.Fatalf("styled = %q", got)
	}
	if got := screenText(e); got != "    " {
		t.Fatalf("plain = %q (blanks with a background are kept)", got)
	}
}

func TestInsertDeleteLines(t *testing.T) {
	e := New(3, 4)
	feed(t, e, "a\r\nb\r\nc\r\nd\x1b[2;1H\x1b[L")
	wantScreen(t, e, "a", "", "b", "c")
	feed(t, e, "\x1b[2M")
	wantScreen(t, e, "a", "c", "", "")
	if e.ScrollbackLen() != 0 {
		t.Fatal("IL/DL must not feed the scrollback")
	}
}

func TestScrollRegion(t *testing.T) {
	e := New(3, 5)
	feed(t, e, "1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r")
	wantCursor(t, e, 0, 0) // DECSTBM homes the cursor
	feed(t, e, "\x1b[4;1H\nX")
	wantScreen(t, e, "1", "3", "4", "X", "5")
	feed(t, e, "\x1b[2;1H\x1bMY") // RI at the top margin scrolls down
	wantScreen(t, e, "1", "Y", "3", "4", "5")
	feed(t, e, "\x1b[S")
	wantScreen(t, e, "1", "3", "4", "", "5")
	feed(t, e, "\x1b[2T")
	wantScreen(t, e, "1", "", "", "3", "5")
	if e.ScrollbackLen() != 0 {
		t.Fatal("a partial region must not feed the scrollback")
	}
	feed(t, e, "\x1b[?6h\x1b[1;1HO\x1b[6n")
	wantScreen(t, e, "1", "O", "", "3", "5")
	feed(t, e, "\x1b[r\x1b[?6l\x1b[5;1H\nZ")
	wantScreen(t, e, "O", "", "3", "5", "Z")
	if e.ScrollbackLen() != 1 || string(e.AppendScrollback(nil, 0, false)) != "1" {
		t.Fatalf("scrollback %d %q", e.ScrollbackLen(), e.AppendScrollback(nil, 0, false))
	}
}

func TestIndexNextLine(t *testing.T) {
	e := New(4, 3)
	feed(t, e, "ab\x1bDc\x1bEd")
	wantScreen(t, e, "ab", "  c", "d")
	wantCursor(t, e, 1, 2)
}

func TestAltScreen(t *testing.T) {
	for _, mode := range []string{"1049", "1047", "47"} {
		e := New(5, 3)
		feed(t, e, "main\x1b[2;3H\x1b[?"+mode+"h")
		if !e.Modes().AltScreen {
			t.Fatalf("%s: alt screen not reported", mode)
		}
		feed(t, e, "\x1b[Halt")
		wantScreen(t, e, "alt", "", "")
		feed(t, e, "\x1b[?"+mode+"l")
		wantScreen(t, e, "main", "", "")
		if mode == "1049" {
			wantCursor(t, e, 2, 1)
		}
	}
	e := New(5, 3)
	feed(t, e, "\x1b[?1049hx\r\n\r\n\r\n\r\n")
	if e.ScrollbackLen() != 0 {
		t.Fatal("alternate screen scrolled into the scrollback")
	}
	// 1049 clears the alternate screen on entry.
	feed(t, e, "\x1b[?1049l\x1b[?1049h")
	wantScreen(t, e, "", "", "")
}

func TestAltScreenSavedCursorIsSeparate(t *testing.T) {
	e := New(10, 5)
	feed(t, e, "\x1b[2;2H\x1b7\x1b[?1049h\x1b[4;4H\x1b7\x1b[1;1H\x1b8")
	wantCursor(t, e, 3, 3)
	feed(t, e, "\x1b[?1049l\x1b8")
	wantCursor(t, e, 1, 1)
}

func TestDECSpecialGraphics(t *testing.T) {
	e := New(10, 2)
	feed(t, e, "\x1b(0lqk\x1b(Bq\r\n\x1b)0\x0exq\x0fx")
	wantScreen(t, e, "┌─┐q", "│─x")
	// The charsets travel with DECSC/DECRC (ESC 7/8 and CSI s/u); DECSTR
	// and RIS reset them.
	e = New(12, 1)
	feed(t, e, "\x1b(0\x1b7\x1b(Bq\x1b8q\x1b(B\x1b[s\x1b(0\x1b[uq\x1b(0\x1b[!pq")
	wantScreen(t, e, "─qq")
	e = New(12, 1)
	feed(t, e, "\x1b(0q\x1bcq")
	wantScreen(t, e, "q")
}

func TestSGR(t *testing.T) {
	for _, tc := range []struct{ seq, want string }{
		{"\x1b[1;2;3;4;5;7;8;9mX", "\x1b[0;1;2;3;4;5;7;8;9mX\x1b[0m"},
		{"\x1b[4:3;58:2::255:0:0mX", "\x1b[0;4:3;58;2;255;0;0mX\x1b[0m"},
		{"\x1b[4:3;58;5;196mX", "\x1b[0;4:3;58;5;196mX\x1b[0m"},
		{"\x1b[21mX\x1b[24mY", "\x1b[0;4:2mX\x1b[0mY"},
		{"\x1b[38;5;100;48;2;1;2;3mX", "\x1b[0;38;5;100;48;2;1;2;3mX\x1b[0m"},
		{"\x1b[38:2:1:2:3mX", "\x1b[0;38;2;1;2;3mX\x1b[0m"},
		{"\x1b[38:5:9mX", "\x1b[0;38;5;9mX\x1b[0m"},
		{"\x1b[31;42mX\x1b[39mY\x1b[49mZ", "\x1b[0;31;42mX\x1b[0;42mY\x1b[0mZ"},
		{"\x1b[91;103mX", "\x1b[0;91;103mX\x1b[0m"},
		{"\x1b[1;2mX\x1b[22mY", "\x1b[0;1;2mX\x1b[0mY"},
		{"\x1b[3;5;6;7;8;9mX\x1b[23;25;27;28;29mY", "\x1b[0;3;5;6;7;8;9mX\x1b[0mY"},
		{"\x1b[4;58;5;1mX\x1b[59mY", "\x1b[0;4;58;5;1mX\x1b[0;4mY\x1b[0m"},
		{"\x1b[31mX\x1b[mY", "\x1b[0;31mX\x1b[0mY"},
		{"\x1b[7m \x1b[m", "\x1b[0;7m \x1b[0m"},
	} {
		e := New(10, 1)
		feed(t, e, tc.seq)
		if got := string(e.AppendLine(nil, 0, true)); got != tc.want {
			t.Errorf("%q: styled %q, want %q", tc.seq, got, tc.want)
		}
	}
}

func TestHyperlink(t *testing.T) {
	e := New(20, 1)
	feed(t, e, "a\x1b]8;id=1;https://x.test/a;b\x1b\\link\x1b]8;;\x1b\\b")
	want := "a\x1b]8;id=1;https://x.test/a;b\x1b\\link\x1b]8;;\x1b\\b"
	if got := string(e.AppendLine(nil, 0, true)); got != want {
		t.Fatalf("styled %q, want %q", got, want)
	}
	_, params, url := e.CellStyle(e.Cell(2, 0))
	if params != "id=1" || url != "https://x.test/a;b" {
		t.Fatalf("link of cell = %q %q", params, url)
	}
}

func TestEventsAndTitle(t *testing.T) {
	e := New(10, 2)
	var evs []term.Event
	e.SetCallbacks(nil, func(ev term.Event) { evs = append(evs, ev) })
	feed(t, e, "\a\x1b]0;a;b\a\x1b]2;a;b\x1b\\\x1b]9;built\a\x1b]9;4;1;50\a\x1b]777;notify;T;B;C\x1b\\")
	want := []term.Event{
		{Kind: term.EventBell},
		{Kind: term.EventTitle, Title: "a;b"},
		{Kind: term.EventNotify, Body: "built"},
		{Kind: term.EventNotify, Title: "T", Body: "B;C"},
	}
	if !slices.Equal(evs, want) {
		t.Fatalf("events %+v, want %+v", evs, want)
	}
	if e.Title() != "a;b" {
		t.Fatalf("title %q", e.Title())
	}
	wantScreen(t, e, "", "")
}

func TestModes(t *testing.T) {
	e := New(10, 2)
	feed(t, e, "\x1b[?1h\x1b=\x1b[?2004h\x1b[?1004h\x1b[?2026h\x1b[?1000h\x1b[?1006h\x1b[?25l")
	m := e.Modes()
	want := term.Modes{AppCursor: true, AppKeypad: true, BracketedPaste: true, FocusEvents: true,
		SyncOutput: true, Mouse: term.MouseNormal, MouseSGR: true}
	if m != want {
		t.Fatalf("modes %+v, want %+v", m, want)
	}
	if e.Cursor().Visible {
		t.Fatal("cursor visible after ?25l")
	}
	for _, step := range []struct {
		seq  string
		mode term.MouseMode
	}{{"\x1b[?9h", term.MouseX10}, {"\x1b[?1002h", term.MouseButton},
		{"\x1b[?1003h", term.MouseAny}, {"\x1b[?1002l", term.MouseNone}} {
		feed(t, e, step.seq)
		if e.Modes().Mouse != step.mode {
			t.Fatalf("after %q mouse = %v", step.seq, e.Modes().Mouse)
		}
	}
	feed(t, e, "\x1b[?1l\x1b>\x1b[?2004l\x1b[?1004l\x1b[?2026l\x1b[?1006l")
	if e.Modes() != (term.Modes{}) {
		t.Fatalf("modes after reset %+v", e.Modes())
	}
}

func TestReplies(t *testing.T) {
	e := New(10, 5)
	var got []string
	e.SetCallbacks(func(p []byte) { got = append(got, string(p)) }, nil)
	feed(t, e, "\x1b[c\x1b[>c\x1b[5n\x1b[3;4H\x1b[6n\x1b[?2026$p\x1b[?2026h\x1b[?2026$p\x1b[?1049$p\x1b[?9999$p\x1b[4$p\x1b]11;?\a\x1b[18t")
	want := []string{"\x1b[?62;22c", "\x1b[>1;10;0c", "\x1b[0n", "\x1b[3;4R", "\x1b[?2026;2$y",
		"\x1b[?2026;1$y", "\x1b[?1049;2$y", "\x1b[?9999;0$y", "\x1b[4;2$y", "\x1b]11;rgb:0000/0000/0000\a", "\x1b[8;5;10t"}
	if !slices.Equal(got, want) {
		t.Fatalf("replies\n%q\nwant\n%q", got, want)
	}
}

func TestResetAndSoftReset(t *testing.T) {
	e := New(5, 2)
	feed(t, e, "\x1b[31mab\x1b[?1h\x1b[?25l\x1b[2;2r\x1b[!p")
	if e.Modes().AppCursor || !e.Cursor().Visible {
		t.Fatal("DECSTR kept DECCKM or the hidden cursor")
	}
	feed(t, e, "x")
	wantScreen(t, e, "abx", "") // DECSTR keeps the screen, resets the pen
	if got := styledText(e); got != "\x1b[0;31mab\x1b[0mx\n" {
		t.Fatalf("styled %q", got)
	}
	feed(t, e, "\x1b[?1049h\x1b[?2004h\x1bc")
	wantScreen(t, e, "", "")
	wantCursor(t, e, 0, 0)
	if e.Modes() != (term.Modes{}) {
		t.Fatalf("modes after RIS %+v", e.Modes())
	}
}

func TestREPAndDECALN(t *testing.T) {
	e := New(6, 2)
	feed(t, e, "x\x1b[3b")
	wantScreen(t, e, "xxxx", "")
	feed(t, e, "\x1b#8")
	wantScreen(t, e, "EEEEEE", "EEEEEE")
}

func TestInsertMode(t *testing.T) {
	e := New(6, 1)
	feed(t, e, "abc\r\x1b[4hXY\x1b[4lZ")
	wantScreen(t, e, "XYZbc")
}

func TestLineFeedNewLineMode(t *testing.T) {
	e := New(6, 2)
	feed(t, e, "\x1b[20hab\ncd")
	wantScreen(t, e, "ab", "cd")
}

func TestResize(t *testing.T) {
	e := New(10, 4)
	feed(t, e, "one\r\ntwo\r\nthree\r\nfour")
	e.Resize(10, 2)
	wantScreen(t, e, "three", "four")
	wantCursor(t, e, 4, 1)
	if e.ScrollbackLen() != 2 {
		t.Fatalf("scrollback after shrink = %d", e.ScrollbackLen())
	}
	e.Resize(10, 4)
	wantScreen(t, e, "one", "two", "three", "four")
	wantCursor(t, e, 4, 3)
	e.Resize(3, 4) // narrower: long lines re-wrap, the cursor follows
	wantScreen(t, e, "thr", "ee", "fou", "r")
	wantCursor(t, e, 1, 3)
	e.Resize(10, 4)
	wantScreen(t, e, "one", "two", "three", "four")
	wantCursor(t, e, 4, 3)
	e.Resize(6, 4)
	if d := e.TakeDirty(nil); len(d) != 4 {
		t.Fatalf("dirty after resize = %v", d)
	}
	// Shrinking keeps the cursor row: blank rows below it go first.
	e = New(5, 5)
	feed(t, e, "a\r\nb")
	e.Resize(5, 2)
	wantScreen(t, e, "a", "b")
	wantCursor(t, e, 1, 1)
	// A wide character that no longer fits moves to the next row; as in
	// tmux the screen is the last two lines (the blank row included), so
	// "a" goes into the scrollback.
	e = New(4, 2)
	feed(t, e, "a漢")
	e.Resize(2, 2)
	wantScreen(t, e, "漢", "")
	if e.ScrollbackLen() != 1 || string(e.AppendScrollback(nil, 0, false)) != "a" {
		t.Fatalf("scrollback %d lines, want \"a\"", e.ScrollbackLen())
	}
	// The alternate screen is cropped, not reflowed.
	e = New(4, 2)
	feed(t, e, "\x1b[?1049habcd")
	e.Resize(2, 2)
	wantScreen(t, e, "ab", "")
}

func TestReflow(t *testing.T) {
	e := New(10, 3)
	feed(t, e, "0123456789abcdef\r\nshort\r\n漢字漢字漢字x")
	wantScreen(t, e, "short", "漢字漢字漢", "字x")
	wantCursor(t, e, 3, 2)
	e.Resize(20, 3)
	wantScreen(t, e, "0123456789abcdef", "short", "漢字漢字漢字x")
	wantCursor(t, e, 13, 2)
	if e.Wrapped(0) || e.ScrollbackLen() != 0 {
		t.Fatalf("wrapped %v, scrollback %d after widening", e.Wrapped(0), e.ScrollbackLen())
	}
	e.Resize(7, 3) // re-wrapped; what does not fit above goes to the scrollback
	wantScreen(t, e, "short", "漢字漢", "字漢字x")
	wantCursor(t, e, 6, 2)
	var sb []string
	for i := 0; i < e.ScrollbackLen(); i++ {
		sb = append(sb, string(e.AppendScrollback(nil, i, false)))
	}
	if got := strings.Join(sb, "|"); got != "0123456|789abcd|ef" {
		t.Fatalf("scrollback after narrowing = %q", got)
	}
	e.Resize(20, 3)
	wantScreen(t, e, "0123456789abcdef", "short", "漢字漢字漢字x")
	wantCursor(t, e, 13, 2)
	// Under the alternate screen the normal screen reflows with the saved
	// cursor.
	e = New(6, 2)
	feed(t, e, "abcdefgh\x1b[?1049hALT")
	e.Resize(4, 2)
	feed(t, e, "\x1b[?1049l")
	wantScreen(t, e, "abcd", "efgh")
	wantCursor(t, e, 3, 1)
	feed(t, e, "X") // the restored cursor is past the h: X goes on a new row
	wantScreen(t, e, "efgh", "X")
}

func TestTakeDirty(t *testing.T) {
	e := New(5, 4)
	if d := e.TakeDirty(nil); len(d) != 4 {
		t.Fatalf("first TakeDirty %v", d)
	}
	if d := e.TakeDirty(nil); len(d) != 0 {
		t.Fatalf("idle TakeDirty %v", d)
	}
	feed(t, e, "\x1b[3;1Hx\x1b[1;1Hab\x1b[1;2H\x1b[K\x1b[2;1H\x1b[K") // row 1 was blank: no change
	if d := e.TakeDirty(nil); !slices.Equal(d, []int{0, 2}) {
		t.Fatalf("TakeDirty %v, want [0 2]", d)
	}
	feed(t, e, "\x1b[4;1H\n")
	if d := e.TakeDirty(nil); len(d) != 4 {
		t.Fatalf("after scroll %v, want all rows", d)
	}
}

func TestScrollbackLimitAndOrder(t *testing.T) {
	e := New(10, 2, WithScrollback(3))
	for i := range 10 {
		feed(t, e, fmt.Sprintf("line%d\r\n", i))
	}
	if e.ScrollbackLen() != 3 {
		t.Fatalf("scrollback len %d", e.ScrollbackLen())
	}
	for i := range 3 {
		if got := string(e.AppendScrollback(nil, i, false)); got != fmt.Sprintf("line%d", 6+i) {
			t.Fatalf("scrollback[%d] = %q", i, got)
		}
	}
	// line0..line8 scrolled off; the ring kept the last three.
	if e.ScrollbackDropped() != 6 {
		t.Fatalf("dropped %d, want 6", e.ScrollbackDropped())
	}
	feed(t, e, "\x1b[3J")
	if e.ScrollbackLen() != 0 {
		t.Fatal("ED 3 kept the scrollback")
	}
	if e.ScrollbackDropped() != 6 {
		t.Fatalf("dropped %d after ED 3, want 6 still", e.ScrollbackDropped())
	}
	e = New(10, 2, WithScrollback(0))
	feed(t, e, "a\r\nb\r\nc\r\n")
	if e.ScrollbackLen() != 0 {
		t.Fatal("scrollback kept with limit 0")
	}
}

func TestScrollbackKeepsStylesAndWideText(t *testing.T) {
	e := New(12, 1)
	line := "\x1b[1;38;5;3mab\x1b[0m漢\x1b]8;;u\x1b\\é\x1b]8;;\x1b\\e\u0301\x1b[44m \x1b[0m"
	feed(t, e, line)
	screen := string(e.AppendLine(nil, 0, true))
	feed(t, e, "\r\n")
	if got := string(e.AppendScrollback(nil, 0, true)); got != screen {
		t.Fatalf("scrollback %q, screen was %q", got, screen)
	}
	feed(t, e, "\r\n")
	before := e.ScrollbackLen()
	feed(t, e, "\x1b[2J")
	if e.ScrollbackLen() != before {
		t.Fatalf("ED 2 of a blank screen added lines: %d", e.ScrollbackLen())
	}
}

func TestScrollbackWrappedFlag(t *testing.T) {
	e := New(4, 1)
	feed(t, e, "abcdef\r\n")
	if !e.ScrollbackWrapped(0) || e.ScrollbackWrapped(1) {
		t.Fatal("wrapped flags not kept in the scrollback")
	}
}

func TestScrollbackMemory(t *testing.T) {
	// 10,000 lines of 80-column log output in at most 8 MB.
	e := New(80, 24)
	log := GenLog(3 << 20)
	lines := bytes.Split(log, []byte("\r\n"))
	n := 0
	for _, ln := range lines {
		if e.ScrollbackLen() == 10000 && n > 10100 {
			break
		}
		// Cut to 80 columns' worth so each is one row.
		if len(ln) > 80 {
			ln = ln[:80]
		}
		feed(t, e, string(ln)+"\x1b[0m\x1b[K\r\n")
		n++
	}
	if e.ScrollbackLen() != 10000 {
		t.Fatalf("scrollback len %d", e.ScrollbackLen())
	}
	if b := e.ScrollbackBytes(); b > 8<<20 {
		t.Fatalf("scrollback holds %d bytes, want ≤ 8 MiB", b)
	} else {
		t.Logf("10,000 lines of 80 columns: %d bytes", b)
	}
}

func TestAppendLineAllocFree(t *testing.T) {
	e := New(200, 50)
	feed(t, e, string(GenLog(1<<20)))
	dst := make([]byte, 0, 1<<16)
	allocs := testing.AllocsPerRun(20, func() {
		dst = dst[:0]
		for y := 0; y < 50; y++ {
			dst = e.AppendLine(dst, y, true)
		}
		dst = e.AppendScrollback(dst[:0], 3, true)
	})
	if allocs != 0 {
		t.Fatalf("AppendLine allocates %.1f times per frame", allocs)
	}
}

func TestSteadyStateWritesAllocFree(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are unavailable under -race (the race detector allocates); .ci/run runs this test without it")
	}
	log := GenLog(2 << 20)
	rep := GenRepaint(1<<20, 200, 50)
	e := New(200, 50, WithScrollback(1000))
	feed(t, e, string(log))
	feed(t, e, string(rep))
	feed(t, e, "\x1b[?1049l")
	allocs := testing.AllocsPerRun(3, func() {
		_, _ = e.Write(log)
		_, _ = e.Write(rep)
		_, _ = e.Write([]byte("\x1b[?1049l"))
	})
	if allocs != 0 {
		t.Fatalf("steady-state writes allocate %.1f times per run", allocs)
	}
}

// TestChunkingInvariance feeds the same streams cut into 1-, 7- and 4097-byte
// writes and wants byte-identical screens, scrollback and cursor.
func TestChunkingInvariance(t *testing.T) {
	streams := map[string][]byte{
		"log":     GenLog(256 << 10),
		"repaint": GenRepaint(128<<10, 80, 24),
		"corpus":  []byte(strings.Join(diffCorpus, "")),
	}
	recs, err := filepath.Glob("../../testdata/vt/*.bin")
	if err != nil || len(recs) == 0 {
		t.Fatalf("recordings: %v (%d found)", err, len(recs))
	}
	for _, r := range recs {
		data, err := os.ReadFile(r)
		if err != nil {
			t.Fatalf("read %s: %v", r, err)
		}
		streams[filepath.Base(r)] = data
	}
	for name, data := range streams {
		var ref string
		for _, size := range []int{len(data), 1, 7, 4097} {
			e := New(80, 24, WithScrollback(500))
			for i := 0; i < len(data); i += size {
				_, _ = e.Write(data[i:min(i+size, len(data))])
			}
			got := dump(e)
			if size == len(data) {
				ref = got
				continue
			}
			if got != ref {
				t.Errorf("%s in %d-byte writes differs from one write", name, size)
			}
		}
	}
}

// dump is everything visible about an emulator, for exact comparisons.
func dump(e *Emulator) string {
	var b []byte
	for i := 0; i < e.ScrollbackLen(); i++ {
		b = e.AppendScrollback(b, i, true)
		b = append(b, '\n')
	}
	b = append(b, "--\n"...)
	b = append(b, styledText(e)...)
	c := e.Cursor()
	b = fmt.Appendf(b, "\ncursor %d,%d %v modes %+v title %q", c.X, c.Y, c.Visible, e.Modes(), e.Title())
	return string(b)
}

// TestScrollbackEncodingPaths checks that the incremental and eager line
// encodings give the scrollback the full encoder gives.
func TestScrollbackEncodingPaths(t *testing.T) {
	streams := [][]byte{GenLog(512 << 10), []byte(strings.Join(diffCorpus, ""))}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 50; i++ {
		in := make([]byte, 200)
		for j := range in {
			in[j] = byte(rng.IntN(256))
		}
		streams = append(streams, fuzzStream(in, false))
	}
	defer func() { encFast = true }()
	for i, data := range streams {
		encFast = true
		fast := New(fuzzCols*4, fuzzRows, WithScrollback(300))
		_, _ = fast.Write(data)
		encFast = false
		slow := New(fuzzCols*4, fuzzRows, WithScrollback(300))
		_, _ = slow.Write(data)
		if a, b := dump(fast), dump(slow); a != b {
			t.Fatalf("stream %d: scrollback differs between encoding paths:\n%s\n--- full encoder:\n%s", i, a, b)
		}
	}
}

// TestResizeRandom resizes in the middle of random streams: no panic, the
// cursor stays on screen, and the text before the resize is still there
// (screen plus scrollback) after a round trip to a wider screen.
func TestResizeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 300; i++ {
		in := make([]byte, 10+rng.IntN(120))
		for j := range in {
			in[j] = byte(rng.IntN(256))
		}
		data := fuzzStream(in, false)
		e := New(1+rng.IntN(30), 1+rng.IntN(10), WithScrollback(50))
		cut := rng.IntN(len(data) + 1)
		_, _ = e.Write(data[:cut])
		for k := 0; k < 3; k++ {
			e.Resize(1+rng.IntN(30), 1+rng.IntN(10))
			cols, rows := e.Size()
			if c := e.Cursor(); c.X < 0 || c.X >= cols || c.Y < 0 || c.Y >= rows {
				t.Fatalf("stream %q: cursor %+v outside %dx%d", data[:cut], c, cols, rows)
			}
			for y := 0; y < rows; y++ {
				_ = e.AppendLine(nil, y, true)
			}
		}
		_, _ = e.Write(data[cut:])
		_ = dump(e)
	}
	// Plain text survives narrowing and widening again.
	e := New(30, 4, WithScrollback(100))
	feed(t, e, "alpha beta gamma delta epsilon zeta eta theta\r\niota kappa")
	e.Resize(7, 4)
	e.Resize(30, 4)
	wantScreen(t, e, "alpha beta gamma delta epsilon", " zeta eta theta", "iota kappa", "")
}

func TestNonPrintableMask(t *testing.T) {
	// Every byte value in every position, with printable neighbours and
	// with a non-printable one below it.
	for pos := 0; pos < 8; pos++ {
		for v := 0; v < 256; v++ {
			b := []byte("abcdefgh")
			b[pos] = byte(v)
			m := nonPrintableMask(binary.LittleEndian.Uint64(b))
			want := v < 0x20 || v >= 0x7f
			if want && (m == 0 || bits.TrailingZeros64(m)>>3 != pos) || !want && m != 0 {
				t.Fatalf("byte %#x at %d: mask %#x", v, pos, m)
			}
		}
	}
}

func TestTableCaps(t *testing.T) {
	e := New(10, 1)
	feed(t, e, "e"+strings.Repeat("\u0301", 1000)+"x")
	if c := e.CellText(e.Cell(0, 0)); len(c) > maxClusterLen || !strings.HasPrefix(c, "e\u0301") {
		t.Fatalf("cluster kept %d bytes: %q", len(c), c)
	}
	wantCursor(t, e, 2, 0)
	long := strings.Repeat("u", maxLinkLen+1)
	feed(t, e, "\r\x1b]8;;"+long+"\x1b\\L\x1b]8;;\x1b\\")
	if _, _, url := e.CellStyle(e.Cell(0, 0)); url != "" {
		t.Fatalf("over-long link kept (%d bytes)", len(url))
	}
	for i := 0; i < maxLinks+10; i++ {
		feed(t, e, fmt.Sprintf("\r\x1b]8;;u%d\x1b\\L\x1b]8;;\x1b\\", i))
	}
	if len(e.t.links) > maxLinks {
		t.Fatalf("%d links kept, cap %d", len(e.t.links), maxLinks)
	}
}

func TestRISClearsScrollback(t *testing.T) {
	e := New(10, 2)
	feed(t, e, "a\r\nb\r\nc\r\nd")
	if e.ScrollbackLen() != 2 {
		t.Fatalf("scrollback %d lines, want 2", e.ScrollbackLen())
	}
	feed(t, e, "\x1bc")
	if e.ScrollbackLen() != 0 {
		t.Fatalf("RIS kept %d scrollback lines", e.ScrollbackLen())
	}
	wantScreen(t, e, "", "")
	feed(t, e, "x\r\ny\r\nz")
	if e.ScrollbackLen() != 1 || string(e.AppendScrollback(nil, 0, false)) != "x" {
		t.Fatalf("scrollback after RIS and output: %d lines", e.ScrollbackLen())
	}
}

func TestDECCOLM(t *testing.T) {
	for _, seq := range []string{"\x1b[?3h", "\x1b[?3l"} {
		e := New(6, 4)
		feed(t, e, "ab\r\ncd\x1b[2;3r\x1b[4;5H"+seq)
		wantScreen(t, e, "", "", "", "")
		wantCursor(t, e, 0, 0)
		if c, r := e.Size(); c != 6 || r != 4 {
			t.Fatalf("%q: size %dx%d, want 6x4 kept", seq, c, r)
		}
		if e.ScrollbackLen() != 2 {
			t.Fatalf("%q: scrollback %d, want the 2 used rows (as ED 2)", seq, e.ScrollbackLen())
		}
		// The margins are the whole screen again: four line feeds from
		// the top scroll nothing off row 0 until the bottom.
		feed(t, e, "1\r\n2\r\n3\r\n4")
		wantScreen(t, e, "1", "2", "3", "4")
	}
	e := New(6, 2)
	feed(t, e, "abcdef"+"\x1b[?3h") // a pending wrap ends
	feed(t, e, "X")
	wantScreen(t, e, "X", "")
}

func TestColorQueries(t *testing.T) {
	e := New(10, 2)
	var got []string
	e.SetCallbacks(func(p []byte) { got = append(got, string(p)) }, nil)
	ask := func(q string, want ...string) {
		t.Helper()
		got = nil
		feed(t, e, q)
		if !slices.Equal(got, want) {
			t.Fatalf("%q answered\n%q\nwant\n%q", q, got, want)
		}
	}
	// The defaults, each ended as asked (BEL or ST).
	ask("\x1b]10;?\x1b\\", "\x1b]10;rgb:ffff/ffff/ffff\x1b\\")
	ask("\x1b]11;?\a", "\x1b]11;rgb:0000/0000/0000\a")
	ask("\x1b]4;1;?;255;?;16;?;231;?\a", "\x1b]4;1;rgb:cdcd/0000/0000\a", "\x1b]4;255;rgb:eeee/eeee/eeee\a",
		"\x1b]4;16;rgb:0000/0000/0000\a", "\x1b]4;231;rgb:ffff/ffff/ffff\a")
	// The outer terminal's, once set; RIS keeps them.
	c := term.DefaultColors()
	c.Fg, c.Bg, c.Cursor = term.RGB{R: 0x1111, G: 0x2222, B: 0x3333}, term.RGB8(0xfd, 0xf6, 0xe3), term.RGB8(1, 2, 3)
	c.Palette[1] = term.RGB8(0xdc, 0x32, 0x2f)
	e.SetColors(c)
	feed(t, e, "\x1bc")
	ask("\x1b]10;?;?;?\x1b\\", "\x1b]10;rgb:1111/2222/3333\x1b\\", "\x1b]11;rgb:fdfd/f6f6/e3e3\x1b\\", "\x1b]12;rgb:0101/0202/0303\x1b\\")
	ask("\x1b]11;?\a\x1b]4;1;?\a", "\x1b]11;rgb:fdfd/f6f6/e3e3\a", "\x1b]4;1;rgb:dcdc/3232/2f2f\a")
	// Set requests and malformed queries answer nothing.
	ask("\x1b]11;#ffffff\a\x1b]4;1;#ff0000\a\x1b]4;300;?\a\x1b]4;x;?\a\x1b]10;\a")
}
