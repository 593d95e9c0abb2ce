// Command vtrecord owns the making of the emulator's test recordings: it runs
// a program in a PTY of a given size, types a script of keys into it, answers
// its terminal queries through panes/vt (as a pane would) and writes every
// byte the program printed to a file under testdata/vt/. The recordings are
// replayed by the emulator's tmux differential tests.
//
//	go run ./panes/vt/internal/vtrecord -o testdata/vt/vim.bin -size 80x24 \
//	    -script 'sleep:800;;send:":q!\r"' -- vim -u NONE file.txt
//
// A script is steps separated by ";;": "sleep:DURATION" or "send:QUOTED"
// (a Go-quoted string, so "\r" and "\x1b" work).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/okstra/cockpit/panes/vt"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "vtrecord:", err)
		os.Exit(1)
	}
}

func run() error {
	out := flag.String("o", "", "output file")
	size := flag.String("size", "80x24", "terminal size COLSxROWS")
	script := flag.String("script", "", "keys to type: steps separated by ;; (sleep:DUR, send:QUOTED)")
	timeout := flag.Duration("timeout", 20*time.Second, "kill the program after this long")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		return errors.New("usage: vtrecord -o FILE [-size CxR] [-script S] -- command [args]")
	}
	var cols, rows int
	if _, err := fmt.Sscanf(*size, "%dx%d", &cols, &rows); err != nil {
		return fmt.Errorf("parse size %q: %w", *size, err)
	}
	steps, err := parseScript(*script)
	if err != nil {
		return err
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "COLORTERM=truecolor", "LANG=C.UTF-8", "LC_ALL=C.UTF-8")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		return fmt.Errorf("start %s: %w", flag.Arg(0), err)
	}
	defer f.Close()

	var mu sync.Mutex
	em := vt.New(cols, rows)
	em.SetCallbacks(func(p []byte) { _, _ = f.Write(p) }, nil)
	var rec []byte
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				mu.Lock()
				rec = append(rec, buf[:n]...)
				_, _ = em.Write(buf[:n])
				mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		for _, s := range steps {
			if s.sleep > 0 {
				time.Sleep(s.sleep)
				continue
			}
			_, _ = io.WriteString(f, s.send)
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(*timeout):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-exited
	}
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
	mu.Lock()
	defer mu.Unlock()
	if err := os.WriteFile(*out, rec, 0o644); err != nil {
		return fmt.Errorf("write recording: %w", err)
	}
	fmt.Fprintf(os.Stderr, "vtrecord: %d bytes to %s\n", len(rec), *out)
	return nil
}

type step struct {
	sleep time.Duration
	send  string
}

func parseScript(s string) ([]step, error) {
	var steps []step
	if s == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ";;") {
		kind, arg, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("script step %q: want kind:arg", part)
		}
		switch kind {
		case "sleep":
			d, err := time.ParseDuration(arg)
			if err != nil {
				return nil, fmt.Errorf("script sleep %q: %w", arg, err)
			}
			steps = append(steps, step{sleep: d})
		case "send":
			text, err := strconv.Unquote(arg)
			if err != nil {
				return nil, fmt.Errorf("script send %s: %w", arg, err)
			}
			steps = append(steps, step{send: text})
		default:
			return nil, fmt.Errorf("script step kind %q", kind)
		}
	}
	return steps, nil
}
