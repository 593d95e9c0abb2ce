package attach

import (
	"bufio"
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/panes/term"
)

// openFDs counts the process's open descriptors.
func openFDs(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents) - 1 // ReadDir's own
}

// A client that hands its terminal over: the session draws on it and
// reads keys from it with no frame on the socket, resizes still come as
// frames, and at the detach the session closes the terminal before the
// exit frame — nothing of the engine's reaches the terminal after the
// client's Restore, and the engine reads nothing from it afterwards (the
// shell gets its keys). No descriptor is left open.
func TestTTYHandedOver(t *testing.T) {
	noLeaks(t)
	tt := newTerminal(t, 80, 24)
	before := tt.termios(t)
	fds := openFDs(t)
	hc, cc := socketPair(t)
	s := NewSession(hc, Params{Cols: 80, Rows: 24, Env: testEnv, TTY: true}, testModel{}, tea.WithFPS(30))
	hostDone, clientDone := make(chan hostResult, 1), make(chan hostResult, 1)
	go func() { o, err := s.Run(context.Background()); hostDone <- hostResult{o, err} }()
	go func() {
		o, err := Run(BufferedTTY(cc, cc), tt.pts, tt.pts, ClientOptions{Cols: 80, Rows: 24})
		clientDone <- hostResult{o, err}
	}()

	tt.waitScreen(t, "size:80x24")
	tt.waitScreen(t, "env:attach-test")
	tt.mu.Lock()
	m := tt.emu.Modes()
	tt.mu.Unlock()
	if !m.AltScreen || m.Mouse == term.MouseNone || !m.FocusEvents {
		t.Fatalf("the model's terminal modes did not reach the terminal: %+v", m)
	}
	if raw := tt.termios(t); raw.Lflag&syscall.ICANON != 0 || raw.Lflag&syscall.ECHO != 0 {
		t.Fatalf("terminal not in raw mode during the session: lflag %#x", raw.Lflag)
	}
	tt.typeText(t, "héllo\r")
	tt.waitScreen(t, "typed:[héllo⏎]")
	tt.resize(t, 100, 30)
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	tt.waitScreen(t, "size:100x30")
	// The engine's descriptor of the terminal (this test's process is the
	// engine too) is close-on-exec: no pane's program inherits it.
	name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(tt.pts.Fd())))
	if err != nil {
		t.Fatal(err)
	}
	engineFDs := 0
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		fd, _ := strconv.Atoi(e.Name())
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err != nil || l != name || fd == int(tt.pts.Fd()) {
			continue
		}
		engineFDs++
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
			t.Errorf("the engine's descriptor %d of the terminal is not close-on-exec (flags %#x, %v)", fd, flags, err)
		}
	}
	if engineFDs != 1 {
		t.Errorf("%d descriptors of the terminal besides the client's, want the engine's one", engineFDs)
	}
	st := s.Stats()
	if st.InputFrames != 0 || st.Resizes != 1 || st.OutputFrames == 0 {
		t.Errorf("stats %+v: want no input frame (the keys came from the terminal), one resize, output written", st)
	}

	tt.typeText(t, "D")
	c := waitResult(t, "client", clientDone)
	h := waitResult(t, "host", hostDone)
	if c.err != nil || c.o != (Outcome{Reason: ReasonDetached, Message: "detached"}) {
		t.Errorf("client: %+v %v", c.o, c.err)
	}
	if h.err != nil || h.o.Reason != ReasonDetached {
		t.Errorf("host: %+v %v", h.o, h.err)
	}
	if after := tt.termios(t); after != before {
		t.Errorf("termios changed:\nbefore %+v\nafter  %+v", before, after)
	}
	checkRestored(t, tt)
	if n := openFDs(t); n != fds {
		t.Errorf("%d descriptors open after the session, %d before", n, fds)
	}
	// The terminal is the shell's again: what is typed now is read from it,
	// not by a reader the session left behind (a line: it is cooked again).
	tt.typeText(t, "k\r")
	pfd := []unix.PollFd{{Fd: int32(tt.pts.Fd()), Events: unix.POLLIN}}
	if n, err := unix.Poll(pfd, int(waitLimit/time.Millisecond)); n != 1 || err != nil {
		t.Fatalf("a key typed after the session did not reach the terminal's reader: %d %v", n, err)
	}
	buf := make([]byte, 8)
	if n, err := unix.Read(int(tt.pts.Fd()), buf); err != nil || string(buf[:n]) != "k\n" {
		t.Errorf("read %q %v after the session, want the key typed", buf[:n], err)
	}
}

