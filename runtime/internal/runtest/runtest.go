// Package runtest holds the test helpers the runtime packages share: runs
// laid out on disk (the fixture run, a run of n started dispatches), a short
// temp dir for unix sockets, and zombie processes. Tests only.
package runtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/state"
)

// ShortDir is a temp dir with a short path: unix socket paths are limited
// to 107 bytes and test names make t.TempDir() long (testenv.ShortDir:
// short even under a long $TMPDIR).
func ShortDir(t testing.TB) string {
	t.Helper()
	return testenv.ShortDir(t)
}

// FixtureRun is a copy of the fixture run on the given terminal backend.
func FixtureRun(t testing.TB, backend string) *state.Run {
	t.Helper()
	root := fixture.Copy(t)
	fixture.SetTerminalBackend(t, root, backend)
	run, err := state.LoadRun(root, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// StartedRun lays out a pane run with n in-progress dispatches whose
// sidecars say "started" (by this live process), and returns the sidecars'
// paths.
func StartedRun(tb testing.TB, n int) (*state.Run, []string) {
	tb.Helper()
	root := tb.TempDir()
	manifest := `{"executionIdentityVersion":1,"taskKey":"bench","taskType":"t","runSeq":"001","teamStatePath":"run/state/team-state.json","leadEventsPath":"run/state/lead-events.jsonl","terminalBackend":"cockpit-pane"}`
	os.MkdirAll(filepath.Join(root, "run/state"), 0o755)
	os.MkdirAll(filepath.Join(root, "run/prompts"), 0o755)
	os.WriteFile(filepath.Join(root, "run/state/run-manifest.json"), []byte(manifest), 0o644)
	run, err := state.LoadRun(root, "run/state/run-manifest.json")
	if err != nil {
		tb.Fatal(err)
	}
	var sidecars []string
	err = run.UpdateTeamState(context.Background(), func(ts *state.TeamState) error {
		for i := 0; i < n; i++ {
			prompt := fmt.Sprintf("run/prompts/w%03d.md", i)
			sp := filepath.Join(root, state.SidecarPath(prompt))
			sidecars = append(sidecars, sp)
			if err := state.WriteSidecar(sp, &state.Sidecar{Status: state.StatusStarted, Wrapper: "bench", PID: os.Getpid(), StartedAt: "2026-11-29T10:00:00Z"}); err != nil {
				return err
			}
			ts.WorkerDispatches = append(ts.WorkerDispatches, state.Dispatch{
				DispatchID: fmt.Sprintf("dispatch-%03d", i+1), DispatchKind: state.DispatchInitial, Role: "W", PromptPath: prompt,
				StatusPath: state.SidecarPath(prompt), Status: state.StatusInProgress, DispatchedAt: "2026-11-29T10:00:00Z",
			})
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return run, sidecars
}

// StartZombie starts a child that exits at once when killed, and leaves it
// unreaped: until reap is called it is a zombie, which kill(pid, 0) still
// finds.
func StartZombie(t testing.TB) (pid int, kill func(), reap func()) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := false
	reap = func() {
		if !reaped {
			reaped = true
			cmd.Wait()
		}
	}
	t.Cleanup(func() { cmd.Process.Kill(); reap() })
	kill = func() {
		if err := syscall.Kill(cmd.Process.Pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	return cmd.Process.Pid, kill, reap
}
