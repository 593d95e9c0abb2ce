package attach

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/panes/term"
	"github.com/okstra/cockpit/panes/vt"
)

// checkRestored asserts the terminal is as a shell expects it back.
func checkRestored(t *testing.T, tt *terminal) {
	t.Helper()
	tt.wait(t, "the restore sequence", func() bool { return strings.HasSuffix(string(tt.raw), Restore) })
	tt.mu.Lock()
	m, cur := tt.emu.Modes(), tt.emu.Cursor()
	raw := string(tt.raw)
	tt.mu.Unlock()
	if m.AltScreen || m.Mouse != term.MouseNone || m.MouseSGR || m.BracketedPaste || m.FocusEvents || m.SyncOutput {
		t.Errorf("terminal modes after the session: %+v", m)
	}
	if !cur.Visible {
		t.Error("cursor hidden after the session")
	}
	if !strings.HasSuffix(raw, Restore) {
		t.Errorf("the terminal's last bytes are not the restore sequence: ...%q", raw[max(0, len(raw)-120):])
	}
}

func TestAttachEndToEnd(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	tt, hostDone, clientDone, _ := pairUp(t, ctx, 80, 24)
	before := tt.before

	// The model's output reaches the terminal, with the client's size and
	// environment (not the engine's).
	tt.waitScreen(t, "size:80x24")
	tt.waitScreen(t, "env:attach-test")
	tt.mu.Lock()
	m := tt.emu.Modes()
	tt.mu.Unlock()
	if !m.AltScreen || m.Mouse == term.MouseNone || !m.FocusEvents || !m.BracketedPaste {
		t.Fatalf("the model's terminal modes did not reach the terminal: %+v", m)
	}
	raw := tt.termios(t)
	if raw.Lflag&syscall.ICANON != 0 || raw.Lflag&syscall.ECHO != 0 {
		t.Fatalf("terminal not in raw mode during the session: lflag %#x", raw.Lflag)
	}

	// Keys typed on the terminal reach the model.
	tt.typeText(t, "héllo\r")
	tt.waitScreen(t, "typed:[héllo⏎]")
	if !strings.HasPrefix(tt.screen(), "typed:[héllo⏎]\nsize:80x24\nenv:attach-test\n") {
		t.Fatalf("screen:\n%s", tt.screen())
	}

	// A resize of the terminal reaches the model as a WindowSizeMsg.
	tt.resize(t, 100, 30)
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	tt.waitScreen(t, "size:100x30")

	// Suspend is refused (it would stop the engine): the session goes on.
	tt.typeText(t, "Z")
	tt.typeText(t, "!")
	tt.waitScreen(t, "typed:[héllo⏎!]")

	// The model detaches: both sides see it. The keys typed after the
	// detach key, in the same read, arrive as the program quits: they are
	// dropped, and nothing is left blocked on them (the leak check).
	tt.typeText(t, "Dxyz")
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
}

func TestEndWithReason(t *testing.T) {
	noLeaks(t)
	tt, hostDone, clientDone, _ := pairUp(t, context.Background(), 60, 20)
	tt.waitScreen(t, "size:60x20")
	tt.typeText(t, "E")
	c := waitResult(t, "client", clientDone)
	h := waitResult(t, "host", hostDone)
	want := Outcome{Reason: ReasonRunEnded, Message: "the run ended"}
	if c.o != want || c.err != nil || h.o != want || h.err != nil {
		t.Errorf("client %+v %v, host %+v %v; want %+v", c.o, c.err, h.o, h.err, want)
	}
	checkRestored(t, tt)
}

func TestPlainQuitIsDetached(t *testing.T) {
	noLeaks(t)
	tt, hostDone, clientDone, _ := pairUp(t, context.Background(), 60, 20)
	tt.waitScreen(t, "size:60x20")
	tt.typeText(t, "Q")
	c := waitResult(t, "client", clientDone)
	h := waitResult(t, "host", hostDone)
	if c.o.Reason != ReasonDetached || h.o.Reason != ReasonDetached || c.err != nil || h.err != nil {
		t.Errorf("client %+v %v, host %+v %v", c.o, c.err, h.o, h.err)
	}
}

