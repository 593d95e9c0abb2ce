// Command helper is a small terminal program the panes tests run inside a real
// PTY. Each subcommand exercises one thing a pane must get right: terminal
// replies, window size changes, signal escalation on close, input encoding,
// output floods and synchronized output. It lives under testdata so ordinary
// builds of the module ignore it; the tests build it once per run.
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: helper cpr|winch|ignorehup|keys|flood|spew|sync|exit")
		os.Exit(2)
	}
	args := os.Args[2:]
	var err error
	switch os.Args[1] {
	case "cpr":
		err = cpr()
	case "winch":
		err = winch()
	case "ignorehup":
		err = ignoreHUP(args)
	case "keys":
		err = keys(args)
	case "flood":
		err = flood(args)
	case "spew":
		err = spew(args)
	case "sync":
		err = syncOutput(args)
	case "exit":
		code, _ := strconv.Atoi(args[0])
		fmt.Printf("bye %d\n", code)
		os.Exit(code)
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
}

// makeRaw puts the terminal on stdin into raw mode, so the helper sees every
// input byte as the pane sent it, without line editing or echo.
func makeRaw() error {
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

// cpr asks the terminal for the cursor position and prints the reply it read
// from stdin, escaped, so a test can see that the reply reached the program.
func cpr() error {
	if err := makeRaw(); err != nil {
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

// winch prints the terminal size at start and after every SIGWINCH.
func winch() error {
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

// ignoreHUP ignores SIGHUP (and SIGTERM with "term") and waits forever, so
// closing its pane has to escalate.
func ignoreHUP(args []string) error {
	signal.Ignore(syscall.SIGHUP)
	if len(args) > 0 && args[0] == "term" {
		signal.Ignore(syscall.SIGTERM)
	}
	fmt.Println("ready")
	return sleepForever()
}

// sleepForever blocks until a signal kills the program. A bare select{}
// would not do: with no other goroutine the Go runtime calls it a deadlock
// and exits.
func sleepForever() error {
	for {
		time.Sleep(time.Hour)
	}
}

// keys optionally writes a mode-setting sequence (its argument, with "ESC"
// standing for the escape byte), then prints every chunk of input it reads as
// hex, one line per read.
func keys(args []string) error {
	if err := makeRaw(); err != nil {
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

// flood prints n numbered lines, one write each, then "done".
func flood(args []string) error {
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

// spew writes n bytes of coloured, line-structured text in large writes, the
// way a busy build or an LLM worker streams output.
func spew(args []string) error {
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

// syncOutput prints "before", then for each input byte it reads takes one
// step through a synchronized update (mode 2026): it begins the update and
// prints "during", prints "more" inside it, then ends it and prints "after".
// With "hold" it stops after the first step and never ends the update. The
// terminal is raw, so input is not echoed into the output the test watches.
func syncOutput(args []string) error {
	steps := []string{"\x1b[?2026hduring\r\n", "more\r\n", "\x1b[?2026lafter\r\n"}
	if len(args) > 0 && args[0] == "hold" {
		steps = steps[:1]
	}
	if err := makeRaw(); err != nil {
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
		return sleepForever()
	}
	_, _ = os.Stdin.Read(b)
	return nil
}
