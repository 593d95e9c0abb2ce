// Command vtrecord owns the making of the emulator's test recordings: it runs
// a program in a PTY of a given size, types a script of keys into it, answers
// its terminal queries through panes/vt (as a pane would) and writes every
// byte the program printed to a file under testdata/vt/. The recordings are
// replayed by the emulator's tmux differential tests.
//
//	go run ./panes/vt/internal/vtrecord -o testdata/vt/vim.bin -size 80x24 \
//	    -script 'sleep:800;;send:":q!\r"' -- vim -u NONE file.txt
//
// A script is steps separated by ";;": "sleep:DURATION", "send:QUOTED"
// (a Go-quoted string, so "\r" and "\x1b" work), "type:QUOTED" (the same,
// a character every 40 ms, as typed: programs take a burst for a paste),
// "wait:QUOTED" (until the
// screen shows the text, at most 30 s), "resize:COLSxROWS" (the PTY and
// the emulator take the new size; the program gets SIGWINCH) or "stop:"
// (the recording ends here and the program is killed). A recording
// with resizes gets a sidecar FILE.resize: one line "OFFSET COLSxROWS" per
// resize, OFFSET the number of bytes recorded before it.
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
	var resizes []string
	end := -1 // the length recorded at a stop step
	stopped := make(chan struct{})
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
			switch {
			case s.sleep > 0:
				time.Sleep(s.sleep)
			case s.wait != "":
				for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
					mu.Lock()
					shown := screenHas(em, s.wait)
					mu.Unlock()
					if shown {
						break
					}
				}
			case s.cols > 0:
				mu.Lock()
				resizes = append(resizes, fmt.Sprintf("%d %dx%d", len(rec), s.cols, s.rows))
				em.Resize(s.cols, s.rows)
				_ = pty.Setsize(f, &pty.Winsize{Cols: uint16(s.cols), Rows: uint16(s.rows)})
				mu.Unlock()
			case s.stop:
				mu.Lock()
				end = len(rec)
				mu.Unlock()
				close(stopped)
				return
			case s.typed:
				for _, r := range s.send {
					_, _ = io.WriteString(f, string(r))
					time.Sleep(40 * time.Millisecond)
				}
			default:
				_, _ = io.WriteString(f, s.send)
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-stopped:
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-exited
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
	if end >= 0 {
		rec = rec[:end]
	}
	if err := os.WriteFile(*out, rec, 0o644); err != nil {
		return fmt.Errorf("write recording: %w", err)
	}
	if len(resizes) > 0 {
		if err := os.WriteFile(*out+".resize", []byte(strings.Join(resizes, "\n")+"\n"), 0o644); err != nil {
			return fmt.Errorf("write resizes: %w", err)
		}
	}
	fmt.Fprintf(os.Stderr, "vtrecord: %d bytes to %s\n", len(rec), *out)
	return nil
}

type step struct {
	sleep      time.Duration
	send       string
	wait       string
	typed      bool // send a character at a time
	stop       bool
	cols, rows int
}

// screenHas says whether the emulator's screen shows text.
func screenHas(em *vt.Emulator, text string) bool {
	_, rows := em.Size()
	for y := 0; y < rows; y++ {
		if strings.Contains(string(em.AppendLine(nil, y, false)), text) {
			return true
		}
	}
	return false
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
		case "wait":
			text, err := strconv.Unquote(arg)
			if err != nil {
				return nil, fmt.Errorf("script wait %s: %w", arg, err)
			}
			steps = append(steps, step{wait: text})
		case "resize":
			var c, r int
			if _, err := fmt.Sscanf(arg, "%dx%d", &c, &r); err != nil || c < 1 || r < 1 {
				return nil, fmt.Errorf("script resize %q: want COLSxROWS", arg)
			}
			steps = append(steps, step{cols: c, rows: r})
		case "stop":
			steps = append(steps, step{stop: true})
		case "type":
			text, err := strconv.Unquote(arg)
			if err != nil {
				return nil, fmt.Errorf("script type %s: %w", arg, err)
			}
			steps = append(steps, step{send: text, typed: true})
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
