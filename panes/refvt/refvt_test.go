package refvt

import (
	"slices"
	"testing"

	"github.com/okstra/cockpit/panes/term"
)

func write(t *testing.T, e term.Emulator, s string) {
	t.Helper()
	if _, err := e.Write([]byte(s)); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func TestTextAndStyles(t *testing.T) {
	e := New(20, 3)
	write(t, e, "hi \x1b[1;31mred\x1b[0m x\r\n\x1b[38;2;1;2;3;48;5;200mtc\x1b[m")
	if got := string(e.AppendLine(nil, 0, false)); got != "hi red x" {
		t.Fatalf("plain row 0 = %q", got)
	}
	if got := string(e.AppendLine(nil, 0, true)); got != "hi \x1b[0;1;31mred\x1b[0m x" {
		t.Fatalf("styled row 0 = %q", got)
	}
	if got := string(e.AppendLine(nil, 1, true)); got != "\x1b[0;38;2;1;2;3;48;5;200mtc\x1b[0m" {
		t.Fatalf("styled row 1 = %q", got)
	}
	if c := e.Cursor(); c.X != 2 || c.Y != 1 || !c.Visible {
		t.Fatalf("cursor = %+v", c)
	}
}

func TestRepliesAreSynchronous(t *testing.T) {
	e := New(10, 5)
	var got []byte
	e.SetCallbacks(func(p []byte) { got = append(got, p...) }, nil)
	write(t, e, "ab\x1b[6n")
	if string(got) != "\x1b[1;3R" {
		t.Fatalf("CPR reply = %q", got)
	}
	got = nil
	write(t, e, "\x1b[?2026h\x1b[?2026$p")
	if string(got) != "\x1b[?2026;1$y" {
		t.Fatalf("DECRQM 2026 reply = %q", got)
	}
	if !e.Modes().SyncOutput {
		t.Fatal("2026 not reported in Modes")
	}
}

func TestEventsAndModes(t *testing.T) {
	e := New(10, 5)
	var evs []term.Event
	e.SetCallbacks(nil, func(ev term.Event) { evs = append(evs, ev) })
	write(t, e, "\a\x1b]2;build\a\x1b]9;done\a\x1b]777;notify;T;B\x1b\\\x1b[?1049h\x1b[?1002h\x1b[?1006h\x1b[?2004h")
	want := []term.Event{{Kind: term.EventBell}, {Kind: term.EventTitle, Title: "build"},
		{Kind: term.EventNotify, Body: "done"}, {Kind: term.EventNotify, Title: "T", Body: "B"}}
	if !slices.Equal(evs, want) {
		t.Fatalf("events = %+v", evs)
	}
	m := e.Modes()
	if !m.AltScreen || m.Mouse != term.MouseButton || !m.MouseSGR || !m.BracketedPaste {
		t.Fatalf("modes = %+v", m)
	}
	if e.Title() != "build" {
		t.Fatalf("title = %q", e.Title())
	}
}

func TestTakeDirty(t *testing.T) {
	e := New(10, 4)
	if d := e.TakeDirty(nil); !slices.Equal(d, []int{0, 1, 2, 3}) {
		t.Fatalf("first TakeDirty = %v", d)
	}
	if d := e.TakeDirty(nil); len(d) != 0 {
		t.Fatalf("idle TakeDirty = %v", d)
	}
	write(t, e, "\x1b[3;1Hx")
	if d := e.TakeDirty(nil); !slices.Equal(d, []int{2}) {
		t.Fatalf("TakeDirty after row 2 write = %v", d)
	}
}

func TestScrollback(t *testing.T) {
	e := New(10, 2)
	write(t, e, "one\r\ntwo\r\nthree")
	if e.ScrollbackLen() != 1 || string(e.AppendScrollback(nil, 0, false)) != "one" {
		t.Fatalf("scrollback len %d, line %q", e.ScrollbackLen(), e.AppendScrollback(nil, 0, false))
	}
}

func TestCloseStopsDrainer(t *testing.T) {
	e := NewEmulator(5, 2)
	if err := e.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if _, err := e.Write([]byte("x")); err == nil {
		t.Fatal("write after close succeeded")
	}
}
