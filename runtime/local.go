package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/okstra/cockpit/state"
)

// DispatchResult is what worker-dispatch and team dispatch report.
type DispatchResult struct {
	Dispatches []state.Dispatch
	Lines      []string
}

// RunCLIWrapper is the cli-wrapper backend (`worker-dispatch`): it records
// the batch, runs every job as a child `cockpit worker exec` concurrently,
// waits for all of them, settles them from their sidecars and records
// phase-5-collect for each settled initial dispatch. SIGTERM, SIGHUP and
// SIGINT are passed on to the children, which still write terminal
// sidecars. self is the cockpit binary.
func RunCLIWrapper(ctx context.Context, b *Batch, self string) (*DispatchResult, error) {
	run := b.Run
	// Signals are caught before anything is recorded: from here on an
	// interruption ends in terminal dispatches, never in half a batch.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	defer signal.Stop(sigs)
	rec := NewRecorder(run, SourceWorkerDispatch, true)
	recs, err := RecordBatch(b, rec, state.BackendCLIWrapper)
	if err != nil {
		return nil, err
	}

	type child struct {
		cmd  *exec.Cmd
		done chan struct{} // closed once Wait returned
	}
	children := make([]*child, len(recs))
	launched := make([]Launched, len(recs))
	for i, r := range recs {
		if ctx.Err() != nil || len(sigs) > 0 {
			launched[i] = Launched{Err: errors.New("worker-dispatch was interrupted before starting it")}
			continue
		}
		argv := WorkerArgv(self, run, r.Job, "quiet")
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = run.Root.Dir()
		// Each wrapper in a process group of its own: a Ctrl-C at the
		// terminal reaches worker-dispatch alone, which passes it on once.
		// (Reaching the wrappers twice reads as "insisting" and skips
		// their graceful stop.)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			launched[i] = Launched{Err: err}
			continue
		}
		c := &child{cmd: cmd, done: make(chan struct{})}
		children[i] = c
		launched[i] = Launched{PID: cmd.Process.Pid}
		go func() {
			_ = cmd.Wait() // the sidecar carries the outcome
			close(c.done)
		}()
	}
	if err := MarkLaunched(run, recs, launched); err != nil {
		return nil, err
	}
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
	done := ctx.Done()
	for _, c := range children {
		if c == nil {
			continue
		}
		for waiting := true; waiting; {
			select {
			case <-c.done:
				waiting = false
			case sig := <-sigs:
				forward(sig)
			case <-done:
				done = nil // once is enough
				forward(syscall.SIGTERM)
			}
		}
	}
	if _, _, err := Settle(run); err != nil {
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
	if err := Collect(run, rec); err != nil {
		return nil, err
	}
	ts, err := state.ReadTeamState(run.TeamStatePath, run.Manifest.TeamStatePath)
	if err != nil {
		return nil, err
	}
	return &DispatchResult{Dispatches: batchDispatches(ts, recs), Lines: rec.Lines()}, nil
}

func failUnsettled(run *state.Run, recs []Recorded, cmds []*exec.Cmd) error {
	return state.UpdateTeamState(run.TeamStatePath, run.Manifest.TeamStatePath, defaultTeamName(run), func(ts *state.TeamState) error {
		for i, r := range recs {
			d := ts.Dispatch(r.Dispatch.DispatchID)
			if d == nil || d.Terminal() {
				continue
			}
			reason := "worker wrapper ended without a terminal status sidecar"
			if cmds[i] != nil && cmds[i].ProcessState != nil {
				reason = fmt.Sprintf("worker wrapper %s without a terminal status sidecar", cmds[i].ProcessState)
			}
			d.Status, d.Reason, d.SettledAt = "error", reason, state.Timestamp(state.Now())
		}
		return nil
	})
}

// batchDispatches picks the batch's dispatches out of team-state, in batch
// order.
func batchDispatches(ts *state.TeamState, recs []Recorded) []state.Dispatch {
	out := make([]state.Dispatch, 0, len(recs))
	for _, r := range recs {
		if d := ts.Dispatch(r.Dispatch.DispatchID); d != nil {
			out = append(out, *d)
		}
	}
	return out
}
