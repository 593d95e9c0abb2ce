package attach

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"

	"github.com/charmbracelet/x/term"
	"golang.org/x/sys/unix"
)

// Restore is what the client writes to its terminal when it leaves, after
// the host's own last frame: whatever the host managed to send, the
// terminal is left usable. It is tmux's detach sequence (tty_stop_tty)
// without the screen clear, so that it is harmless when the host already
// restored everything: end a synchronized update, reset the scroll region,
// charset and attributes, normal cursor and keypad keys, default cursor
// shape and colour, cursor shown, mouse tracking off (1000, 1002, 1003,
// 1005, 1006), bracketed paste off, focus events off, modifyOtherKeys off,
// one kitty keyboard entry popped, and the alternate screen left.
const Restore = "\x1b[?2026l" + // synchronized output: end
	"\x1b[r" + // scroll region: whole screen
	"\x1b(B" + // G0: ASCII
	"\x1b[m" + // attributes off
	"\x1b[?1l\x1b>" + // normal cursor keys, numeric keypad
	"\x1b[0 q" + // default cursor shape
	"\x1b]112\x07" + // default cursor colour
	"\x1b[?12l\x1b[?25h" + // cursor: steady, shown
	"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l" + // mouse off
	"\x1b[?2004l" + // bracketed paste off
	"\x1b[?1004l" + // focus events off
	"\x1b[>4m" + // modifyOtherKeys off
	"\x1b[<u" + // kitty keyboard: pop one entry
	"\x1b[?1049l" // leave the alternate screen

// clientEnvNames are the variables ClientEnv keeps: what decides colours,
// keys, widths and terminal queries.
var clientEnvNames = map[string]bool{
	"TERM": true, "COLORTERM": true, "TERM_PROGRAM": true, "TERM_PROGRAM_VERSION": true,
	"LANG": true, "LC_ALL": true, "LC_CTYPE": true,
	"NO_COLOR": true, "CLICOLOR": true, "CLICOLOR_FORCE": true,
	"TMUX": true, "STY": true, "SSH_TTY": true, "WT_SESSION": true,
	"KITTY_WINDOW_ID": true, "WEZTERM_PANE": true, "VTE_VERSION": true,
	"GOOGLE_CLOUD_SHELL": true, "COLORFGBG": true,
	"COCKPIT_ALERTS": true, // the client's alerts (tui.AlertsFor)
}

// ClientEnv picks from environ (os.Environ() form) the variables the host
// needs to draw for this terminal, for Params.Env.
func ClientEnv(environ []string) []string {
	var env []string
	for _, kv := range environ {
		if i := strings.IndexByte(kv, '='); i > 0 && clientEnvNames[kv[:i]] {
			env = append(env, kv)
		}
	}
	return env
}

// LocalParams are the Params for attaching the terminal on f: its size, the
// process's terminal environment, and the offer of the terminal itself
// when it can be handed over (CanPassTTY).
func LocalParams(f *os.File, readOnly bool) (Params, error) {
	cols, rows, err := term.GetSize(f.Fd())
	if err != nil {
		return Params{}, fmt.Errorf("attach: the size of %s: %w", f.Name(), err)
	}
	return Params{Cols: cols, Rows: rows, Env: ClientEnv(os.Environ()), ReadOnly: readOnly, TTY: CanPassTTY(f)}, nil
}

// ClientOptions tune Run.
type ClientOptions struct {
	// Cols and Rows are the size already sent in the attach request; Run
	// sends a resize frame at start only when the terminal's size differs
	// (always when zero).
	Cols, Rows int
	// DetachTimeout is how long Run waits for the exit frame after asking
	// to detach (on SIGTERM, SIGINT or SIGQUIT). Default 2 s.
	DetachTimeout time.Duration
	// EngineAlive is asked once the connection ended without an exit
	// frame: an engine still alive closed this screen itself, which it
	// does to a screen that fell behind and did not catch up in time
	// (FarewellTimeout), so Run returns ReasonKicked saying so instead of
	// ReasonLost. Nil means: the engine answers a connection to the
	// socket conn was dialled to (conn's RemoteAddr, a unix socket path).
	EngineAlive func() bool
}

// lostConnection is the message of a connection that ended without an
// exit frame.
const lostConnection = "lost the connection to the engine"

// ClosedBehind is the message of a screen whose connection an engine still
// alive closed without an exit frame.
const ClosedBehind = "the engine disconnected this screen: it fell behind (its terminal stopped reading) and did not catch up"

// ErrNotTerminal is returned by Run when in is not a terminal.
var ErrNotTerminal = errors.New("not a terminal")

