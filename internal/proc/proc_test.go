package proc

import (
	"bufio"
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
)

// child starts sh running script in a process group of its own and waits
// for its "ready" line (its traps are set by then). The test reaps it.
func child(t *testing.T, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("the child said %q, %v", line, err)
	}
	return cmd
}

// TestEscalate runs the cockpit's escalation against real processes, as
// a process group and as a process held by its pidfd: each gets only the
// signals it takes to end it, and a child that already exited (a zombie,
// which kill(pid, 0) still finds) gets none.
func TestEscalate(t *testing.T) {
	cases := []struct {
		name   string
		script string // "" : exits at once
		want   syscall.Signal
	}{
		{"ends on SIGHUP", "echo ready; exec sleep 60", syscall.SIGHUP},
		{"ignores SIGHUP", `trap "" HUP; echo ready; exec sleep 60`, syscall.SIGTERM},
		{"ignores SIGTERM", `trap "" TERM; echo ready; exec sleep 60`, syscall.SIGHUP},
		{"ignores SIGHUP and SIGTERM", `trap "" HUP TERM; echo ready; exec sleep 60`, syscall.SIGKILL},
		{"exits at once", "", 0},
	}
	targets := []struct {
		name string
		of   func(t *testing.T, pid int) Target
	}{
		{"group", func(_ *testing.T, pid int) Target { return Group(pid) }},
		{"pidfd", func(t *testing.T, pid int) Target {
			p, err := Open(pid)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			return p
		}},
	}
	for _, tg := range targets {
		for _, c := range cases {
			t.Run(tg.name+"/"+c.name, func(t *testing.T) {
				t.Parallel() // a child in a group of its own; it waits out the graces
				var cmd *exec.Cmd
				if c.script == "" {
					cmd = child(t, "echo ready; exit 0")
					testenv.WaitZombie(t, cmd.Process.Pid)
					if syscall.Kill(cmd.Process.Pid, 0) != nil {
						t.Fatal("the exited child is not a zombie")
					}
				} else {
					cmd = child(t, c.script)
				}
				target := tg.of(t, cmd.Process.Pid)
				// The signal that ends the child gets a long grace (it is
				// gone as soon as it dies, loaded machine or not); the ones it
				// ignores a short one.
				steps := Steps(100*time.Millisecond, 100*time.Millisecond)
				for i := range steps {
					if steps[i].Sig == c.want {
						steps[i].Grace = testenv.Scale(10 * time.Second)
					}
				}
				r := Escalate(context.Background(), target, steps)
				if !r.Gone || r.Sent != c.want {
					t.Fatalf("escalation ended %+v, want gone after %v", r, c.want)
				}
				if err := cmd.Wait(); c.script != "" {
					ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
					if err == nil || !ws.Signaled() || ws.Signal() != c.want {
						t.Fatalf("the child ended %v, want by %v", cmd.ProcessState, c.want)
					}
				}
			})
		}
	}
}

// TestEscalateStopsWithItsContext: an ended context ends the wait, the
// target kept.
func TestEscalateStopsWithItsContext(t *testing.T) {
	cmd := child(t, `trap "" HUP TERM; echo ready; exec sleep 60`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := Escalate(ctx, Group(cmd.Process.Pid), Steps(time.Hour, time.Hour))
	if r.Gone || r.Sent != syscall.SIGHUP || !GroupLive(cmd.Process.Pid) {
		t.Fatalf("escalation with an ended context: %+v", r)
	}
}

// TestEscalation steps an escalation as an event loop does: the grace
// fires C, Next goes on; calling Next early insists.
func TestEscalation(t *testing.T) {
	cmd := child(t, `trap "" HUP TERM; echo ready; exec sleep 60`)
	p, err := Open(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var none *Escalation
	if none.C() != nil || none.Sent() != 0 {
		t.Fatal("an escalation not begun has a grace pending")
	}
	none.Stop()
	e := Begin(p, []Step{{syscall.SIGHUP, 50 * time.Millisecond}, {syscall.SIGTERM, time.Hour}, {syscall.SIGKILL, 0}})
	if e.Sent() != syscall.SIGHUP || e.C() == nil {
		t.Fatalf("begun: sent %v", e.Sent())
	}
	<-e.C() // the grace is over: go on
	if !e.Next() || e.Sent() != syscall.SIGTERM {
		t.Fatalf("after the grace: sent %v", e.Sent())
	}
	if p.Wait(context.Background(), 0) {
		t.Fatal("gone after SIGHUP and SIGTERM it ignores")
	}
	// Insist, without waiting the hour.
	if !e.Next() || e.Sent() != syscall.SIGKILL || e.C() != nil {
		t.Fatalf("insisting: sent %v", e.Sent())
	}
	if !p.Wait(context.Background(), 5*time.Second) {
		t.Fatal("not gone after SIGKILL")
	}
	if e.Next() {
		t.Fatal("a step after the last")
	}
}

// TestEscalationZeroGraceStepsOn: a step with no grace before another
// (COCKPIT_KILL_GRACE=0) fires at once; it never leaves the escalation
// waiting on a nil channel with SIGKILL unsent.
func TestEscalationZeroGraceStepsOn(t *testing.T) {
	cmd := child(t, `trap "" TERM; echo ready; exec sleep 60`)
	p, err := Open(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	e := Begin(p, []Step{{syscall.SIGTERM, 0}, {syscall.SIGKILL, 0}})
	if e.C() == nil {
		t.Fatal("a zero grace before SIGKILL armed nothing: the kill would never come")
	}
	select {
	case <-e.C():
	case <-time.After(testenv.Scale(5 * time.Second)):
		t.Fatal("a zero grace did not fire")
	}
	if !e.Next() || e.Sent() != syscall.SIGKILL {
		t.Fatalf("after the zero grace: sent %v", e.Sent())
	}
	if !p.Wait(context.Background(), testenv.Scale(5*time.Second)) {
		t.Fatal("not gone after SIGKILL")
	}
}

// TestProcessWithoutAPidfd: where pidfd_open is refused (ENOSYS, EPERM)
// Open holds the process by its pid; the escalation still ends it.
func TestProcessWithoutAPidfd(t *testing.T) {
	cmd := child(t, `trap "" HUP TERM; echo ready; exec sleep 60`)
	p := &Process{PID: cmd.Process.Pid, fd: -1}
	defer p.Close()
	reaped := make(chan struct{})
	go func() { _ = cmd.Wait(); close(reaped) }() // reaped once killed, so kill(pid, 0) says gone
	defer func() { _ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL); <-reaped }()
	if p.Wait(context.Background(), 0) {
		t.Fatal("a running process reads as gone")
	}
	Escalate(context.Background(), p, []Step{{syscall.SIGTERM, 100 * time.Millisecond}, {syscall.SIGKILL, testenv.Scale(5 * time.Second)}})
	if !p.Wait(context.Background(), testenv.Scale(5*time.Second)) {
		t.Fatal("not gone after the escalation")
	}
	if err := p.Signal(syscall.SIGTERM); err != ErrGone {
		t.Fatalf("signal after the end: %v, want ErrGone", err)
	}
}
