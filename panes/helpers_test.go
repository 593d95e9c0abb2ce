package panes

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/internal/testenv"
)

// envHelper makes the test binary the helper program (helperMain): the
// tests run helperBin, which is this binary, with the variable set in the
// environment every pane inherits.
const envHelper = "COCKPIT_PANES_TEST_HELPER"

// helperBin is the helper program: the test binary itself.
var helperBin string

func TestMain(m *testing.M) {
	if os.Getenv(envHelper) == "1" {
		os.Exit(helperMain(os.Args[1:]))
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "find the test binary to run as the helper:", err)
		os.Exit(1)
	}
	helperBin = exe
	// A pane's program inherits this process's environment unless its
	// Config says otherwise; the helper's panes do not.
	os.Setenv(envHelper, "1")
	testenv.ParallelShort(8) // the parallel tests wait on their helpers
	os.Exit(testenv.Private(m).Run())
}

// waitFor polls cond until it holds or the deadline passes. Tests wait on
// conditions, never on fixed sleeps, so they are as fast as the machine and
// only fail when the condition truly never comes.
func waitFor(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testenv.Scale(timeout))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// screenText is the pane's live screen as plain text, trailing blank rows
// dropped.
func screenText(p *Pane) string {
	return strings.TrimRight(strings.Join(p.Capture(false), "\n"), "\n")
}

// waitScreen waits until the pane's screen contains want.
func waitScreen(t testing.TB, p *Pane, want string) {
	t.Helper()
	deadline := time.Now().Add(testenv.Scale(10 * time.Second))
	for !strings.Contains(screenText(p), want) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %q on screen:\n%s", want, screenText(p))
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// waitDone waits for the pane's program to exit.
func waitDone(t testing.TB, p *Pane) ExitStatus {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("pane %s did not exit; screen:\n%s", p.ID(), screenText(p))
	}
	st, ok := p.Status()
	if !ok {
		t.Fatalf("pane %s: Done closed but no status", p.ID())
	}
	return st
}