// The engine dies in the middle of a frame (a sequence half written to the
// terminal, the alternate screen on): the client restores the terminal
// all the same.
func TestTTYEngineDiesMidFrame(t *testing.T) {
	noLeaks(t)
	tt := newTerminal(t, 80, 24)
	before := tt.termios(t)
	hc, cc := socketPair(t)
	clientDone := make(chan hostResult, 1)
	go func() {
		o, err := Run(BufferedTTY(cc, cc), tt.pts, tt.pts, ClientOptions{Cols: 80, Rows: 24})
		clientDone <- hostResult{o, err}
	}()
	tty, err := takeTTY(hc, waitLimit)
	if err != nil || tty == nil {
		t.Fatalf("the tty frame: %v %v", tty, err)
	}
	if _, err := tty.WriteString("\x1b[?1049h\x1b[?25l\x1b[?1000h\x1b[?1006hscreen\x1b[38;2;10"); err != nil {
		t.Fatal(err)
	}
	tt.waitScreen(t, "screen")
	_ = tty.Close()
	_ = hc.Close()
	c := waitResult(t, "client", clientDone)
	if c.o.Reason != ReasonLost {
		t.Errorf("client: %+v %v", c.o, c.err)
	}
	if after := tt.termios(t); after != before {
		t.Error("termios changed")
	}
	checkRestored(t, tt)
}

// A tty frame without a descriptor (the client could not open its terminal
// again) leaves the session relaying as without one.
func TestTTYFrameWithoutTerminalRelays(t *testing.T) {
	noLeaks(t)
	tt := newTerminal(t, 60, 20)
	hc, cc := socketPair(t)
	s := NewSession(hc, Params{Cols: 60, Rows: 20, Env: testEnv, TTY: true}, testModel{}, tea.WithFPS(30))
	hostDone, clientDone := make(chan hostResult, 1), make(chan hostResult, 1)
	go func() { o, err := s.Run(context.Background()); hostDone <- hostResult{o, err} }()
	if _, err := cc.Write(AppendFrame(nil, FrameTTY, nil)); err != nil {
		t.Fatal(err)
	}
	go func() {
		o, err := Run(Buffered(cc, cc), tt.pts, tt.pts, ClientOptions{Cols: 60, Rows: 20})
		clientDone <- hostResult{o, err}
	}()
	tt.waitScreen(t, "size:60x20")
	tt.typeText(t, "ok")
	tt.waitScreen(t, "typed:[ok]")
	if st := s.Stats(); st.InputFrames == 0 {
		t.Errorf("stats %+v: the keys did not come as input frames", st)
	}
	tt.typeText(t, "D")
	if c := waitResult(t, "client", clientDone); c.o.Reason != ReasonDetached || c.err != nil {
		t.Errorf("client: %+v %v", c.o, c.err)
	}
	if h := waitResult(t, "host", hostDone); h.o.Reason != ReasonDetached || h.err != nil {
		t.Errorf("host: %+v %v", h.o, h.err)
	}
	checkRestored(t, tt)
}

