package team

import (
	"context"
	"errors"
	"fmt"
	"github.com/okstra/cockpit/runtime/lifecycle"
	"os"
	"os/exec"
	"syscall"

	"github.com/okstra/cockpit/state"
)

// DispatchResult is what worker-dispatch and team dispatch report.
type DispatchResult struct {
	Dispatches []state.Dispatch
	Lines      []string
	Unrecorded []string // team dispatch on a non-pane run (lifecycle.Recorder.Unrecorded)
	// Panes says worker-dispatch ran the batch in the cockpit's panes
	// (WorkerDispatchInPanes), not as child processes.
	Panes bool
	// Signal is the signal that interrupted the batch (RunCLIWrapper: the
	// cause of ctx's end, see SignalOf), 0 when none did.
	Signal syscall.Signal
}

// SignalOf is the signal that ended ctx: its cause (context.Cause) names
// one when it has a method Signal() os.Signal, as the signal context
// cmd/cockpit makes does. 0 when ctx is not done or no signal ended it.
func SignalOf(ctx context.Context) syscall.Signal {
	var sc interface{ Signal() os.Signal }
	if ctx.Err() != nil && errors.As(context.Cause(ctx), &sc) {
		if sig, ok := sc.Signal().(syscall.Signal); ok {
			return sig
		}
	}
	return 0
}

// RunCLIWrapper is the cli-wrapper backend (`worker-dispatch`): it records
// the batch, runs every job as a child `cockpit worker exec` concurrently,
// waits for all of them, settles them from their sidecars and records
// phase-5-collect for each settled initial dispatch. self is the cockpit
// binary.
//
// It catches no signal: ctx is the caller's, ended by a signal with the
// signal as its cause. When ctx ends before anything is recorded, nothing
// is (the result is empty, the error ctx's). When it ends later, the jobs
// not started yet are written off, the signal that ended ctx (SIGTERM when
// none is named) is passed on once to the children, which still write
// terminal sidecars, and the settled batch is returned with Signal set.
func RunCLIWrapper(ctx context.Context, b *lifecycle.Batch, self string) (*DispatchResult, error) {
	run := b.Run
	// Done first: a context that catches its signals lazily (cmd/cockpit's)
	// catches them from here on.
	done := ctx.Done()
	select {
	case <-done:
		return &DispatchResult{Signal: SignalOf(ctx)}, ctx.Err()
	default:
	}
	rec := lifecycle.NewRecorder(run, lifecycle.SourceWorkerDispatch, true)
	rg, err := lifecycle.RecordBatch(b, state.BackendCLIWrapper)
	if err != nil {
		return nil, err
	}
	recs := rg.Recs

	type child struct {
		cmd  *exec.Cmd
		done chan struct{} // closed once Wait returned
	}
	children := make([]*child, len(recs))
	launched := make([]lifecycle.Launched, len(recs))
	for i, r := range recs {
		if ctx.Err() != nil {
			launched[i] = lifecycle.Launched{Err: errors.New("worker-dispatch was interrupted before starting it")}
			continue
		}
		argv := lifecycle.WorkerArgv(self, run, r.Job, "quiet")
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = run.Root.Dir()
		// Each wrapper in a process group of its own: a Ctrl-C at the
		// terminal reaches worker-dispatch alone, which passes it on once.
		// (Reaching the wrappers twice reads as "insisting" and skips
		// their graceful stop.)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			launched[i] = lifecycle.Launched{Err: err}
			continue
		}
		c := &child{cmd: cmd, done: make(chan struct{})}
		children[i] = c
		launched[i] = lifecycle.Launched{PID: cmd.Process.Pid}
		go func() {
			_ = cmd.Wait() // the sidecar carries the outcome
			close(c.done)
		}()
	}
	if err := lifecycle.MarkLaunched(run, recs, launched); err != nil {
		return nil, err
	}
	failed := errors.Join(lifecycle.NotStarted(recs, launched), rg.Checkpoints(rec, launched))
	forward := func(sig os.Signal) {
		for _, c := range children {
			if c == nil {
				continue
			}
			select {
			case <-c.done:
			default:
				_ = c.cmd.Process.Signal(sig)
			}
		}
	}
	// Once is enough: the wrappers read a second signal as insisting and
	// skip their graceful stop.
	for _, c := range children {
		if c == nil {
			continue
		}
		for waiting := true; waiting; {
			select {
			case <-c.done:
				waiting = false
			case <-done:
				done = nil
				sig := SignalOf(ctx)
				if sig == 0 {
					sig = syscall.SIGTERM
				}
				forward(sig)
			}
		}
	}
	if _, _, err := lifecycle.Settle(run); err != nil {
		return nil, err
	}
	// A wrapper that died without a terminal sidecar leaves its dispatch
	// pending; the batch is over, so write it off with the reason.
	cmds := make([]*exec.Cmd, len(children))
	for i, c := range children {
		if c != nil {
			cmds[i] = c.cmd
		}
	}
	if err := failUnsettled(run, recs, cmds); err != nil {
		return nil, err
	}
	if err := lifecycle.Collect(run, rec); err != nil {
		return nil, err
	}
	ts, err := run.TeamState()
	if err != nil {
		return nil, err
	}
	return &DispatchResult{Dispatches: lifecycle.BatchDispatches(ts, recs), Lines: rec.Lines(), Signal: SignalOf(ctx)}, failed
}

func failUnsettled(run *state.Run, recs []lifecycle.Recorded, cmds []*exec.Cmd) error {
	return run.UpdateTeamState(context.Background(), func(ts *state.TeamState) error {
		for i, r := range recs {
			d := ts.Dispatch(r.Dispatch.DispatchID)
			if d == nil || d.Terminal() {
				continue
			}
			reason := "worker wrapper ended without a terminal status sidecar"
			if cmds[i] != nil && cmds[i].ProcessState != nil {
				reason = fmt.Sprintf("worker wrapper %s without a terminal status sidecar", cmds[i].ProcessState)
			}
			d.Status, d.Reason, d.SettledAt = state.StatusError, reason, state.Timestamp(state.Now())
		}
		return nil
	})
}
