package host

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/panes/term"
	"github.com/okstra/cockpit/panes/vt"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/engine"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/tui/attach"
)

// askBackground is a lead that, for every key, asks its terminal for the
// background colour and prints the answer (ESC and BEL as E and B).
const askBackground = `stty raw -echo; while :; do head -c 1 >/dev/null; printf '\033]11;?\007'; head -c 24 | tr '\033\007' EB; printf '\r\n'; done`

// realTerminal is a user's terminal: a real PTY, the client on its slave
// side, an emulator on its master side that answers colour queries with
// its colours (or not at all when answer is nil).
type realTerminal struct {
	ptm, pts *os.File
	mu       sync.Mutex
	emu      *vt.Emulator
	done     chan struct{}
}

func newRealTerminal(t *testing.T, cols, rows int, answer *term.Colors) *realTerminal {
	t.Helper()
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := pty.Setsize(pts, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		t.Fatal(err)
	}
	rt := &realTerminal{ptm: ptm, pts: pts, emu: vt.New(cols, rows), done: make(chan struct{})}
	if answer != nil {
		rt.emu.SetColors(*answer)
		rt.emu.SetCallbacks(func(p []byte) { _, _ = ptm.Write(p) }, nil)
	}
	go func() {
		defer close(rt.done)
		buf := make([]byte, 32<<10)
		for {
			n, err := ptm.Read(buf)
			rt.mu.Lock()
			_, _ = rt.emu.Write(buf[:max(n, 0)])
			rt.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return rt
}

// attachReal runs a real client (attach.Run) on rt against the engine at
// sock, handing the terminal over when tty (as `cockpit attach` does) or
// relaying its bytes; the returned channel has its outcome.
func attachReal(t *testing.T, sock string, rt *realTerminal, cols, rows int, tty bool) chan attach.Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	nc, r, _, res, err := control.DialAttach(ctx, sock, "test", control.AttachParams{Cols: cols, Rows: rows, Env: []string{"TERM=xterm-256color"}, TTY: tty})
	if err != nil {
		t.Fatal(err)
	}
	if res.TTY != tty {
		t.Fatalf("the engine answered tty %v to an offer of %v", res.TTY, tty)
	}
	conn := attach.Buffered(nc, r)
	if tty {
		conn = attach.BufferedTTY(nc, r)
	}
	out := make(chan attach.Outcome, 1)
	go func() {
		o, _ := attach.Run(conn, rt.pts, rt.pts, attach.ClientOptions{Cols: cols, Rows: rows})
		out <- o
	}()
	return out
}

// fdsOn counts this process's descriptors open on f's file: with a screen
// handed its terminal (the engine runs in the test's process), the
// engine's own is one of them.
func fdsOn(t *testing.T, f *os.File) int {
	t.Helper()
	name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && l == name {
			n++
		}
	}
	return n
}

func waitCond(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testenv.Scale(15 * time.Second))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 15s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPanesAnswerWithTheScreensColors: a program in the lead pane asks for
// the background colour before any screen is attached (the default), after
// a screen whose terminal answers colour queries attached (that
// terminal's), after it detached (still that), and with a second screen
// whose terminal does not answer (still that). The screens hand their
// terminals to the engine (the colour answers are then read from the
// terminal by the engine), or relay their bytes.
func TestPanesAnswerWithTheScreensColors(t *testing.T) {
	t.Run("tty", func(t *testing.T) { testScreensColors(t, true) })
	t.Run("relay", func(t *testing.T) { testScreensColors(t, false) })
}

