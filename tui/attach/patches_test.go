package attach

// The behaviour the cockpit's patches to bubbletea (third_party/bubbletea,
// README.md) give an attached screen, through a real PTY: these fail if the
// vendored copy loses them (issue 20).

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/panes/vt"
)

// startSession serves model at fps to a client on a new cols×rows terminal;
// the session is ended and waited for when the test ends.
func startSession(t *testing.T, cols, rows, fps int, model tea.Model) (*terminal, *Session) {
	t.Helper()
	tt := newTerminal(t, cols, rows)
	hc, cc := socketPair(t)
	s := NewSession(hc, Params{Cols: cols, Rows: rows, Env: testEnv}, model, tea.WithFPS(fps))
	hostDone := make(chan struct{})
	clientDone := make(chan struct{})
	go func() { defer close(hostDone); _, _ = s.Run(context.Background()) }()
	go func() {
		defer close(clientDone)
		_, _ = Run(cc, tt.pts, tt.pts, ClientOptions{Cols: cols, Rows: rows})
	}()
	t.Cleanup(func() {
		s.End(Outcome{Reason: ReasonDetached, Message: "test done"})
		<-hostDone
		<-clientDone
	})
	return tt, s
}

// rowsModel shows its rows, one per screen row, as given. If keys is set,
// every key that reaches Update is sent on it (when there is room).
type rowsModel struct {
	rows []string
	keys chan string
}

type setRows []string

func (m rowsModel) Init() tea.Cmd { return nil }

func (m rowsModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case setRows:
		m.rows = msg
	case tea.KeyPressMsg:
		if m.keys != nil {
			select {
			case m.keys <- msg.String():
			default:
			}
		}
	}
	return m, nil
}

func (m rowsModel) View() tea.View {
	v := tea.NewView(strings.Join(m.rows, "\n"))
	v.AltScreen = true
	return v
}

// randomRow is a row of at most cols columns: words, wide and combining
// characters, SGR styles and hyperlinks; when open, its style or link is
// left running into the next row.
func randomRow(rng *rand.Rand, cols int, open bool) string {
	var b strings.Builder
	w := 0
	styles := []string{"\x1b[31m", "\x1b[1;32m", "\x1b[38;5;200m", "\x1b[48;2;10;20;30m", "\x1b[4m", "\x1b[7m", "\x1b[m", "\x1b[2;3m"}
	for w < cols-2 {
		switch rng.IntN(6) {
		case 0:
			b.WriteString(styles[rng.IntN(len(styles))])
		case 1:
			b.WriteString("語") // two columns
			w += 2
		case 2:
			b.WriteString("e\u0301") // one column, two code points
			w++
		case 3:
			if rng.IntN(4) == 0 && w+4 <= cols-2 {
				b.WriteString("\x1b]8;;https://example.com/x\x1b\\link\x1b]8;;\x1b\\")
				w += 4
				continue
			}
			fallthrough
		default:
			n := min(1+rng.IntN(6), cols-2-w)
			for range n {
				b.WriteByte(byte('a' + rng.IntN(26)))
			}
			w += n
		}
	}
	if open {
		if rng.IntN(2) == 0 {
			b.WriteString("\x1b[35m")
		} else {
			b.WriteString("\x1b]8;;https://example.com/open\x1b\\")
		}
		return b.String()
	}
	b.WriteString("\x1b[m")
	return b.String()
}