// Run relays a terminal to an attached session until the session ends: it
// puts in in raw mode, sends the terminal's size and every size change
// (SIGWINCH), relays bytes read from in as input frames and output frames to
// out, and returns the outcome from the host's exit frame. On a connection
// whose engine asked for the terminal (BufferedTTY) it hands the terminal
// over first (FrameTTY) and relays no input: the engine reads and draws on
// it.
//
// It always restores the terminal before returning, whatever the host did:
// in's termios as they were, and the Restore sequence written to out. Other
// ends:
//   - in reaches its end or fails, or SIGHUP (the terminal closed): a bye
//     frame, ReasonDetached;
//   - SIGTERM, SIGINT, SIGQUIT: a detach frame, then the host's exit frame
//     (or ReasonLost after DetachTimeout);
//   - the connection ends without an exit frame: ReasonLost (the engine
//     died), or ReasonKicked when EngineAlive says it lives;
//   - the host breaks the protocol: ReasonLost and an error.
//
// Run owns conn and closes it. in and out are usually os.Stdin and
// os.Stdout; they are not closed.
func Run(conn io.ReadWriteCloser, in, out *os.File, opts ClientOptions) (outcome Outcome, err error) {
	defer conn.Close()
	if opts.DetachTimeout <= 0 {
		opts.DetachTimeout = 2 * time.Second
	}
	inFd := int(in.Fd())
	state, err := term.MakeRaw(uintptr(inFd))
	if err != nil {
		return Outcome{}, fmt.Errorf("attach: %s: %w (%v)", in.Name(), ErrNotTerminal, err)
	}
	// Raw input, but output still post-processed (ONLCR): bubbletea draws
	// for a terminal it does not own as if a newline returns the carriage.
	if tio, err := unix.IoctlGetTermios(inFd, unix.TCGETS); err == nil {
		tio.Oflag |= unix.OPOST | unix.ONLCR
		_ = unix.IoctlSetTermios(inFd, unix.TCSETS, tio)
	}
	defer func() {
		_ = term.Restore(uintptr(inFd), state)
		_, _ = io.WriteString(out, Restore)
		if r := recover(); r != nil {
			outcome = Outcome{Reason: ReasonLost, Message: "the screen client failed"}
			err = fmt.Errorf("attach: client panic: %v", r)
		}
	}()

	c := &client{conn: conn}
	// The engine asked for the terminal (BufferedTTY): the first frame hands
	// it over, and no input is relayed (the engine reads the terminal and
	// draws on it itself). When the terminal cannot be opened again the
	// frame goes without it and Run relays.
	passed := false
	if takesTTY(conn) {
		// A failed write shows on the reading side as the connection's end.
		passed, _ = sendTTY(conn, in, out)
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGWINCH, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT)
	defer signal.Stop(sigs)

	lastCols, lastRows := opts.Cols, opts.Rows
	sendSize := func() {
		cols, rows, err := term.GetSize(out.Fd())
		if err != nil {
			cols, rows, err = term.GetSize(uintptr(inFd))
		}
		if err != nil || cols <= 0 || rows <= 0 || (cols == lastCols && rows == lastRows) {
			return
		}
		lastCols, lastRows = cols, rows
		c.send(FrameResize, nil, cols, rows)
	}
	sendSize()

	// Wake pipe: lets Run stop the stdin reader, which polls on it.
	var wake [2]int
	if err := unix.Pipe2(wake[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return Outcome{}, fmt.Errorf("attach: pipe: %w", err)
	}
	defer unix.Close(wake[0])
	defer unix.Close(wake[1])

	type ending struct {
		o   Outcome
		err error
		bye bool // tell the host we are leaving
	}
	ends := make(chan ending, 2)
	var wg sync.WaitGroup
	wg.Add(1)
	if !passed {
		wg.Add(1)
		go func() { // terminal → host
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					ends <- ending{o: Outcome{Reason: ReasonLost, Message: "the screen client failed"}, err: fmt.Errorf("attach: client panic: %v", r)}
				}
			}()
			if err := c.relayInput(inFd, wake[0]); err != nil {
				ends <- ending{o: Outcome{Reason: ReasonDetached, Message: "the terminal closed"}, bye: true}
			}
		}()
	}
	go func() { // host → terminal
		defer wg.Done()
		defer func() {
			if r := recover(); r != nil {
				ends <- ending{o: Outcome{Reason: ReasonLost, Message: "the screen client failed"}, err: fmt.Errorf("attach: client panic: %v", r)}
			}
		}()
		o, err := relayOutput(conn, out)
		ends <- ending{o: o, err: err}
	}()

	var end ending
	var deadline <-chan time.Time
