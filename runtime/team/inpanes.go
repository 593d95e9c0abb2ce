package team

import (
	"context"
	"errors"
	"fmt"
	"github.com/okstra/cockpit/runtime/lifecycle"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/watch"
	"github.com/okstra/cockpit/state"
)

// ErrNotServed says no cockpit serves the run's panes: worker-dispatch then
// runs its workers as child processes.
var ErrNotServed = errors.New("no cockpit serves this run")

// WorkerDispatchInPanes is `worker-dispatch` on a pane run (terminalBackend
// cmux-pane or cockpit-pane) that a cockpit serves: a lead that follows
// okstra's contract literally reaches for worker-dispatch wherever it
// reads the backend wrongly, and must not lose its panes for it. So the
// batch opens in the cockpit's panes, as `team dispatch` opens it, and the
// command then does what worker-dispatch promises: it waits until every
// dispatch of the batch settled, records phase-5-collect for each initial
// one (with phase-3-team-create, phase-4-dispatch and phase-6-synthesis:
// worker-dispatch records its own on every backend) and returns the settled
// batch. With no cockpit listening it returns ErrNotServed before anything
// is recorded.
//
// Interrupted (ctx done) while it waits, it returns the batch as it stands
// with ctx's error: the workers keep running in their panes, as after
// `team dispatch`, and `team await` collects them.
func WorkerDispatchInPanes(ctx context.Context, b *lifecycle.Batch, self string) (*DispatchResult, error) {
	run := b.Run
	if !run.Manifest.IsPaneBackend() {
		return nil, ErrNotServed
	}
	cl, err := control.DialRunAs(ctx, run, control.RunDial{Client: "worker-dispatch"})
	var nc *control.NoCockpitError
	if errors.As(err, &nc) {
		return nil, ErrNotServed
	}
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	w, err := watch.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch run files: %w", err)
	}
	defer w.Close()
	if err := w.Watch(run.TeamStatePath, watch.EvTeamState); err != nil {
		return nil, fmt.Errorf("watch team-state: %w", err)
	}
	rec := lifecycle.NewRecorder(run, lifecycle.SourceWorkerDispatch, true)
	st, err := lifecycle.StartInPanes(ctx, cl, b, self, "worker-dispatch", rec)
	if err != nil {
		return nil, err
	}
	recs, failed := st.Recs, st.Failed
	for {
		ts, _, err := lifecycle.SettleContext(ctx, run, w)
		if err != nil {
			return nil, err
		}
		if err := watchDispatches(run, w, ts); err != nil {
			return nil, err
		}
		if batchSettled(ts, recs) {
			break
		}
		select {
		case <-w.Events():
		case <-w.Errors():
		case <-ctx.Done():
			ts, _ := run.TeamState()
			res := &DispatchResult{Lines: rec.Lines(), Signal: SignalOf(ctx)}
			if ts != nil {
				res.Dispatches = lifecycle.BatchDispatches(ts, recs)
			}
			return res, errors.Join(ctx.Err(), failed)
		}
	}
	if err := lifecycle.Collect(run, rec); err != nil {
		return nil, err
	}
	ts, err := run.TeamState()
	if err != nil {
		return nil, err
	}
	return &DispatchResult{Dispatches: lifecycle.BatchDispatches(ts, recs), Lines: rec.Lines(), Panes: true}, failed
}

// batchSettled reports whether every dispatch of the batch is terminal.
func batchSettled(ts *state.TeamState, recs []lifecycle.Recorded) bool {
	for _, r := range recs {
		if d := ts.Dispatch(r.Dispatch.DispatchID); d != nil && !d.Terminal() {
			return false
		}
	}
	return true
}
