package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/okstra/cockpit/state"
)

// ErrAwaitTimeout is returned when --timeout passed with workers pending.
var ErrAwaitTimeout = errors.New("timed out with workers still running")

// AwaitResult is what `team await` reports.
type AwaitResult struct {
	Dispatches []state.Dispatch
	Counts     Counts
	Lines      []string // PROGRESS lines, in the order they were recorded
}

// Await waits until every dispatch of the run is terminal. It records
// phase-5-poll on entry and again only when the counts change, and
// phase-5-collect for each initial dispatch it settles — into the ledger on
// a pane run, only into Lines otherwise (the seed: the team commands record
// nothing on other backends, but always print). It wakes only on file
// events and worker-process exits. timeout ≤ 0 waits forever.
func Await(ctx context.Context, run *state.Run, timeout time.Duration) (*AwaitResult, error) {
	rec := NewRecorder(run, SourceTeamAwait, run.Manifest.IsPaneBackend())
	w, err := NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch run files: %w", err)
	}
	defer w.Close()
	if err := w.Watch(run.TeamStatePath, EvTeamState); err != nil {
		return nil, fmt.Errorf("watch team-state: %w", err)
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	res := &AwaitResult{}
	last := Counts{Pending: -1}
	for entry := true; ; entry = false {
		ts, _, err := settleWith(run, w)
		if err != nil {
			return nil, err
		}
		if err := watchDispatches(run, w, ts); err != nil {
			return nil, err
		}
		// The entry poll comes first; after that a settled worker's collect
		// line precedes the poll line carrying the new counts.
		if !entry {
			if err := Collect(run, rec); err != nil {
				return nil, err
			}
		}
		c := CountDispatches(ts.WorkerDispatches)
		if c != last {
			if err := rec.Record("phase-5-poll", "", c.fields(), ""); err != nil {
				return nil, err
			}
			last = c
		}
		if entry {
			if err := Collect(run, rec); err != nil {
				return nil, err
			}
		}
		res.Dispatches, res.Counts, res.Lines = ts.WorkerDispatches, c, rec.Lines()
		if c.Pending == 0 {
			return res, nil
		}
		select {
		case <-w.Events():
		case <-w.Errors():
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return res, ErrAwaitTimeout
			}
			return res, ctx.Err()
		}
	}
}

// watchDispatches makes sure every pending dispatch's sidecar, result and
// wrapper process are watched.
func watchDispatches(run *state.Run, w *Watcher, ts *state.TeamState) error {
	for i := range ts.WorkerDispatches {
		d := &ts.WorkerDispatches[i]
		if d.Terminal() || d.StatusPath == "" {
			continue
		}
		sp, err := run.Root.Resolve(d.StatusPath, "statusPath")
		if err != nil {
			return err
		}
		if err := w.Watch(sp, EvSidecar); err != nil {
			return fmt.Errorf("watch %s: %w", d.StatusPath, err)
		}
		if d.ResultPath != "" {
			if rp, err := run.Root.Resolve(d.ResultPath, "resultPath"); err == nil {
				_ = w.Watch(rp, EvResult)
			}
		}
		if d.PID > 0 {
			w.WatchPID(d.PID)
		}
		if sc, err := state.ReadSidecar(sp, d.StatusPath); err == nil && sc != nil && sc.PID > 0 {
			w.WatchPID(sc.PID)
		}
	}
	return nil
}