// editRow replaces one ASCII letter of row r (outside its escape
// sequences) with another letter, a letter with a combining mark or, when
// wider is true, a two-column character; a row with no letter comes back
// as it was.
func editRow(rng *rand.Rand, r string, wider bool) string {
	var at []int
	for i := 0; i < len(r); i++ {
		switch c := r[i]; {
		case c == 0x1b && i+1 < len(r) && r[i+1] == '[': // CSI: to its final byte
			for i += 2; i < len(r) && (r[i] < 0x40 || r[i] > 0x7e); i++ {
			}
		case c == 0x1b && i+1 < len(r) && r[i+1] == ']': // OSC: to its ST
			if j := strings.Index(r[i:], "\x1b\\"); j >= 0 {
				i += j + 1
			} else {
				i = len(r)
			}
		case c >= 'a' && c <= 'z':
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return r
	}
	i := at[rng.IntN(len(at))]
	with := []string{string(rune('a' + rng.IntN(26))), "o\u0308"}
	if wider {
		with = append(with, "語")
	}
	return r[:i] + with[rng.IntN(len(with))] + r[i+1:]
}

// wantScreen is what rows look like on a terminal that is given them whole:
// each row of a fresh emulator, styled.
func wantScreen(cols int, rows []string) []string {
	e := vt.New(cols, len(rows))
	_, _ = e.Write([]byte(strings.Join(rows, "\r\n")))
	out := make([]string, len(rows))
	for y := range rows {
		out[y] = string(e.AppendLine(nil, y, true))
	}
	return out
}

// TestChangedRowsDrawLikeWholeFrames: the renderer redraws only the rows
// that changed (fourth patch, lines.go) when the rows cannot affect each
// other, and whole frames otherwise; either way the terminal shows every
// frame as if it had been drawn whole. Random frames of a 60×16 screen
// change one to three rows, now and then all of them, with styles and
// links that sometimes run on into the next row, or a character or two of
// a row as a key's echo does (maybe to a wide one that moves the rest).
func TestChangedRowsDrawLikeWholeFrames(t *testing.T) {
	waiting(t)
	const cols, rows = 60, 16
	rng := rand.New(rand.NewPCG(20, 4))
	cur := make([]string, rows)
	for y := range cur {
		cur[y] = randomRow(rng, cols, false)
	}
	tt, s := startSession(t, cols, rows, 120, rowsModel{rows: cur})
	for step := range 120 {
		next := append([]string(nil), cur...)
		switch {
		case step%17 == 16:
			for y := range next {
				next[y] = randomRow(rng, cols, false)
			}
		case step%3 == 1:
			// A key's echo: one character of a row or two changed, maybe
			// to a wide one that moves the rest of the row right.
			for range 1 + rng.IntN(2) {
				y := 1 + rng.IntN(rows-1)
				next[y] = editRow(rng, next[y], ansi.StringWidth(next[y]) < cols)
			}
		default:
			for range 1 + rng.IntN(3) {
				next[rng.IntN(rows)] = randomRow(rng, cols, rng.IntN(8) == 0)
			}
		}
		// Row 0 says the step, so every frame differs from the last.
		next[0] = fmt.Sprintf("step %03d", step)
		cur = next
		want := wantScreen(cols, cur)
		s.Send(setRows(cur))
		tt.wait(t, fmt.Sprintf("step %d's frame", step), func() bool {
			for y := range rows {
				if string(tt.emu.AppendLine(nil, y, true)) != want[y] {
					return false
				}
			}
			return true
		})
	}
}

// TestIdleScreenWritesNothing: a screen with nothing changing gets no
// bytes at all (the renderer sleeps until a change: first patch, wake.go).
func TestIdleScreenWritesNothing(t *testing.T) {
	waiting(t)
	tt, _ := startSession(t, 80, 24, 60, testModel{})
	// The start-up is over once the model has its size and environment
	// (the last messages a program gets unasked), and its frames are out:
	// no byte for 200 ms.
	tt.waitScreen(t, "size:80x24")
	tt.waitScreen(t, "env:attach-test")
	n := settled(t, tt, 200*time.Millisecond)
	time.Sleep(500 * time.Millisecond) // the window measured, not a wait for an effect
	tt.mu.Lock()
	got := len(tt.raw) - n
	tt.mu.Unlock()
	if got != 0 {
		t.Fatalf("an idle screen was sent %d bytes in 500 ms: %q", got, tt.raw[n:])
	}
}

// settled waits until the terminal got nothing for quiet, and returns how
// many bytes it got.
func settled(t *testing.T, tt *terminal, quiet time.Duration) int {
	t.Helper()
	last, since := -1, time.Now()
	testenv.Wait(t, "the screen to settle", 10*time.Second, func() bool {
		tt.mu.Lock()
		n := len(tt.raw)
		tt.mu.Unlock()
		if n != last {
			last, since = n, time.Now()
		}
		return time.Since(since) >= quiet
	})
	return last
}

// TestKeyAfterQuietSpellDrawsAtOnce: after a quiet spell, a change is drawn
// at once, not at the renderer's next tick (first patch, wake.go). At 1
// frame a second, a key typed 1.1 frame intervals after the last frame
// reached the terminal must be on the screen within 0.8 of an interval: a
// renderer ticking at a fixed rate would draw it at its next tick, 0.9 of
// an interval later (less the few milliseconds the last frame took to
// arrive), while the patched one draws it at once — 800 ms of room for an
// echo that takes a few milliseconds, even under -race on a loaded machine.
func TestKeyAfterQuietSpellDrawsAtOnce(t *testing.T) {
	waiting(t)
	const interval = time.Second // WithFPS(1)
	tt, _ := startSession(t, 80, 24, 1, testModel{})
	tt.waitScreen(t, "size:80x24")
	tt.waitScreen(t, "env:attach-test") // no start-up frame comes after this
	bound := 8 * interval / 10
	typed := ""
	keys := []string{"q", "w"} // the second quiet spell follows a key's frame
	if testing.Short() {
		keys = keys[:1] // each spell is a second of waiting
	}
	for _, k := range keys {
		settled(t, tt, 50*time.Millisecond)
		tt.mu.Lock()
		drawn := time.Now() // the last frame's bytes came in by now
		tt.mu.Unlock()
		time.Sleep(time.Until(drawn.Add(11 * interval / 10))) // the quiet spell
		typed += k
		start := time.Now()
		tt.typeText(t, k)
		tt.waitScreen(t, "typed:["+typed+"]")
		if d := time.Since(start); d > bound {
			t.Fatalf("key %q after a quiet spell took %s to show (bound %s of a %s frame interval): drawn on a tick, not at once", k, d.Round(time.Millisecond), bound, interval)
		}
	}
}

// TestResizesWhileDrawing: the terminal resized over and over while keys
// arrive and the model redraws; the last size and every key win, and under
// -race nothing races (second and third patches: the program's size and
// the renderer's view are each under their own lock).
// A key typed right after a frame is drawn at once too, not at the frame
// clock: the first drawing after a key is its echo (wake.go's keyed).
func TestKeyRightAfterFrameDrawsAtOnce(t *testing.T) {
	waiting(t)
	const interval = time.Second // WithFPS(1)
	tt, _ := startSession(t, 80, 24, 1, testModel{})
	tt.waitScreen(t, "size:80x24")
	tt.waitScreen(t, "env:attach-test")
	settled(t, tt, 50*time.Millisecond)
	tt.typeText(t, "q")
	tt.waitScreen(t, "typed:[q]") // a frame just went out
	start := time.Now()
	tt.typeText(t, "w")
	tt.waitScreen(t, "typed:[qw]")
	if d, bound := time.Since(start), 8*interval/10; d > bound {
		t.Fatalf("a key typed right after a frame took %s to show (bound %s of a %s frame interval): it waited for the frame clock", d.Round(time.Millisecond), bound, interval)
	}
}

// A key uncaps one frame, not the frames after it: a flood of changes
// after a key is drawn once at once and then at the frame clock.
func TestKeyDoesNotUncapAFlood(t *testing.T) {
	waiting(t)
	const interval = time.Second // WithFPS(1)
	keys := make(chan string, 1)
	tt, s := startSession(t, 80, 24, 1, rowsModel{keys: keys})
	s.Send(setRows{"start"})
	tt.waitScreen(t, "start")
	settled(t, tt, 50*time.Millisecond)
	tt.typeText(t, "k") // changes nothing on the screen
	// The key must reach the model before the flood: one that came in
	// late (tty → client → socket → decoder, while Send is direct) would
	// uncap a change in the middle of the flood as well as the first.
	select {
	case <-keys:
	case <-time.After(testenv.Scale(10 * time.Second)):
		t.Fatal("the key typed never reached the model")
	}
	before := s.Stats().OutputFrames
	start := time.Now()
	for i := range 20 {
		s.Send(setRows{fmt.Sprintf("change %d", i)})
		time.Sleep(10 * time.Millisecond) // a paced flood: 20 changes in 200 ms
	}
	flood := time.Since(start)
	tt.waitScreen(t, "change 19")
	// At most: the first change at once, the last at the next tick (and
	// one drawing the key's own unchanged view may count, as a write of
	// nothing is not sent) — and one more for each whole frame interval the
	// flood lasted, when a loaded machine stretches its 200 ms.
	got := s.Stats().OutputFrames - before
	if bound := 3 + int64(flood/interval); got > bound {
		t.Fatalf("20 changes in %s after a key went out as %d frames at 1 FPS (at most %d): the key uncapped them all", flood.Round(time.Millisecond), got, bound)
	}
}

func TestResizesWhileDrawing(t *testing.T) {
	noLeaks(t)
	tt, s := startSession(t, 80, 24, 120, testModel{})
	tt.waitScreen(t, "size:80x24")
	rng := rand.New(rand.NewPCG(20, 5))
	typed := ""
	for i := range 40 {
		tt.resize(t, 40+rng.IntN(100), 10+rng.IntN(20)) // never the last size
		if err := syscall.Kill(syscall.Getpid(), syscall.SIGWINCH); err != nil {
			t.Fatal(err)
		}
		k := string(rune('a' + i%26))
		typed += k
		tt.typeText(t, k)
		if i%5 == 0 {
			s.Send(tea.WindowSizeMsg{Width: 40 + rng.IntN(100), Height: 10 + rng.IntN(20)})
		}
	}
	tt.resize(t, 100, 30)
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	tt.waitScreen(t, "typed:["+typed+"]")
	tt.waitScreen(t, "size:100x30")
}
