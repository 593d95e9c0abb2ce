package interactive

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/ptyio"
	"github.com/okstra/cockpit/panes/vt"
)

// A vtTerm is a real terminal for a program: a PTY whose output the test
// reads through the cockpit's emulator (panes/vt), answering the
// program's queries (device attributes, cursor position, colours) as a
// terminal does. It is what a person's terminal is to the cockpit or to a
// tmux client.
type vtTerm struct {
	ptm  *os.File
	cmd  *exec.Cmd
	done chan struct{} // closed when the reader stops

	mu   sync.Mutex
	emu  *vt.Emulator
	line []byte
	// want, when set, is checked after every read; the first time it
	// holds, the time of that read goes to seen and want is cleared.
	want func(scr []string) bool
	seen chan time.Time
}

// startTerm runs argv (no shell) in dir with exactly env on a new PTY of
// cols×rows, as its session's controlling terminal. The program gets
// SIGTERM when the test ends (SIGKILL 10 s later).
func startTerm(t testing.TB, dir string, env []string, cols, rows int, argv ...string) *vtTerm {
	t.Helper()
	ptm, tty, err := ptyio.Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := ptyio.SetSize(ptm, cols, rows); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		_ = ptm.Close()
		_ = tty.Close()
		t.Fatalf("start %s: %v", argv[0], err)
	}
	_ = tty.Close()
	vtt := &vtTerm{ptm: ptm, cmd: cmd, done: make(chan struct{}), emu: vt.New(cols, rows), seen: make(chan time.Time, 1)}
	vtt.emu.SetCallbacks(func(p []byte) { _, _ = ptm.Write(p) }, nil)
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	go vtt.read()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		_ = ptm.Close()
		<-vtt.done
	})
	return vtt
}

func (v *vtTerm) read() {
	defer close(v.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := v.ptm.Read(buf)
		if n > 0 {
			at := time.Now()
			v.mu.Lock()
			_, _ = v.emu.Write(buf[:n])
			if v.want != nil && v.want(v.screenLocked()) {
				v.want = nil
				v.seen <- at
			}
			v.mu.Unlock()
		}
		if err != nil {
			// EIO once the program and its children closed the PTY;
			// ErrClosed when the test did.
			if errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EIO) || n == 0 {
				return
			}
		}
	}
}

// screenLocked is the screen, one string a row, trailing blanks trimmed.
func (v *vtTerm) screenLocked() []string {
	_, rows := v.emu.Size()
	scr := make([]string, rows)
	for y := range scr {
		v.line = v.emu.AppendLine(v.line[:0], y, false)
		scr[y] = strings.TrimRight(string(v.line), " ")
	}
	return scr
}

func (v *vtTerm) screen() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.screenLocked()
}

// expect arms want: the next read after which the screen satisfies it is
// reported by seen. It also checks the screen as it is now (a match that
// is already there reports now).
func (v *vtTerm) expect(want func(scr []string) bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	select {
	case <-v.seen: // a report nobody collected
	default:
	}
	if want(v.screenLocked()) {
		v.seen <- time.Now()
		return
	}
	v.want = want
}

// waitFor waits up to d for the screen to satisfy ok, failing t with the
// screen if it does not.
func (v *vtTerm) waitFor(t testing.TB, d time.Duration, what string, ok func(scr []string) bool) {
	t.Helper()
	v.expect(ok)
	select {
	case <-v.seen:
	case <-time.After(d):
		v.mu.Lock()
		v.want = nil
		v.mu.Unlock()
		t.Fatalf("waited %v for %s; screen:\n%s", d, what, strings.Join(v.screen(), "\n"))
	}
}

func (v *vtTerm) write(t testing.TB, p []byte) {
	t.Helper()
	if _, err := v.ptm.Write(p); err != nil {
		t.Fatal(err)
	}
}