func testScreensColors(t *testing.T, tty bool) {
	h, eng, sock := startHostLead(t, []string{"/bin/sh", "-c", askBackground})
	lead, ok := eng.Manager().Get(eng.LeadPane())
	if !ok {
		t.Fatal("no lead pane")
	}
	asked := 0
	ask := func(want string) {
		t.Helper()
		asked++
		if _, err := lead.Write([]byte("k")); err != nil {
			t.Fatal(err)
		}
		waitCond(t, "the lead to print "+want, func() bool {
			return strings.Count(strings.Join(lead.Capture(false), "\n"), "E]11;") == asked
		})
		lines := lead.Capture(false)
		var got []string
		for _, l := range lines {
			if i := strings.Index(l, "E]11;"); i >= 0 { // after a "k" echoed before stty ran
				got = append(got, strings.TrimSpace(l[i:]))
			}
		}
		if last := got[len(got)-1]; last != "E]11;"+want+"B" {
			t.Fatalf("answer %d = %q, want %q", asked, last, "E]11;"+want+"B")
		}
	}
	ask("rgb:0000/0000/0000")

	light := term.DefaultColors()
	light.Fg, light.Bg = term.RGB8(0x65, 0x7b, 0x83), term.RGB8(0xfd, 0xf6, 0xe3)
	rt := newRealTerminal(t, 100, 30, &light)
	ended := attachReal(t, sock, rt, 100, 30, tty)
	waitCond(t, "the screen's colours to reach the panes", func() bool { return eng.Manager().Colors() == light })
	ask("rgb:fdfd/f6f6/e3e3")

	silent := newRealTerminal(t, 80, 24, nil)
	ended2 := attachReal(t, sock, silent, 80, 24, tty)
	waitCond(t, "two screens", func() bool { return h.Screens() == 2 })
	ask("rgb:fdfd/f6f6/e3e3")
	held := 1
	if tty {
		held = 2 // the client's and the engine's
	}
	for _, tt := range []*realTerminal{rt, silent} {
		if n := fdsOn(t, tt.pts); n != held {
			t.Errorf("%d descriptors on a screen's terminal during the session, want %d", n, held)
		}
	}

	for _, tt := range []*realTerminal{rt, silent} {
		_, _ = tt.ptm.Write([]byte("\x02d"))
	}
	for _, ch := range []chan attach.Outcome{ended, ended2} {
		select {
		case o := <-ch:
			if o.Reason != attach.ReasonDetached {
				t.Fatalf("detach ended the screen with %+v", o)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("a screen did not detach")
		}
	}
	waitNoScreens(t, h)
	ask("rgb:fdfd/f6f6/e3e3")
	for _, tt := range []*realTerminal{rt, silent} {
		if n := fdsOn(t, tt.pts); n != 1 {
			t.Errorf("%d descriptors on a screen's terminal after it detached, want 1 (the engine closes its own)", n)
		}
		_ = tt.ptm.Close()
		_ = tt.pts.Close()
		<-tt.done
	}
}

// TestScreenConnectionCutsWritesShort: the engine hands a screen a
// connection whose writes can be cut short, which the session needs to
// tell a screen that fell behind why it was disconnected (tui/attach
// TestStalledClientHearsWhy).
func TestScreenConnectionCutsWritesShort(t *testing.T) {
	root := fixture.Copy(t)
	fixture.SetTerminalBackend(t, root, state.BackendCockpitPane)
	run, err := state.LoadRun(root, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	dir := testenv.ShortDir(t)
	sock := filepath.Join(dir, "s", "cockpit.sock")
	got := make(chan bool, 1)
	eng, err := engine.Start(engine.Config{Run: run, Socket: sock, CloseGrace: 200 * time.Millisecond,
		Lead: []string{"/bin/sh", "-c", "exec cat"},
		Attach: func(ctx context.Context, conn io.ReadWriteCloser, _ json.RawMessage) error {
			defer conn.Close()
			d, ok := conn.(interface{ SetWriteDeadline(time.Time) error })
			got <- ok && d.SetWriteDeadline(time.Now().Add(time.Second)) == nil
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	nc, _, _, _, err := control.DialAttach(ctx, sock, "test", control.AttachParams{Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	select {
	case ok := <-got:
		if !ok {
			t.Fatal("the screen's connection has no write deadline")
		}
	case <-ctx.Done():
		t.Fatal("the attach hook was not called")
	}
}