// A tty frame whose descriptor is not a terminal, or that carries several,
// or another frame where the tty frame is due, is a protocol error: the
// session kicks the client before its program starts and closes what it
// was sent.
func TestTTYFrameRefused(t *testing.T) {
	pipeRights := func(t *testing.T, n int) []byte {
		var fds []int
		for range n {
			var p [2]int
			if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
				t.Fatal(err)
			}
			unix.Close(p[1])
			t.Cleanup(func() { unix.Close(p[0]) })
			fds = append(fds, p[0])
		}
		return syscall.UnixRights(fds...)
	}
	for name, tc := range map[string]struct {
		frame  []byte
		rights func(t *testing.T) []byte
		want   string
	}{
		"not a terminal":   {AppendFrame(nil, FrameTTY, nil), func(t *testing.T) []byte { return pipeRights(t, 1) }, "not a terminal"},
		"two descriptors":  {AppendFrame(nil, FrameTTY, nil), func(t *testing.T) []byte { return pipeRights(t, 2) }, "more than one descriptor"},
		"input frame":      {AppendFrame(nil, FrameInput, []byte("x")), nil, "input frame where the tty frame was due"},
		"tty with payload": {AppendFrame(nil, FrameTTY, []byte("x")), nil, "1-byte payload"},
	} {
		t.Run(name, func(t *testing.T) {
			noLeaks(t)
			hc, cc := socketPair(t)
			defer cc.Close()
			var oob []byte
			if tc.rights != nil {
				oob = tc.rights(t)
			}
			fds := openFDs(t)
			if _, _, err := cc.WriteMsgUnix(tc.frame, oob, nil); err != nil {
				t.Fatal(err)
			}
			o, err := Serve(context.Background(), hc, Params{Cols: 60, Rows: 20, Env: testEnv, TTY: true}, testModel{})
			if o.Reason != ReasonKicked || !strings.Contains(o.Message, tc.want) || err == nil {
				t.Errorf("host: %+v %v, want kicked saying %q", o, err, tc.want)
			}
			dec := NewDecoder(bufio.NewReader(cc))
			f, err := dec.Next()
			if err != nil || f.Type != FrameExit || f.Outcome().Reason != ReasonKicked {
				t.Errorf("the client got %v %v, want the exit frame (kicked)", f.Type, err)
			}
			// What was passed is closed again: the host's socket end is
			// closed too, so one fewer than counted.
			if n := openFDs(t); n != fds-1 {
				t.Errorf("%d descriptors open after the refusal, want %d", n, fds-1)
			}
		})
	}
}

// A handed-over terminal that stops reading (a frozen terminal window):
// once a write to it has blocked for the write bound, the session ends as
// kicked, and the exit frame still reaches the client on the socket.
func TestTTYStalledTerminalIsKicked(t *testing.T) {
	noLeaks(t) // not waiting: it sets the package's timeouts
	old := writeTimeout
	writeTimeout = 200 * time.Millisecond
	t.Cleanup(func() { writeTimeout = old })
	ptm, pts, err := pty.Open() // the master is not read until the end
	if err != nil {
		t.Fatal(err)
	}
	defer ptm.Close()
	defer pts.Close()
	if err := pty.Setsize(pts, &pty.Winsize{Cols: 160, Rows: 48}); err != nil {
		t.Fatal(err)
	}
	hc, cc := socketPair(t)
	s := NewSession(hc, Params{Cols: 160, Rows: 48, Env: testEnv, TTY: true}, busyModel{}, tea.WithFPS(60))
	hostDone, clientDone := make(chan hostResult, 1), make(chan hostResult, 1)
	go func() { o, err := s.Run(context.Background()); hostDone <- hostResult{o, err} }()
	go func() {
		o, err := Run(BufferedTTY(cc, cc), pts, pts, ClientOptions{Cols: 160, Rows: 48})
		clientDone <- hostResult{o, err}
	}()
	var h hostResult
	for i := 0; ; i++ {
		select {
		case h = <-hostDone:
		case <-time.After(time.Millisecond):
			s.Send(i) // a new frame, until the terminal's buffer is full
			continue
		}
		break
	}
	if h.o.Reason != ReasonKicked || h.o.Message != FellBehind {
		t.Errorf("host: %+v %v", h.o, h.err)
	}
	// The client has its exit frame; its Restore waits for the terminal,
	// which is read again now.
	go func() { _, _ = io.Copy(io.Discard, ptm) }()
	if c := waitResult(t, "client", clientDone); c.o.Reason != ReasonKicked || c.o.Message != FellBehind {
		t.Errorf("client: %+v %v", c.o, c.err)
	}
}
