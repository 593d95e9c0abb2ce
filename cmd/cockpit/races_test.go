package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/tui/attach"
)

// Issue 19, small races.

// TestTwinServeNamesTheWinner: of two serve on one run, the loser names
// the winner's pid. The winner writes its pid into the socket's lock file
// just after taking the lock; a loser that came in between read an empty
// file and said "(pid )". Here the test is the winner: it holds the lock
// with the file empty and writes its pid once the loser has opened the
// file; the loser waits for it. A winner that never writes it (a stuck
// one) reads as "(pid unknown)" after 2 s, never "(pid )".
func TestTwinServeNamesTheWinner(t *testing.T) {
	t.Parallel()
	for _, writes := range []bool{true, false} {
		root, env := paneRun(t)
		sock := strings.TrimPrefix(env[0], "COCKPIT_SOCKET=")
		lock, err := os.OpenFile(sock+".lock", os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Close()
		if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
			t.Fatal(err)
		}
		in, err := unix.InotifyInit1(unix.IN_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(in)
		if _, err := unix.InotifyAddWatch(in, sock+".lock", unix.IN_OPEN); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(cockpitBin, runArgs(root, "serve")...)
		cmd.Dir, cmd.Env = root, append(cockpitEnv(t, env), "COCKPIT_REGISTRY="+engineRegistry(t))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if writes {
			buf := make([]byte, 4096)
			if _, err := unix.Read(in, buf); err != nil { // the loser opened the lock file
				t.Fatal(err)
			}
			if _, err := lock.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
				t.Fatal(err)
			}
		}
		err = cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 1 {
			t.Fatalf("the losing serve exited %d (%v): %s", code, err, stderr.String())
		}
		pid := "unknown"
		if writes {
			pid = strconv.Itoa(os.Getpid())
		}
		want := fmt.Sprintf("cockpit serve: a cockpit is already serving this run (pid %s) at ", pid)
		if !strings.HasPrefix(stderr.String(), want) {
			t.Fatalf("the losing serve says %q, want %q…", stderr.String(), want)
		}
	}
}

// TestKilledEngineLeavesNoShim: an engine with a lead puts the lead's okstra
// shim in the run's state directory, so one killed with SIGKILL leaves
// nothing in the temp dir (before: a /tmp/cockpit-okstra-* per kill); the
// next engine replaces the shim, and a clean end removes it.
func TestKilledEngineLeavesNoShim(t *testing.T) {
	t.Parallel()
	root, env := paneRun(t)
	tmp := t.TempDir()
	env = append(env, "TMPDIR="+tmp, "XDG_RUNTIME_DIR="+tmp, "COCKPIT_REGISTRY="+engineRegistry(t))
	shim := filepath.Join(root, fixture.RunDir, "state", shimDirName, okstraName)
	serve := func() *exec.Cmd {
		cmd := exec.Command(cockpitBin, append(runArgs(root, "serve"), "--", "sleep", "600")...)
		cmd.Dir, cmd.Env = root, cockpitEnv(t, env)
		errp, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		serving := make(chan struct{})
		go func() {
			sc := bufio.NewScanner(errp)
			for sc.Scan() {
				if strings.Contains(sc.Text(), "cockpit serve: serving") {
					close(serving)
				}
			}
		}()
		select {
		case <-serving:
		case <-time.After(20 * time.Second):
			t.Fatal("cockpit serve did not start")
		}
		if target, err := os.Readlink(shim); err != nil || target != cockpitBin {
			t.Fatalf("the lead's okstra shim %s: %q, %v", shim, target, err)
		}
		return cmd
	}
	first := serve()
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	if left, _ := filepath.Glob(filepath.Join(tmp, "cockpit-okstra-*")); len(left) != 0 {
		t.Fatalf("a killed engine left %v in the temp dir", left)
	}
	second := serve() // replaces the dead engine's shim
	second.Process.Signal(syscall.SIGTERM)
	if err := second.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v", err)
	}
	if _, err := os.Lstat(filepath.Dir(shim)); !os.IsNotExist(err) {
		t.Errorf("a clean end left the shim directory (%v)", err)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "cockpit-okstra-*")); len(left) != 0 {
		t.Fatalf("the engines left %v in the temp dir", left)
	}
}

// TestTwinOpenSaysItsLeadIsIgnored: when open finds no engine and starts
// one, but another open started one first (its engine lost the race for
// the socket: ErrServing), it attaches to the winner's engine, whose lead
// is not the one it was given, and says so — before, only an open that
// found the engine already there said it. The twin here is a real serve
// started in the spawn step, with the losing engine's own error.
func TestTwinOpenSaysItsLeadIsIgnored(t *testing.T) {
	t.Parallel()
	root, env := paneRun(t)
	env = append(env, "COCKPIT_REGISTRY="+engineRegistry(t))
	sock := strings.TrimPrefix(env[0], "COCKPIT_SOCKET=")
	var errw bytes.Buffer
	o := &OpenOptions{IO: &IOStreams{Out: &bytes.Buffer{}, Err: &errw}, Ctx: t.Context(), Lead: []string{"claude"}, LeadGiven: true}
	var twin *server
	spawn := func() error {
		twin = startServe(t, root, env)
		return fmt.Errorf("%w (pid %d) at %s; use that cockpit, or stop it first", control.ErrServing, twin.cmd.Process.Pid, sock)
	}
	conn, hello, err := openEngine(o, sock, attach.Params{Cols: 80, Rows: 24}, spawn)
	if err != nil {
		t.Fatalf("open after losing the race: %v", err)
	}
	conn.Close()
	if twin == nil || hello.PID != twin.cmd.Process.Pid {
		t.Fatalf("attached to pid %d, not the twin's engine", hello.PID)
	}
	want := fmt.Sprintf("cockpit open: an engine already serves this run (pid %d); attaching to it, the lead command is ignored (it is only used when an engine starts)\n", hello.PID)
	if errw.String() != want {
		t.Fatalf("open said %q, want %q", errw.String(), want)
	}
	// An open that started the engine itself says nothing of the kind.
	errw.Reset()
	if _, _, err := openEngine(o, sock+".none", attach.Params{Cols: 80, Rows: 24}, func() error { return errors.New("cannot start") }); err == nil || err.Error() != "cannot start" || errw.Len() != 0 {
		t.Fatalf("a failed start: %v, said %q", err, errw.String())
	}
}