// Closing one client's terminal ends its host's program, and a second
// session served at the same time goes on untouched.
func TestHangupEndsOnlyItsSession(t *testing.T) {
	noLeaks(t)
	ctx := context.Background()
	t1, host1, client1, _ := pairUp(t, ctx, 80, 24)
	t2, host2, client2, _ := pairUp(t, ctx, 70, 20)
	t1.waitScreen(t, "size:80x24")
	t2.waitScreen(t, "size:70x20")
	t1.typeText(t, "one")
	t2.typeText(t, "two")
	t1.waitScreen(t, "typed:[one]")
	t2.waitScreen(t, "typed:[two]")

	t1.hangup()
	c1 := waitResult(t, "client 1", client1)
	h1 := waitResult(t, "host 1", host1)
	if c1.o.Reason != ReasonDetached || h1.o.Reason != ReasonDetached || h1.err != nil {
		t.Errorf("after the hang-up: client %+v %v, host %+v %v", c1.o, c1.err, h1.o, h1.err)
	}

	select {
	case r := <-host2:
		t.Fatalf("host 2 ended with host 1: %+v", r)
	case r := <-client2:
		t.Fatalf("client 2 ended with client 1: %+v", r)
	default:
	}
	t2.typeText(t, "+more")
	t2.waitScreen(t, "typed:[two+more]")
	t2.typeText(t, "D")
	if c := waitResult(t, "client 2", client2); c.o.Reason != ReasonDetached {
		t.Errorf("client 2: %+v", c)
	}
	if h := waitResult(t, "host 2", host2); h.o.Reason != ReasonDetached || h.err != nil {
		t.Errorf("host 2: %+v", h)
	}
}

// A client that vanishes without a word (killed: its socket closed) ends the
// host's program promptly.
func TestVanishedClientEndsHostPromptly(t *testing.T) {
	noLeaks(t)
	hc, cc := socketPair(t)
	done := make(chan hostResult, 1)
	go func() {
		o, err := Serve(context.Background(), hc, Params{Cols: 40, Rows: 10, Env: testEnv}, testModel{}, tea.WithFPS(30))
		done <- hostResult{o, err}
	}()
	// Read until the first frame is drawn, as a client would.
	dec := NewDecoder(bufio.NewReader(cc))
	for {
		f, err := dec.Next()
		if err != nil {
			t.Fatal(err)
		}
		if f.Type == FrameOutput && strings.Contains(string(f.Payload), "size:") {
			break
		}
	}
	start := time.Now()
	_ = cc.Close()
	h := waitResult(t, "host", done)
	if took := time.Since(start); took > time.Second {
		t.Errorf("host took %s to notice the client was gone", took)
	}
	if h.o.Reason != ReasonDetached || h.err != nil {
		t.Errorf("host: %+v %v", h.o, h.err)
	}
}

// A panic in the model, in Update or in a command, ends its session as an
// engine error and never reaches the caller.
func TestModelPanicEndsOnlyTheSession(t *testing.T) {
	for _, key := range []string{"P", "C", "B", "V", "init"} {
		t.Run(key, func(t *testing.T) {
			noLeaks(t)
			tt, hostDone, clientDone, _ := pairUpModel(t, context.Background(), 60, 20, testModel{panicInit: key == "init"})
			before := tt.before
			if key != "init" {
				tt.waitScreen(t, "size:60x20")
				tt.typeText(t, key)
			}
			c := waitResult(t, "client", clientDone)
			h := waitResult(t, "host", hostDone)
			if c.o.Reason != ReasonEngineError || c.err != nil {
				t.Errorf("client: %+v %v", c.o, c.err)
			}
			if h.o.Reason != ReasonEngineError || !errors.Is(h.err, tea.ErrProgramPanic) {
				t.Errorf("host: %+v %v", h.o, h.err)
			}
			if after := tt.termios(t); after != before {
				t.Errorf("termios changed")
			}
			checkRestored(t, tt)
		})
	}
}

// The host vanishes mid-session without restoring anything: the client
// still leaves the terminal usable and says the connection was lost.
func TestHostVanishesClientRestores(t *testing.T) {
	noLeaks(t)
	tt, hostDone, clientDone, hc := pairUp(t, context.Background(), 80, 24)
	before := tt.before
	tt.waitScreen(t, "size:80x24")
	tt.mu.Lock()
	m := tt.emu.Modes()
	cur := tt.emu.Cursor()
	tt.mu.Unlock()
	if !m.AltScreen || m.Mouse == term.MouseNone || cur.Visible {
		t.Fatalf("the model's modes are not set before the host goes: %+v cursor %+v", m, cur)
	}
	_ = hc.Close() // the engine's end of the socket goes, mid-session
	c := waitResult(t, "client", clientDone)
	waitResult(t, "host", hostDone)
	if c.o.Reason != ReasonLost || c.o.Reason.OK() {
		t.Errorf("client: %+v %v", c.o, c.err)
	}
	if after := tt.termios(t); after != before {
		t.Errorf("termios changed")
	}
	checkRestored(t, tt)
}