// openHelper opens a pane running the helper with args.
func openHelper(t testing.TB, m *Manager, cfg Config, args ...string) *Pane {
	t.Helper()
	cfg.Argv = append([]string{helperBin}, args...)
	if cfg.Env != nil {
		cfg.Env = append(cfg.Env, envHelper+"=1")
	}
	p, err := m.Open(cfg)
	if err != nil {
		t.Fatalf("open helper %v: %v", args, err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// paneGoroutines returns the stacks of live goroutines running code of this
// package or of the emulator behind it, except the test's own.
func paneGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var leaked []string
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		s := string(g)
		if strings.Contains(s, "testing.tRunner") || strings.Contains(s, "testing.(*T).Run") ||
			strings.Contains(s, "testing.(*M).") || strings.Contains(s, "paneGoroutines") {
			continue
		}
		if strings.Contains(s, "cockpit/panes") || strings.Contains(s, "charmbracelet/x/vt") ||
			strings.Contains(s, "os/exec") || strings.Contains(s, "internal/poll") {
			leaked = append(leaked, s)
		}
	}
	return leaked
}

// checkNoLeaks fails unless, within a deadline, no goroutine of a pane is
// left and the goroutine count is back to base.
func checkNoLeaks(t testing.TB, base int) {
	t.Helper()
	deadline := time.Now().Add(testenv.Scale(5 * time.Second))
	for {
		// Collecting garbage runs cleanups (refvt closes x/vt that way),
		// so anything still alive afterwards is truly held.
		runtime.GC()
		leaked := paneGoroutines()
		n := runtime.NumGoroutine()
		if len(leaked) == 0 && n <= base {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines left behind: %d now, %d before\n%s", n, base, strings.Join(leaked, "\n\n"))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// helperMain is the helper program: a small terminal program the tests run
// inside a real PTY by re-executing the test binary (TestMain). Each
// subcommand exercises one thing a pane must get right: terminal replies,
// window size changes, signal escalation on close, input encoding, output
// floods and synchronized output. It returns the exit code.
func helperMain(argv []string) int {
	if len(argv) < 1 {
		fmt.Fprintln(os.Stderr, "usage: helper cpr|winch|ignorehup|keys|flood|spew|sync|exit")
		return 2
	}
	args := argv[1:]
	var err error
	switch argv[0] {
	case "cpr":
		err = helperCpr()
	case "winch":
		err = helperWinch()
	case "ignorehup":
		err = helperIgnoreHUP(args)
	case "keys":
		err = helperKeys(args)
	case "lagread":
		err = helperLagRead(args)
	case "flood":
		err = helperFlood(args)
	case "spew":
		err = helperSpew(args)
	case "sync":
		err = helperSyncOutput(args)
	case "colors":
		err = helperColors()
	case "exit":
		code, _ := strconv.Atoi(args[0])
		fmt.Printf("bye %d\n", code)
		return code
	default:
		err = fmt.Errorf("unknown subcommand %q", argv[0])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	return 0
}

// helperMakeRaw puts the terminal on stdin into raw mode, so the helper sees every
// input byte as the pane sent it, without line editing or echo.
func helperMakeRaw() error {
	t, err := unix.IoctlGetTermios(0, unix.TCGETS)
	if err != nil {
		return fmt.Errorf("get termios: %w", err)
	}
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
	if err := unix.IoctlSetTermios(0, unix.TCSETS, t); err != nil {
		return fmt.Errorf("set termios: %w", err)
	}
	return nil
}

// helperCpr asks the terminal for the cursor position and prints the reply it read
// from stdin, escaped, so a test can see that the reply reached the program.
func helperCpr() error {
	if err := helperMakeRaw(); err != nil {
		return err
	}
	fmt.Print("\x1b[3;5H\x1b[6n")
	var reply []byte
	b := make([]byte, 1)
	for {
		if _, err := os.Stdin.Read(b); err != nil {
			return fmt.Errorf("read reply: %w", err)
		}
		reply = append(reply, b[0])
		if b[0] == 'R' {
			break
		}
	}
	fmt.Printf("\r\nreply=%s\r\n", strings.ReplaceAll(string(reply), "\x1b", "ESC"))
	return nil
}

// helperColors asks the terminal for its foreground, background and
// palette colour 1, prints the replies escaped, and asks again on every
// input byte until an x.
func helperColors() error {
	if err := helperMakeRaw(); err != nil {
		return err
	}
	b := make([]byte, 1)
	for round := 1; ; round++ {
		fmt.Print("\x1b]10;?\a\x1b]11;?\a\x1b]4;1;?\a")
		var reply []byte
		for bels := 0; bels < 3; {
			if _, err := os.Stdin.Read(b); err != nil {
				return fmt.Errorf("read reply: %w", err)
			}
			reply = append(reply, b[0])
			if b[0] == 0x07 {
				bels++
			}
		}
		r := strings.NewReplacer("\x1b", "ESC", "\a", "BEL").Replace(string(reply))
		fmt.Printf("\r\n%d=%s\r\n", round, r)
		if _, err := os.Stdin.Read(b); err != nil || b[0] == 'x' {
			return err
		}
	}
}

// helperWinch prints the terminal size at start and after every SIGWINCH.
func helperWinch() error {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH)
	print := func() error {
		ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
		if err != nil {
			return fmt.Errorf("get winsize: %w", err)
		}
		fmt.Printf("size=%dx%d\n", ws.Col, ws.Row)
		return nil
	}
	if err := print(); err != nil {
		return err
	}
	for range ch {
		if err := print(); err != nil {
			return err
		}
	}
	return nil
}

// helperIgnoreHUP ignores SIGHUP (and SIGTERM with "term") and waits forever, so
// closing its pane has to escalate.
func helperIgnoreHUP(args []string) error {
	signal.Ignore(syscall.SIGHUP)
	if len(args) > 0 && args[0] == "term" {
		signal.Ignore(syscall.SIGTERM)
	}
	fmt.Println("ready")
	return helperSleepForever()
}

// helperSleepForever blocks until a signal kills the program. A bare select{}
// would not do: with no other goroutine the Go runtime calls it a deadlock
// and exits.
func helperSleepForever() error {
	for {
		time.Sleep(time.Hour)
	}
}

// helperKeys optionally writes a mode-setting sequence (its argument, with "ESC"
// standing for the escape byte), then prints every chunk of input it reads as
// hex, one line per read.
func helperKeys(args []string) error {
	if err := helperMakeRaw(); err != nil {
		return err
	}
	if len(args) > 0 {
		fmt.Print(strings.ReplaceAll(args[0], "ESC", "\x1b"))
	}
	fmt.Print("ready\r\n")
	b := make([]byte, 4096)
	for {
		n, err := os.Stdin.Read(b)
		if err != nil {
			return fmt.Errorf("read input: %w", err)
		}
		fmt.Printf("in=%x\r\n", b[:n])
	}
}

// helperLagRead reads nothing until SIGUSR1, then reads n numbered records
// ("%06d\n", from 0) and prints whether they came whole and in order.
func helperLagRead(args []string) error {
	n, err := strconv.Atoi(args[0])
	if err != nil {
		return fmt.Errorf("parse count: %w", err)
	}
	if err := helperMakeRaw(); err != nil {
		return err
	}
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	fmt.Print("ready\r\n")
	<-usr1
	in := bufio.NewReader(os.Stdin)
	for i := range n {
		line, err := in.ReadString('\n')
		if err != nil {
			return fmt.Errorf("read record %d: %w", i, err)
		}
		if want := fmt.Sprintf("%06d\n", i); line != want {
			fmt.Printf("out of order: record %d is %q\r\n", i, line)
			break
		}
		if i == n-1 {
			fmt.Printf("in order: %d\r\n", n)
		}
	}
	_, err = io.Copy(io.Discard, in) // the rest, until the pane closes
	return err
}

// helperFlood prints n numbered lines, one write each, then "done".
func helperFlood(args []string) error {
	n, err := strconv.Atoi(args[0])
	if err != nil {
		return fmt.Errorf("parse count: %w", err)
	}
	for i := 0; i < n; i++ {
		fmt.Printf("line %d\n", i)
	}
	fmt.Println("done")
	return nil
}

// helperSpew writes n bytes of coloured, line-structured text in large writes, the
// way a busy build or an LLM worker streams output.
func helperSpew(args []string) error {
	n, err := strconv.Atoi(args[0])
	if err != nil {
		return fmt.Errorf("parse size: %w", err)
	}
	var chunk []byte
	for i := 0; len(chunk) < 64<<10; i++ {
		switch i % 4 {
		case 0:
			chunk = fmt.Appendf(chunk, "\x1b[1;32m%6d\x1b[0m compiling package number %d of the build, all is well\r\n", i, i)
		case 1:
			chunk = fmt.Appendf(chunk, "\x1b[38;5;208mwarn\x1b[0m: a somewhat longer line of prose the model wrote, with no colour at all %d\r\n", i)
		default:
			chunk = fmt.Appendf(chunk, "plain text line %d: lorem ipsum dolor sit amet, consectetur adipiscing elit\r\n", i)
		}
	}
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	for n > 0 {
		c := chunk
		if len(c) > n {
			c = c[:n]
		}
		if _, err := w.Write(c); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		n -= len(c)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("flush: %w", err)
	}
	return nil
}

// helperSyncOutput prints "before", then for each input byte it reads takes one
// step through a synchronized update (mode 2026): it begins the update and
// prints "during", prints "more" inside it, then ends it and prints "after".
// With "hold" it stops after the first step and never ends the update. The
// terminal is raw, so input is not echoed into the output the test watches.
func helperSyncOutput(args []string) error {
	steps := []string{"\x1b[?2026hduring\r\n", "more\r\n", "\x1b[?2026lafter\r\n"}
	if len(args) > 0 && args[0] == "hold" {
		steps = steps[:1]
	}
	if err := helperMakeRaw(); err != nil {
		return err
	}
	fmt.Print("before\r\n")
	b := make([]byte, 1)
	for _, step := range steps {
		if _, err := os.Stdin.Read(b); err != nil {
			return fmt.Errorf("read: %w", err)
		}
		fmt.Print(step)
	}
	if len(steps) == 1 {
		return helperSleepForever()
	}
	_, _ = os.Stdin.Read(b)
	return nil
}
