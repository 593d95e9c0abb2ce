package team

import (
	"context"
	"testing"
	"time"

	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// The worker dies and its parent does not reap it before the wait looks:
// the wait must still report it dead, not sleep until its timeout.
func TestLivenessWaitSeesAnUnreapedWorkerDead(t *testing.T) {
	run, sp := livenessRun(t)
	pid, kill, _ := runtest.StartZombie(t)
	state.WriteSidecar(sp, &state.Sidecar{Status: "started", PID: pid})
	type out struct {
		rep *LivenessReport
		err error
	}
	done := make(chan out, 1)
	go func() {
		rep, err := Liveness(context.Background(), run.Root, run.TeamStatePath, "team-state", "dispatch-001", true, 20*time.Second)
		done <- out{rep, err}
	}()
	kill()
	select {
	case o := <-done:
		if o.err != nil || o.rep.Liveness != Dead {
			t.Fatalf("after the kill: %+v %v", o.rep, o.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("--wait did not notice the unreaped worker's death")
	}
}

// team await settles a dispatch whose wrapper died unreaped.
func TestAwaitSettlesAnUnreapedWorker(t *testing.T) {
	run, sidecars := runtest.StartedRun(t, 1)
	pid, kill, _ := runtest.StartZombie(t)
	state.WriteSidecar(sidecars[0], &state.Sidecar{Status: "started", PID: pid})
	done := make(chan error, 1)
	var res *AwaitResult
	go func() {
		var err error
		res, err = Await(context.Background(), run, 20*time.Second)
		done <- err
	}()
	kill()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
		if res.Counts != (view.Counts{Pending: 0, Done: 1}) || res.Dispatches[0].Status != "error" {
			t.Fatalf("await: %+v %+v", res.Counts, res.Dispatches)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("team await did not notice the unreaped worker's death")
	}
}
