package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/state"
)

// TestWorkerDispatchExitsWithTheSignal runs worker-dispatch on a batch of
// three fake CLIs that hang, signals it once every CLI has printed its first
// line, and checks that it exits 128+signal (143 for SIGTERM, 130 for
// SIGINT, as the worker wrapper and the other commands do) with one line,
// still prints the settled batch, and leaves every dispatch and sidecar
// terminal.
func TestWorkerDispatchExitsWithTheSignal(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{
		{syscall.SIGTERM, 143, "SIGTERM"},
		{syscall.SIGINT, 130, "SIGINT"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := fixture.Copy(t)
			for _, p := range []string{fixture.CodexPrompt, fixture.AntigravityPrompt, fixture.ClaudePrompt} {
				fixture.SetBehaviour(t, root, p, "hang")
			}
			cmd := exec.Command(cockpitBin, runArgs(root, "worker-dispatch", "--jobs-file", fixture.JobsInitial)...)
			cmd.Dir = root
			cmd.Env = append(cleanEnv(), "PATH="+fixture.PathWith(fixture.FakeBin(t)))
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() {
				if cmd.ProcessState == nil {
					cmd.Process.Kill()
					<-exited
				}
			})
			tsPath := filepath.Join(root, fixture.TeamState)
			waitFor(t, "every fake CLI to print its first line", 20*time.Second, func() bool {
				ts, err := state.ReadTeamState(tsPath, "team-state")
				if err != nil || len(ts.WorkerDispatches) != 3 {
					return false
				}
				for _, d := range ts.WorkerDispatches {
					log, _ := os.ReadFile(filepath.Join(root, d.LogPath))
					if d.LogPath == "" || !strings.Contains(string(log), "fake: cwd=") {
						return false
					}
				}
				return true
			})
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			var err error
			select {
			case err = <-exited:
			case <-time.After(30 * time.Second):
				t.Fatalf("worker-dispatch still runs 30s after %s", c.name)
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != c.code {
				t.Fatalf("worker-dispatch ended with %v after %s, want exit %d; stderr %q", err, c.name, c.code, errb.String())
			}
			if want := "cockpit worker-dispatch: interrupted by " + c.name + "\n"; errb.String() != want {
				t.Fatalf("stderr %q, want %q", errb.String(), want)
			}
			var res dispatchOutput
			if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res.Dispatches) != 3 {
				t.Fatalf("stdout is not the settled batch (%v):\n%s", err, out.String())
			}
			ts := readTeamState(t, root)
			allTerminalWithReasons(t, ts)
			for _, d := range ts.WorkerDispatches {
				if d.Status != "error" || !strings.Contains(d.Reason, c.name) {
					t.Errorf("%s: %s (%q); want error naming %s", d.DispatchID, d.Status, d.Reason, c.name)
				}
				sc, err := state.ReadSidecar(filepath.Join(root, state.SidecarPath(d.PromptPath)), "sidecar")
				if err != nil || !state.IsTerminal(sc.Status) {
					t.Errorf("%s: sidecar %+v (%v) is not terminal", d.DispatchID, sc, err)
				}
			}
		})
	}
}

// TestTeamAwaitExitsWithTheSignal: team await, interrupted while it waits
// for hanging workers, exits 128+signal with one line.
func TestTeamAwaitExitsWithTheSignal(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root := fixture.Copy(t)
	for _, p := range []string{fixture.CodexPrompt, fixture.AntigravityPrompt, fixture.ClaudePrompt} {
		fixture.SetBehaviour(t, root, p, "hang")
	}
	env := append(cleanEnv(), "PATH="+fixture.PathWith(fixture.FakeBin(t)))
	bg := exec.Command(cockpitBin, runArgs(root, "worker-dispatch", "--jobs-file", fixture.JobsInitial)...)
	bg.Dir, bg.Env = root, env
	if err := bg.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		bg.Process.Signal(syscall.SIGTERM)
		bg.Wait()
	})
	waitFor(t, "the batch to be recorded", 20*time.Second, func() bool {
		ts, err := state.ReadTeamState(filepath.Join(root, fixture.TeamState), "team-state")
		return err == nil && len(ts.WorkerDispatches) == 3
	})
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{
		{syscall.SIGTERM, 143, "SIGTERM"},
		{syscall.SIGINT, 130, "SIGINT"},
	} {
		cmd := exec.Command(cockpitBin, runArgs(root, "team", "await")...)
		cmd.Dir, cmd.Env = root, env
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// It waits once it watches the run's files (an inotify descriptor),
		// which it opens after its signal handling is in place.
		waitFor(t, "team await to watch the run", 20*time.Second, func() bool { return hasInotify(cmd.Process.Pid) })
		cmd.Process.Signal(c.sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != c.code {
			t.Fatalf("team await ended with %v after %s, want exit %d; stderr %q", err, c.name, c.code, errb.String())
		}
		if want := "cockpit team await: interrupted by " + c.name + "\n"; errb.String() != want {
			t.Fatalf("stderr %q, want %q", errb.String(), want)
		}
	}
}

// hasInotify reports whether process pid holds an inotify descriptor.
func hasInotify(pid int) bool {
	fds, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "fd", fd.Name())); err == nil && l == "anon_inode:inotify" {
			return true
		}
	}
	return false
}

// TestSignalContextCarriesTheSignal: the root context, once something
// waits on it, is cancelled by a stop signal with that signal as its cause
// (what Main turns into 128+signal and the worker wrapper's batch names).
func TestSignalContextCarriesTheSignal(t *testing.T) {
	sc := newSignalContext(context.Background())
	defer sc.stop()
	done := sc.Done()
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("SIGHUP did not cancel the context")
	}
	if !errors.Is(sc.Err(), context.Canceled) || signalOf(sc) != syscall.SIGHUP {
		t.Fatalf("err %v, cause %v; want context.Canceled caused by SIGHUP", sc.Err(), context.Cause(sc))
	}
	var carrier interface{ Signal() os.Signal }
	if !errors.As(context.Cause(sc), &carrier) || carrier.Signal() != syscall.SIGHUP {
		t.Fatalf("the cause %v does not name its signal to the engine", context.Cause(sc))
	}
	var out, errb bytes.Buffer
	if code := exitFor(sc, "cockpit", nil, sc.Err(), &errb); code != 129 || errb.String() != "cockpit: interrupted by SIGHUP\n" || out.Len() != 0 {
		t.Fatalf("exit %d, %q; want 129 and one line", code, errb.String())
	}
}

// TestSignalContextWatchesOnlyOnceWaitedOn: a command that never waits
// installs no handler (stop then has nothing to release), and a derived
// context starts the watch as a wait does.
func TestSignalContextWatchesOnlyOnceWaitedOn(t *testing.T) {
	quick := newSignalContext(context.Background())
	quick.stop()
	if quick.ch != nil {
		t.Fatal("a context nobody waited on caught signals")
	}
	waits := newSignalContext(context.Background())
	ctx, cancel := context.WithTimeout(waits, time.Minute)
	defer cancel()
	if waits.ch == nil {
		t.Fatal("deriving a context did not start the watch")
	}
	waits.stop()
	if ctx.Err() == nil || signalOf(ctx) != 0 {
		t.Fatalf("after stop: %v (signal %d)", ctx.Err(), signalOf(ctx))
	}
}