loop:
	for {
		select {
		case end = <-ends:
			break loop
		case <-deadline:
			end = ending{o: Outcome{Reason: ReasonLost, Message: "the engine did not answer the detach request"}}
			break loop
		case sig := <-sigs:
			switch sig {
			case syscall.SIGWINCH:
				sendSize()
			case syscall.SIGHUP:
				end = ending{o: Outcome{Reason: ReasonDetached, Message: "the terminal closed"}, bye: true}
				break loop
			default:
				if deadline == nil {
					c.send(FrameDetach, nil, 0, 0)
					deadline = time.After(opts.DetachTimeout)
				}
			}
		}
	}
	if end.bye {
		c.send(FrameBye, nil, 0, 0)
	}
	if end.o.Reason == ReasonLost && end.o.Message == lostConnection {
		alive := opts.EngineAlive
		if alive == nil {
			alive = func() bool { return socketAnswers(conn) }
		}
		if alive() {
			end.o = Outcome{Reason: ReasonKicked, Message: ClosedBehind}
		}
	}
	// Stop both relays: the wake pipe ends the input poll, closing the
	// connection ends the output read.
	_, _ = unix.Write(wake[1], []byte{1})
	_ = conn.Close()
	wg.Wait()
	return end.o, end.err
}

// socketAnswers says whether the engine behind the unix socket conn was
// dialled to still answers: a connection is taken and a request (one JSON
// line of the control protocol, docs/PROTOCOL.md) gets a reply line within
// a second. An engine that is dying may still take the connection, but
// does not reply.
func socketAnswers(conn io.ReadWriteCloser) bool {
	ra, ok := conn.(interface{ RemoteAddr() net.Addr })
	if !ok {
		return false
	}
	ua, ok := ra.RemoteAddr().(*net.UnixAddr)
	if !ok || ua == nil || ua.Name == "" || ua.Name == "@" {
		return false
	}
	c, err := net.DialTimeout("unix", ua.Name, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := io.WriteString(c, `{"id":1,"method":"hello","params":{"client":"attach liveness"}}`+"\n"); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadSlice('\n')
	return err == nil && len(line) > 1
}

// client writes frames to the host; writes from the relays and the signal
// loop are serialised.
type client struct {
	conn io.Writer
	mu   sync.Mutex
	buf  []byte
}

func (c *client) send(t FrameType, payload []byte, cols, rows int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t == FrameResize {
		c.buf = AppendResize(c.buf[:0], cols, rows)
	} else {
		c.buf = AppendFrame(c.buf[:0], t, payload)
	}
	// A failed write shows up on the reading side as the end of the
	// connection.
	_, _ = c.conn.Write(c.buf)
}

// relayInput copies the terminal's bytes to input frames until the terminal
// ends (an error) or the wake pipe is written (nil).
func (c *client) relayInput(fd, wake int) error {
	buf := make([]byte, 32<<10)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(wake), Events: unix.POLLIN}}
	for {
		fds[0].Revents, fds[1].Revents = 0, 0
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return err
		}
		if fds[1].Revents != 0 {
			return nil
		}
		if fds[0].Revents&(unix.POLLIN|unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) == 0 {
			continue
		}
		n, err := unix.Read(fd, buf)
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
			continue
		case err != nil:
			return err
		case n == 0:
			return io.EOF
		}
		c.send(FrameInput, buf[:n], 0, 0)
	}
}

// relayOutput copies output frames to out until the exit frame or the end
// of the connection.
func relayOutput(conn io.Reader, out io.Writer) (Outcome, error) {
	dec := NewDecoder(bufio.NewReaderSize(conn, 64<<10))
	for {
		f, err := dec.Next()
		if err != nil {
			if errors.Is(err, ErrBadFrame) {
				return Outcome{Reason: ReasonLost, Message: "the engine sent a bad frame"}, fmt.Errorf("attach: %w", err)
			}
			return Outcome{Reason: ReasonLost, Message: lostConnection}, nil
		}
		switch f.Type {
		case FrameOutput:
			if _, err := out.Write(f.Payload); err != nil {
				return Outcome{Reason: ReasonDetached, Message: "the terminal closed"}, nil
			}
		case FrameExit:
			o := f.Outcome()
			o.Message = cleanLine(o.Message)
			return o, nil
		default:
			return Outcome{Reason: ReasonLost, Message: "the engine sent a bad frame"},
				fmt.Errorf("attach: %w: %s frame from the host", ErrBadFrame, f.Type)
		}
	}
}

// cleanLine makes a host's line safe to print: valid UTF-8, no control
// characters.
func cleanLine(s string) string {
	s = strings.ToValidUTF8(s, "�")
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}