// SIGTERM to the client asks the host to detach; the host's exit frame
// comes back.
func TestClientSignalDetaches(t *testing.T) {
	noLeaks(t)
	tt, hostDone, clientDone, _ := pairUp(t, context.Background(), 60, 20)
	tt.waitScreen(t, "size:60x20") // the client relays output: its signal handler is set
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	c := waitResult(t, "client", clientDone)
	h := waitResult(t, "host", hostDone)
	if c.o != (Outcome{Reason: ReasonDetached, Message: "detached"}) || h.o.Reason != ReasonDetached {
		t.Errorf("client %+v %v, host %+v %v", c.o, c.err, h.o, h.err)
	}
	checkRestored(t, tt)
}

// The engine ends sessions by cancelling Serve's context, with an Outcome
// as the cause, or through Session.End.
func TestEngineEndsSessions(t *testing.T) {
	noLeaks(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	tt, hostDone, clientDone, _ := pairUp(t, ctx, 60, 20)
	tt.waitScreen(t, "size:60x20")
	cancel(Outcome{Reason: ReasonRunEnded, Message: "cockpit stop"})
	c := waitResult(t, "client", clientDone)
	h := waitResult(t, "host", hostDone)
	want := Outcome{Reason: ReasonRunEnded, Message: "cockpit stop"}
	if c.o != want || h.o != want || h.err != nil {
		t.Errorf("client %+v, host %+v %v", c.o, h.o, h.err)
	}
	checkRestored(t, tt)

	// Session.End from outside.
	tt2 := newTerminal(t, 50, 12)
	hc, cc := socketPair(t)
	s := NewSession(hc, Params{Cols: 50, Rows: 12, Env: testEnv}, testModel{}, tea.WithFPS(30))
	hostDone2 := make(chan hostResult, 1)
	go func() { o, err := s.Run(context.Background()); hostDone2 <- hostResult{o, err} }()
	clientDone2 := make(chan hostResult, 1)
	go func() { o, err := Run(cc, tt2.pts, tt2.pts, ClientOptions{}); clientDone2 <- hostResult{o, err} }()
	tt2.waitScreen(t, "size:50x12")
	s.Send(tea.KeyPressMsg{Code: 'x', Text: "x"})
	tt2.waitScreen(t, "typed:[x]")
	// The client's one size frame is in before the end (under load it may
	// come after the first frames: the size was in the request too).
	testenv.Wait(t, "the client's size frame", 10*time.Second, func() bool { return s.Stats().Resizes == 1 })
	s.End(Outcome{Reason: ReasonKicked, Message: "another screen took this one's place"})
	c = waitResult(t, "client", clientDone2)
	h = waitResult(t, "host", hostDone2)
	if c.o.Reason != ReasonKicked || h.o.Reason != ReasonKicked || c.o.Reason.OK() {
		t.Errorf("client %+v, host %+v", c.o, h.o)
	}
	if st := s.Stats(); st.OutputFrames == 0 || st.OutputBytes == 0 || st.Resizes != 1 { // ClientOptions without a size: the size is sent once
		t.Errorf("stats %+v", st)
	}
}

// A client breaking the protocol is kicked with an exit frame and the error
// is returned.
func TestBadFrameKicksClient(t *testing.T) {
	noLeaks(t)
	hc, cc := socketPair(t)
	done := make(chan hostResult, 1)
	go func() {
		o, err := Serve(context.Background(), hc, Params{Cols: 40, Rows: 10, Env: testEnv}, testModel{})
		done <- hostResult{o, err}
	}()
	if _, err := cc.Write(AppendFrame(nil, FrameOutput, []byte("not yours"))); err != nil {
		t.Fatal(err)
	}
	dec := NewDecoder(bufio.NewReader(cc))
	var exit *Outcome
	for {
		f, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if f.Type == FrameExit {
			o := f.Outcome()
			exit = &o
		}
	}
	h := waitResult(t, "host", done)
	if exit == nil || exit.Reason != ReasonKicked {
		t.Errorf("exit frame %+v", exit)
	}
	if !errors.Is(h.err, ErrBadFrame) || h.o.Reason != ReasonKicked {
		t.Errorf("host: %+v %v", h.o, h.err)
	}
	_ = cc.Close()
}

func TestClientRefusesNonTerminal(t *testing.T) {
	noLeaks(t)
	hc, cc := socketPair(t)
	defer hc.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := Run(cc, r, w, ClientOptions{}); !errors.Is(err, ErrNotTerminal) {
		t.Fatalf("Run on a pipe: %v, want ErrNotTerminal", err)
	}
}

func TestProfileFromEnv(t *testing.T) {
	cases := []struct {
		env  []string
		want colorprofile.Profile
	}{
		{[]string{"TERM=xterm-256color", "COLORTERM=truecolor"}, colorprofile.TrueColor},
		{[]string{"TERM=xterm-256color"}, colorprofile.ANSI256},
		{[]string{"TERM=xterm-256color", "NO_COLOR=1"}, colorprofile.ASCII},
		{[]string{"TERM=dumb"}, colorprofile.NoTTY},
		{nil, colorprofile.NoTTY},
	}
	for _, c := range cases {
		if got := ProfileFromEnv(c.env); got != c.want {
			t.Errorf("%v: %v, want %v", c.env, got, c.want)
		}
	}
}

func TestClientEnvKeepsTerminalVariables(t *testing.T) {
	got := ClientEnv([]string{"TERM=xterm", "HOME=/root", "COLORTERM=truecolor", "PATH=/bin", "LANG=C.UTF-8", "SECRET_TOKEN=x", "NO_COLOR="})
	want := []string{"TERM=xterm", "COLORTERM=truecolor", "LANG=C.UTF-8", "NO_COLOR="}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ClientEnv = %v, want %v", got, want)
	}
}

