package team

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/state"
)

// livenessRun records one dispatch whose sidecar the test then writes.
func livenessRun(t *testing.T) (*state.Run, string) {
	t.Helper()
	run, _ := runtest.StartedRun(t, 1)
	sp := filepath.Join(run.Root.Dir(), state.SidecarPath("run/prompts/w000.md"))
	return run, sp
}

func TestLivenessAliveDoneDead(t *testing.T) {
	run, sp := livenessRun(t)
	check := func(want string) *LivenessReport {
		t.Helper()
		rep, err := Liveness(context.Background(), run.Root, run.TeamStatePath, "team-state", "dispatch-001", false, 0)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Liveness != want {
			t.Fatalf("liveness %s (%+v), want %s", rep.Liveness, rep, want)
		}
		return rep
	}
	// started by this live process: alive
	check(Alive)
	// started by a process that is gone: dead, with the reason
	gone := exec.Command("true")
	gone.Run()
	state.WriteSidecar(sp, &state.Sidecar{Status: "started", PID: gone.Process.Pid})
	if rep := check(Dead); rep.Reason == "" {
		t.Fatal("dead without a reason")
	}
	// terminal: done
	zero := 0
	state.WriteSidecar(sp, &state.Sidecar{Status: "completed", PID: os.Getpid(), ExitCode: &zero})
	check(Done)
	if _, err := Liveness(context.Background(), run.Root, run.TeamStatePath, "team-state", "dispatch-404", false, 0); err == nil {
		t.Fatal("an unknown dispatch id was accepted")
	}
}

func TestLivenessWaitWakesOnTheSidecarAndOnExit(t *testing.T) {
	t.Parallel() // waits on a worker it kills
	run, sp := livenessRun(t)
	worker := exec.Command("sleep", "30")
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	defer worker.Process.Kill()
	state.WriteSidecar(sp, &state.Sidecar{Status: "started", PID: worker.Process.Pid})
	type out struct {
		rep *LivenessReport
		err error
	}
	done := make(chan out, 1)
	go func() {
		rep, err := Liveness(context.Background(), run.Root, run.TeamStatePath, "team-state", "dispatch-001", true, 20*time.Second)
		done <- out{rep, err}
	}()
	select {
	case o := <-done:
		t.Fatalf("--wait returned while the worker lives: %+v %v", o.rep, o.err)
	case <-time.After(300 * time.Millisecond):
	}
	// The worker dies without writing its terminal sidecar (SIGKILL): the
	// wait wakes on the process exit, not on a timer.
	worker.Process.Kill()
	worker.Wait()
	select {
	case o := <-done:
		if o.err != nil || o.rep.Liveness != Dead {
			t.Fatalf("after the kill: %+v %v", o.rep, o.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("--wait did not notice the worker's death")
	}
	// Timing out says so.
	state.WriteSidecar(sp, &state.Sidecar{Status: "started", PID: os.Getpid()})
	_, err := Liveness(context.Background(), run.Root, run.TeamStatePath, "team-state", "dispatch-001", true, 200*time.Millisecond)
	if err != ErrAwaitTimeout {
		t.Fatalf("timeout: %v", err)
	}
}
