package attach

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/creack/pty"
	"go.uber.org/goleak"
	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/panes/vt"
)

// waitLimit bounds every wait in these tests; a wait that reaches it fails.
const waitLimit = 15 * time.Second

func noLeaks(t *testing.T) {
	t.Helper()
	t.Cleanup(func() { goleak.VerifyNone(t, leakOptions(goleak.IgnoreCurrent())...) })
}

// leakOptions are the goroutines a leak check ignores, and extra.
func leakOptions(extra ...goleak.Option) []goleak.Option {
	return append(extra,
		// os/signal's receiver lives for the process once Notify was called.
		goleak.IgnoreTopFunction("os/signal.signal_recv"),
		goleak.IgnoreAnyFunction("os/signal.loop"),
	)
}

// waiting marks a test that mostly waits (on frame clocks, stall timers, a
// silent terminal). Under -short it runs beside the package's other waiting
// tests, and its goroutines are checked for leaks once, after all tests
// (TestMain): a per-test check would see its neighbours'. In the full tier
// it runs alone with its own leak check, as before.
func waiting(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Parallel()
		return
	}
	noLeaks(t)
}

// socketPair is a connected pair of real unix stream sockets.
func socketPair(t testing.TB) (host, client *net.UnixConn) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int, name string) *net.UnixConn {
		f := os.NewFile(uintptr(fd), name)
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		return c.(*net.UnixConn)
	}
	return conn(fds[0], "host"), conn(fds[1], "client")
}

// terminal is a real PTY whose master side is read into the project's
// emulator: what a user's terminal would show.
type terminal struct {
	ptm, pts *os.File
	before   unix.Termios // the termios pairUp found

	mu   sync.Mutex
	cond *sync.Cond
	emu  *vt.Emulator
	raw  []byte
	done chan struct{}
}

func newTerminal(t testing.TB, cols, rows int) *terminal {
	t.Helper()
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	// pty.Open leaves the master in blocking mode (it calls Fd), where a
	// Close would not end a Read: give the reader a non-blocking copy, which
	// the runtime poller serves. Sizes are set through the slave.
	nfd, err := unix.Dup(int(ptm.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	_ = ptm.Close()
	if err := unix.SetNonblock(nfd, true); err != nil {
		t.Fatal(err)
	}
	ptm = os.NewFile(uintptr(nfd), "/dev/ptmx")
	if err := pty.Setsize(pts, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		t.Fatal(err)
	}
	tt := &terminal{ptm: ptm, pts: pts, emu: vt.New(cols, rows), done: make(chan struct{})}
	tt.cond = sync.NewCond(&tt.mu)
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := ptm.Read(buf)
			tt.mu.Lock()
			if n > 0 {
				_, _ = tt.emu.Write(buf[:n])
				tt.raw = append(tt.raw, buf[:n]...)
			}
			if err != nil {
				close(tt.done) // under the lock: waiters see it when woken
			}
			tt.cond.Broadcast()
			tt.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { tt.close() })
	return tt
}

// close hangs the terminal up (as closing a terminal window does) and waits
// for the reader.
func (tt *terminal) close() {
	_ = tt.ptm.Close()
	_ = tt.pts.Close()
	<-tt.done
}

// hangup closes the master side only: the client's reads fail as when the
// terminal window is closed.
func (tt *terminal) hangup() {
	_ = tt.ptm.Close()
	<-tt.done
}

func (tt *terminal) resize(t testing.TB, cols, rows int) {
	t.Helper()
	tt.mu.Lock()
	tt.emu.Resize(cols, rows)
	tt.mu.Unlock()
	if err := pty.Setsize(tt.pts, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		t.Fatal(err)
	}
}

func (tt *terminal) typeText(t testing.TB, s string) {
	t.Helper()
	if _, err := tt.ptm.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

// screenLocked is the emulator's screen as text, one line per row.
func (tt *terminal) screenLocked() string {
	_, rows := tt.emu.Size()
	var b []byte
	for y := 0; y < rows; y++ {
		b = tt.emu.AppendLine(b, y, false)
		b = append(b, '\n')
	}
	return string(b)
}

func (tt *terminal) screen() string {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.screenLocked()
}

// waitScreen waits until the screen contains want.
func (tt *terminal) waitScreen(t testing.TB, want string) {
	t.Helper()
	tt.wait(t, "the screen to show "+want, func() bool { return strings.Contains(tt.screenLocked(), want) })
}

// wait waits, woken by every read of the terminal, until cond holds.
func (tt *terminal) wait(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	timer := time.AfterFunc(waitLimit, func() {
		tt.mu.Lock()
		tt.cond.Broadcast()
		tt.mu.Unlock()
	})
	defer timer.Stop()
	tt.mu.Lock()
	defer tt.mu.Unlock()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s; screen:\n%s", waitLimit, what, tt.screenLocked())
		}
		select {
		case <-tt.done:
			if !cond() {
				t.Fatalf("terminal closed while waiting for %s; screen:\n%s", what, tt.screenLocked())
			}
			return
		default:
		}
		tt.cond.Wait()
	}
}