// clientScreen is what a client's terminal shows of a session's output
// frames: their bytes through an emulator of the client's size, so a test
// reads the screen, not the diff that drew it (a view drawn before the
// session's size arrived is then updated by its changed cells only:
// "size:0x0" becomes "size:4096x256" by writing ":4096x256").
type clientScreen struct {
	conn *net.UnixConn
	dec  *Decoder
	emu  *vt.Emulator
}

func newClientScreen(conn *net.UnixConn, cols, rows int) *clientScreen {
	return &clientScreen{conn: conn, dec: NewDecoder(bufio.NewReader(conn)), emu: vt.New(cols, rows)}
}

// text is the screen's rows, one per line.
func (c *clientScreen) text() string {
	_, rows := c.emu.Size()
	var b []byte
	for y := 0; y < rows; y++ {
		b = c.emu.AppendLine(b, y, false)
		b = append(b, '\n')
	}
	return string(b)
}

// until reads frames until the screen shows want; it fails on an exit
// frame or the end of the connection.
func (c *clientScreen) until(t *testing.T, want string) {
	t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(testenv.Scale(30 * time.Second)))
	defer c.conn.SetReadDeadline(time.Time{})
	for {
		f, err := c.dec.Next()
		if err != nil {
			t.Fatalf("waiting for %q: %v; the screen shows %q", want, err, strings.TrimSpace(c.text()))
		}
		switch f.Type {
		case FrameOutput:
			// The client's terminal post-processes output (ONLCR, see
			// client.go), and bubbletea draws for it: "\n" is CR LF.
			c.emu.Write(bytes.ReplaceAll(f.Payload, []byte("\n"), []byte("\r\n")))
			if strings.Contains(c.text(), want) {
				return
			}
		case FrameExit:
			t.Fatalf("waiting for %q: exit %+v", want, f.Outcome())
		}
	}
}

