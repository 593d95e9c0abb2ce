package runtime

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/state"
)

// startZombie starts a child that exits at once when killed, and leaves it
// unreaped: until reap is called it is a zombie, which kill(pid, 0) still
// finds.
func startZombie(t *testing.T) (pid int, kill func(), reap func()) {
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

// waitZombie blocks until pid has exited but is not reaped (its /proc
// state is Z), using waitid with WNOWAIT, which leaves the child a zombie.
func waitZombie(t *testing.T, pid int) {
	t.Helper()
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatalf("waitid(WNOWAIT) %d: %v", pid, err)
		}
		break
	}
	if syscall.Kill(pid, 0) != nil {
		t.Fatalf("pid %d is not a zombie: kill(pid, 0) fails", pid)
	}
}

func TestProcessAliveSaysAZombieIsGone(t *testing.T) {
	pid, kill, _ := startZombie(t)
	if !ProcessAlive(pid) {
		t.Fatal("a running child is not alive")
	}
	kill()
	waitZombie(t, pid)
	if ProcessAlive(pid) {
		t.Fatalf("pid %d exited (a zombie not yet reaped) but ProcessAlive says alive", pid)
	}
}

// The worker dies and its parent does not reap it before the wait looks:
// the wait must still report it dead, not sleep until its timeout.
func TestLivenessWaitSeesAnUnreapedWorkerDead(t *testing.T) {
	run, sp := livenessRun(t)
	pid, kill, _ := startZombie(t)
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
	run, sidecars := latencyRun(t, 1)
	pid, kill, _ := startZombie(t)
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
		if res.Counts != (Counts{Pending: 0, Done: 1}) || res.Dispatches[0].Status != "error" {
			t.Fatalf("await: %+v %+v", res.Counts, res.Dispatches)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("team await did not notice the unreaped worker's death")
	}
}
