package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestWizardEndsWithItsTerminal (issue 17 item 10): `cockpit wizard` on a
// real PTY ends when the terminal closes under it. With the PTY its
// controlling terminal, closing the master sends it SIGHUP and hangs the
// terminal up: it exits 129 or 1, whichever it sees first (before, the
// cockpit's signal handler caught SIGHUP and the form ran on a dead pty;
// four orphans piled up). Without a controlling terminal no signal comes:
// reads return end of file (writes EIO), and the form, which took that for
// no more keys, ran on; it sees the hang-up (POLLHUP) and exits 1.
func TestWizardEndsWithItsTerminal(t *testing.T) {
	t.Parallel()
	project, _ := filepath.Abs("../../workers/setup/testdata/project")
	cfg := t.TempDir()
	for _, c := range []struct {
		name  string
		ctty  bool
		codes []int
		field string
	}{{"hang-up", true, []int{129, 1}, "SIGHUP"}, {"EIO", false, []int{1}, "EIO"}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			master, tty, err := pty.Open()
			if err != nil {
				t.Fatal(err)
			}
			pty.Setsize(master, &pty.Winsize{Cols: 80, Rows: 24})
			cmd := exec.Command(cockpitBin, "wizard", "--project-root", project, "--lang", "en")
			cmd.Env = cockpitEnv(t, []string{"XDG_CONFIG_HOME=" + cfg, "HOME=" + cfg, "NO_COLOR=1", "TERM=xterm-256color"})
			cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: c.ctty, Ctty: 0}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			tty.Close()
			// Read until the form is up, then stop reading: a read still
			// blocked on the master would hold it open past Close, and the
			// terminal would not hang up until the wizard next wrote.
			up := make(chan error, 1)
			go func() {
				var screen bytes.Buffer
				buf := make([]byte, 4096)
				for {
					n, err := master.Read(buf)
					screen.Write(buf[:max(n, 0)])
					if bytes.Contains(screen.Bytes(), []byte("1/13")) {
						up <- nil
						return
					}
					if err != nil {
						up <- fmt.Errorf("%v after %q", err, screen.String())
						return
					}
				}
			}()
			select {
			case err := <-up:
				if err != nil {
					t.Fatalf("the wizard's first step: %v", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the wizard's first step did not show")
			}
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			master.Close() // the terminal closes
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("the wizard ran on after its terminal closed (%s)", c.field)
			}
			if got := cmd.ProcessState.ExitCode(); !slices.Contains(c.codes, got) {
				t.Fatalf("the wizard exited %d after its terminal closed (%s), want %v", got, c.field, c.codes)
			}
		})
	}
}