// Sizes a renderer cannot hold are cut (the first) or ignored (resizes, as
// bubbletea ignores them); the engine never allocates a screen for them.
func TestHugeSizesAreBounded(t *testing.T) {
	testenv.SkipShort(t, "renders a 4096-column screen")
	noLeaks(t)
	hc, cc := socketPair(t)
	done := make(chan hostResult, 1)
	go func() {
		o, err := Serve(context.Background(), hc, Params{Cols: 100000, Rows: 100000, Env: testEnv}, testModel{})
		done <- hostResult{o, err}
	}()
	scr := newClientScreen(cc, MaxCols, 256)
	dec := scr.dec
	scr.until(t, "size:4096x256")
	var b []byte
	b = AppendResize(b, 65535, 65535)
	b = AppendResize(b, 50, 10)
	if _, err := cc.Write(b); err != nil {
		t.Fatal(err)
	}
	scr.emu.Resize(50, 10) // the client's terminal, at the size it sent
	scr.until(t, "size:50x10")
	if _, err := cc.Write(AppendFrame(nil, FrameDetach, nil)); err != nil {
		t.Fatal(err)
	}
	for {
		f, err := dec.Next()
		if err != nil {
			t.Fatalf("no exit frame: %v", err)
		}
		if f.Type == FrameExit {
			if o := f.Outcome(); o.Reason != ReasonDetached {
				t.Errorf("exit %+v", o)
			}
			break
		}
	}
	if h := waitResult(t, "host", done); h.o.Reason != ReasonDetached || h.err != nil {
		t.Errorf("host: %+v %v", h.o, h.err)
	}
	_ = cc.Close()
}

// A client that stops reading (suspended, frozen) is dropped once one write
// to it has blocked for the write timeout; the engine does not wait on it.
func TestStalledClientIsKicked(t *testing.T) {
	noLeaks(t) // not waiting: it sets the package's timeouts
	oldW, oldF := writeTimeout, farewellTimeout
	writeTimeout, farewellTimeout = 200*time.Millisecond, 200*time.Millisecond
	t.Cleanup(func() { writeTimeout, farewellTimeout = oldW, oldF })
	hc, cc := socketPair(t)
	defer cc.Close()
	if err := hc.SetWriteBuffer(4096); err != nil {
		t.Fatal(err)
	}
	s := NewSession(hc, Params{Cols: 160, Rows: 48, Env: testEnv}, busyModel{}, tea.WithFPS(60))
	done := make(chan hostResult, 1)
	go func() { o, err := s.Run(context.Background()); done <- hostResult{o, err} }()
	// The client reads nothing; the model keeps changing every cell.
	for i := 1; ; i++ {
		select {
		case h := <-done:
			if h.o.Reason != ReasonKicked || h.err != nil {
				t.Errorf("host: %+v %v", h.o, h.err)
			}
			return
		default:
		}
		if i > 1e7 {
			t.Fatal("the host never gave up on a client that does not read")
		}
		s.Send(i)
	}
}

// After a JSON handshake read with a bufio.Reader, the bytes it buffered
// past the reply are the first frames: Buffered hands them to the client.
func TestHandshakeBufferedBytesAreFrames(t *testing.T) {
	noLeaks(t)
	tt := newTerminal(t, 60, 20)
	before := tt.termios(t)
	hc, cc := socketPair(t)
	hostDone := make(chan hostResult, 1)
	go func() {
		hbr := bufio.NewReader(hc)
		if _, err := hbr.ReadString('\n'); err != nil {
			hostDone <- hostResult{err: err}
			return
		}
		// The reply and a first frame in one write: the client's line reader
		// gets both in one read.
		first := append([]byte("{\"id\":2,\"result\":{}}\n"), AppendFrame(nil, FrameOutput, []byte("\x1b[2J\x1b[Hfrom the handshake"))...)
		if _, err := hc.Write(first); err != nil {
			hostDone <- hostResult{err: err}
			return
		}
		o, err := Serve(context.Background(), Buffered(hc, hbr), Params{Cols: 60, Rows: 20, Env: testEnv}, testModel{})
		hostDone <- hostResult{o, err}
	}()
	if _, err := cc.Write([]byte("{\"id\":2,\"method\":\"attach\",\"params\":{}}\n")); err != nil {
		t.Fatal(err)
	}
	cbr := bufio.NewReader(cc)
	if _, err := cbr.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	clientDone := make(chan hostResult, 1)
	go func() {
		o, err := Run(Buffered(cc, cbr), tt.pts, tt.pts, ClientOptions{Cols: 60, Rows: 20})
		clientDone <- hostResult{o, err}
	}()
	tt.wait(t, "the handshake's frame", func() bool { return strings.Contains(string(tt.raw), "from the handshake") })
	tt.waitScreen(t, "size:60x20")
	tt.typeText(t, "D")
	if c := waitResult(t, "client", clientDone); c.o.Reason != ReasonDetached || c.err != nil {
		t.Errorf("client: %+v %v", c.o, c.err)
	}
	if h := waitResult(t, "host", hostDone); h.o.Reason != ReasonDetached || h.err != nil {
		t.Errorf("host: %+v %v", h.o, h.err)
	}
	if after := tt.termios(t); after != before {
		t.Error("termios changed")
	}
}