func (tt *terminal) termios(t testing.TB) unix.Termios {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(tt.pts.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return *tio
}

// testModel echoes what is typed and shows what it was told, and ends,
// panics or quits on capital letters.
type testModel struct {
	panicInit, panicView bool
	typed                string
	w, h                 int
	termVar              string
	resizes              int
}

func (m testModel) Init() tea.Cmd {
	if m.panicInit {
		panic("the model panicked in Init")
	}
	return nil
}

func (m testModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.resizes++
	case tea.EnvMsg:
		m.termVar = msg.Getenv("TERM_PROGRAM")
	case tea.KeyPressMsg:
		switch msg.String() {
		case "D":
			return m, Detach
		case "E":
			return m, End(ReasonRunEnded, "the run ended")
		case "Q":
			return m, tea.Quit
		case "P":
			panic("the model panicked in Update")
		case "C":
			return m, func() tea.Msg { panic("the model panicked in a command") }
		case "B":
			return m, tea.Batch(func() tea.Msg { return nil }, func() tea.Msg { panic("the model panicked in a batch") })
		case "Z":
			return m, tea.Suspend
		case "V":
			m.panicView = true
		case "enter":
			m.typed += "⏎"
		default:
			m.typed += msg.Text
		}
	}
	return m, nil
}

func (m testModel) View() tea.View {
	if m.panicView {
		panic("the model panicked in View")
	}
	v := tea.NewView(fmt.Sprintf("typed:[%s]\nsize:%dx%d\nenv:%s", m.typed, m.w, m.h, m.termVar))
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.ReportFocus = true
	return v
}

// hostResult is what Serve returned.
type hostResult struct {
	o   Outcome
	err error
}

// testEnv is the client environment the tests send.
var testEnv = []string{"TERM=xterm-256color", "COLORTERM=truecolor", "LANG=C.UTF-8", "TERM_PROGRAM=attach-test"}

// pairUp starts a host serving a testModel and a client on a new terminal.
func pairUp(t *testing.T, ctx context.Context, cols, rows int) (tt *terminal, hostDone, clientDone chan hostResult, hostConn *net.UnixConn) {
	t.Helper()
	return pairUpModel(t, ctx, cols, rows, testModel{})
}

// pairUpModel is pairUp with a given model.
func pairUpModel(t *testing.T, ctx context.Context, cols, rows int, model tea.Model) (tt *terminal, hostDone, clientDone chan hostResult, hostConn *net.UnixConn) {
	t.Helper()
	tt = newTerminal(t, cols, rows)
	tt.before = tt.termios(t) // before the client makes it raw
	hc, cc := socketPair(t)
	hostDone = make(chan hostResult, 1)
	clientDone = make(chan hostResult, 1)
	go func() {
		o, err := Serve(ctx, hc, Params{Cols: cols, Rows: rows, Env: testEnv}, model, tea.WithFPS(30))
		hostDone <- hostResult{o, err}
	}()
	go func() {
		o, err := Run(cc, tt.pts, tt.pts, ClientOptions{Cols: cols, Rows: rows})
		clientDone <- hostResult{o, err}
	}()
	return tt, hostDone, clientDone, hc
}

func waitResult(t testing.TB, who string, ch chan hostResult) hostResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(waitLimit):
		t.Fatalf("%s did not return within %s", who, waitLimit)
	}
	return hostResult{}
}
