package attach

import (
	"context"
	"fmt"
	"image/color"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/okstra/cockpit/panes/term"
)

// answerColors makes the terminal answer colour queries with c, as a real
// terminal would: its emulator's replies go back in as the terminal's
// input.
func (tt *terminal) answerColors(c term.Colors) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.emu.SetColors(c)
	tt.emu.SetCallbacks(func(p []byte) { _, _ = tt.ptm.Write(p) }, nil)
}

// serveColors runs a session with OnColors for a client on tt; the colours
// reported go to got.
func serveColors(t *testing.T, tt *terminal, cols, rows int) (s *Session, got chan term.Colors, hostDone, clientDone chan hostResult) {
	t.Helper()
	hc, cc := socketPair(t)
	s = NewSession(hc, Params{Cols: cols, Rows: rows, Env: testEnv}, testModel{}, tea.WithFPS(30))
	got = make(chan term.Colors, 4)
	s.OnColors(func(c term.Colors) { got <- c })
	hostDone, clientDone = make(chan hostResult, 1), make(chan hostResult, 1)
	go func() { o, err := s.Run(context.Background()); hostDone <- hostResult{o, err} }()
	go func() {
		o, err := Run(cc, tt.pts, tt.pts, ClientOptions{Cols: cols, Rows: rows})
		clientDone <- hostResult{o, err}
	}()
	return s, got, hostDone, clientDone
}

// TestColorsFromTheTerminal: a session asks its client's terminal (a real
// PTY whose other side is an emulator that answers) for its colours and
// reports them once; keys typed meanwhile still reach the model.
func TestColorsFromTheTerminal(t *testing.T) {
	noLeaks(t)
	tt := newTerminal(t, 50, 12)
	light := term.DefaultColors()
	light.Fg, light.Bg, light.Cursor = term.RGB8(0x65, 0x7b, 0x83), term.RGB8(0xfd, 0xf6, 0xe3), term.RGB8(0x58, 0x6e, 0x75)
	light.Palette[1], light.Palette[15] = term.RGB8(0xdc, 0x32, 0x2f), term.RGB8(0xee, 0xe8, 0xd5)
	tt.answerColors(light)
	s, got, hostDone, clientDone := serveColors(t, tt, 50, 12)
	tt.typeText(t, "hi")
	select {
	case c := <-got:
		if c != light {
			t.Errorf("reported %+v\nwant %+v", c, light)
		}
	case <-time.After(waitLimit):
		t.Fatalf("no colours reported within %s", waitLimit)
	}
	tt.waitScreen(t, "typed:[hi]")
	s.End(Outcome{Reason: ReasonDetached, Message: "detached"})
	waitResult(t, "client", clientDone)
	waitResult(t, "host", hostDone)
	if len(got) != 0 {
		t.Errorf("colours reported %d more times", len(got))
	}
}

// TestColorsTerminalSilent: a terminal that does not answer costs nothing:
// the screen draws and takes keys, and no colours are reported.
func TestColorsTerminalSilent(t *testing.T) {
	noLeaks(t)
	tt := newTerminal(t, 50, 12)
	s, got, hostDone, clientDone := serveColors(t, tt, 50, 12)
	tt.typeText(t, "hi")
	tt.waitScreen(t, "typed:[hi]")
	s.End(Outcome{Reason: ReasonDetached, Message: "detached"})
	waitResult(t, "client", clientDone)
	waitResult(t, "host", hostDone)
	if len(got) != 0 {
		t.Errorf("a silent terminal reported colours %+v", <-got)
	}
}

func TestParsePaletteAnswer(t *testing.T) {
	for in, want := range map[string]int{"\x1b]4;1;rgb:dcdc/3232/2f2f\x1b\\": 1, "\x1b]4;15;#eee8d5\x07": 15} {
		if i, _, ok := parsePaletteAnswer(in); !ok || i != want {
			t.Errorf("%q: %d %v, want %d", in, i, ok, want)
		}
	}
	for _, bad := range []string{"\x1b]4;16;rgb:0/0/0\x07", "\x1b]4;1\x07", "\x1b]11;rgb:0/0/0\x07", "\x1b]4;x;rgb:0/0/0\x07", "\x1b]4;1;red\x07"} {
		if _, _, ok := parsePaletteAnswer(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestColorAnswersSlowerThanTheSettle: a terminal whose answers come
// further apart than a burst (a loaded machine, a slow link) still has its
// colours reported once, all of them, at its last answer — not the first
// few as the colours (under -race beside a CPU hog, the 20 ms settle this
// replaced reported the foreground with the default background).
func TestColorAnswersSlowerThanTheSettle(t *testing.T) {
	waiting(t)
	got := make(chan term.Colors, 4)
	w := newColorWatch(func(c term.Colors) { got <- c })
	defer w.stop()
	want := term.DefaultColors()
	want.Fg, want.Bg, want.Cursor = term.RGB8(1, 2, 3), term.RGB8(4, 5, 6), term.RGB8(7, 8, 9)
	events := []uv.Event{uv.ForegroundColorEvent{Color: color.RGBA{1, 2, 3, 255}}, uv.BackgroundColorEvent{Color: color.RGBA{4, 5, 6, 255}}, uv.CursorColorEvent{Color: color.RGBA{7, 8, 9, 255}}}
	for i := range 16 {
		want.Palette[i] = term.RGB8(uint8(i), 0, 0)
		events = append(events, uv.UnknownOscEvent(fmt.Sprintf("\x1b]4;%d;rgb:%02x%02x/0000/0000\x1b\\", i, i, i)))
	}
	for i, ev := range events {
		if !w.see(ev) {
			t.Fatalf("answer %d not taken: %#v", i, ev)
		}
		if i < 2 {
			time.Sleep(60 * time.Millisecond) // the gap under test: longer than a burst's
		}
	}
	select {
	case c := <-got:
		if c != want {
			t.Fatalf("reported %+v\nwant %+v", c, want)
		}
	case <-time.After(waitLimit):
		t.Fatal("no colours reported after the last answer")
	}
	select {
	case c := <-got:
		t.Fatalf("colours reported again: %+v", c)
	case <-time.After(colorSettle + 50*time.Millisecond): // nothing more comes: the behaviour, not a wait
	}
}