// SIGHUP to the client (its terminal went away) says bye and leaves; the
// host's program ends with no exit frame to send.
func TestClientHangupSignalSaysBye(t *testing.T) {
	noLeaks(t)
	tt, hostDone, clientDone, _ := pairUp(t, context.Background(), 60, 20)
	tt.waitScreen(t, "size:60x20") // the client relays output: its signal handler is set
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	c := waitResult(t, "client", clientDone)
	h := waitResult(t, "host", hostDone)
	if c.o != (Outcome{Reason: ReasonDetached, Message: "the terminal closed"}) || c.err != nil {
		t.Errorf("client %+v %v", c.o, c.err)
	}
	if h.o != (Outcome{Reason: ReasonDetached, Message: "the screen left"}) || h.err != nil {
		t.Errorf("host %+v %v", h.o, h.err)
	}
	checkRestored(t, tt)
}

// A screen kicked for not reading that catches up (a terminal paused with
// ctrl+s, a client resumed) takes in what was sent and then the exit frame
// saying why; the stream is whole to the end.
func TestStalledClientHearsWhy(t *testing.T) {
	noLeaks(t) // not waiting: it sets the package's timeouts
	old := writeTimeout
	writeTimeout = 200 * time.Millisecond
	t.Cleanup(func() { writeTimeout = old })
	hc, cc := socketPair(t)
	defer cc.Close()
	if err := hc.SetWriteBuffer(4096); err != nil {
		t.Fatal(err)
	}
	s := NewSession(hc, Params{Cols: 160, Rows: 48, Env: testEnv}, busyModel{}, tea.WithFPS(60))
	done := make(chan hostResult, 1)
	go func() { o, err := s.Run(context.Background()); done <- hostResult{o, err} }()
	for i := 1; !s.out.stalled.Load(); i++ {
		if i > 1e7 {
			t.Fatal("the host never gave up on a client that does not read")
		}
		s.Send(i)
	}
	// Now the client reads again.
	dec := NewDecoder(cc)
	var exit *Outcome
	for {
		f, err := dec.Next()
		if err != nil {
			break
		}
		if f.Type == FrameExit {
			o := f.Outcome()
			exit = &o
		}
	}
	if exit == nil || exit.Reason != ReasonKicked || exit.Message != FellBehind {
		t.Errorf("the client read exit %+v, want kicked: %q", exit, FellBehind)
	}
	if h := waitResult(t, "host", done); h.o.Reason != ReasonKicked || h.o.Message != FellBehind || h.err != nil {
		t.Errorf("host: %+v %v", h.o, h.err)
	}
}

// A client whose connection ends without an exit frame while the engine
// is alive says it was disconnected, not that the engine died.
func TestLostWhileEngineAliveIsKicked(t *testing.T) {
	noLeaks(t)
	tt := newTerminal(t, 80, 24)
	hc, cc := socketPair(t)
	clientDone := make(chan hostResult, 1)
	go func() {
		o, err := Run(cc, tt.pts, tt.pts, ClientOptions{Cols: 80, Rows: 24, EngineAlive: func() bool { return true }})
		clientDone <- hostResult{o, err}
	}()
	_ = hc.Close()
	if c := waitResult(t, "client", clientDone); c.o.Reason != ReasonKicked || c.o.Message != ClosedBehind || c.err != nil {
		t.Errorf("client: %+v %v", c.o, c.err)
	}
}

// socketAnswers finds the engine through the socket the client dialled.
func TestSocketAnswers(t *testing.T) {
	dir := testenv.ShortDir(t)
	sock := dir + "/s"
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	go func() { // an engine: any request line gets a reply line
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, err := bufio.NewReader(c).ReadSlice('\n'); err == nil {
					_, _ = c.Write([]byte(`{"id":1,"error":{"code":1,"message":"x"}}` + "\n"))
				}
			}()
		}
	}()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !socketAnswers(Buffered(c, c)) {
		t.Fatal("a listening engine's socket did not answer")
	}
	l.Close()
	if socketAnswers(Buffered(c, c)) {
		t.Fatal("a closed socket answered")
	}
	hc, cc := socketPair(t)
	defer hc.Close()
	defer cc.Close()
	if socketAnswers(cc) {
		t.Fatal("an unnamed socket answered")
	}
}
