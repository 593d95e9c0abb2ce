package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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
