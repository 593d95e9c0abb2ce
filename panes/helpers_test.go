package panes

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// helperBin is the testdata/panes/helper program, built once by TestMain.
var helperBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "panes-helper-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "make temp dir:", err)
		os.Exit(1)
	}
	helperBin = filepath.Join(dir, "helper")
	// go test puts its own GOROOT/bin first in PATH.
	goBin, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintln(os.Stderr, "find the go command to build the helper:", err)
		os.Exit(1)
	}
	build := exec.Command(goBin, "build", "-o", helperBin, "../testdata/panes/helper")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build helper: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// waitFor polls cond until it holds or the deadline passes. Tests wait on
// conditions, never on fixed sleeps, so they are as fast as the machine and
// only fail when the condition truly never comes.
func waitFor(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
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
	deadline := time.Now().Add(10 * time.Second)
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
	deadline := time.Now().Add(5 * time.Second)
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
