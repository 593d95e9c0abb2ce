package team

import (
	"context"
	"errors"
	"fmt"
	"github.com/okstra/cockpit/runtime/lifecycle"
	"strconv"
	"time"

	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/runtime/watch"
	"github.com/okstra/cockpit/state"
)

// ErrAwaitTimeout is returned when --timeout passed with workers pending.
var ErrAwaitTimeout = errors.New("timed out with workers still running")

// AwaitResult is what `team await` reports.
type AwaitResult struct {
	Dispatches []state.Dispatch
	Counts     view.Counts
	Lines      []string // PROGRESS lines, in the order they were recorded
	Unrecorded []string // on a non-pane run: the lines a pane run records (lifecycle.Recorder.Unrecorded)
}

// Await waits until every dispatch of the run is terminal. It records
// phase-5-poll on entry and again only when the counts change — on entry
// not when the counts equal the ledger's last phase-5-poll and no dispatch
// started or settled since (the seed: "A host wait returning without a
// worker state change does not create a new checkpoint") — and
// phase-5-collect for each initial dispatch it settles — into the ledger on
// a pane run, only into Lines otherwise (the seed: the team commands record
// nothing on other backends, but always print). It wakes only on file
// events and worker-process exits. timeout ≤ 0 waits forever.
func Await(ctx context.Context, run *state.Run, timeout time.Duration) (*AwaitResult, error) {
	w, err := watch.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch run files: %w", err)
	}
	defer w.Close()
	if err := w.Watch(run.TeamStatePath, watch.EvTeamState); err != nil {
		return nil, fmt.Errorf("watch team-state: %w", err)
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	// The timeout holds to the second, also while another writer keeps
	// the team-state's or the ledger's lock: every lock wait ends with ctx.
	rec := lifecycle.NewRecorder(run, lifecycle.SourceTeamAwait, run.Manifest.IsPaneBackend()).WithContext(ctx)
	res := &AwaitResult{}
	ended := func(err error) (*AwaitResult, error) {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil && timeout > 0 {
			return res, ErrAwaitTimeout
		}
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return res, ctx.Err()
		}
		return nil, err
	}
	// What a timeout reports when it ends the first settle (a lock held).
	if ts, err := run.TeamState(); err == nil {
		res.Dispatches, res.Counts = ts.WorkerDispatches, lifecycle.CountDispatches(ts.WorkerDispatches)
	}
	last := view.Counts{Pending: -1}
	prev, prevAt, havePrev := lastRecordedPoll(run)
	for entry := true; ; entry = false {
		ts, _, err := lifecycle.SettleContext(ctx, run, w)
		if err != nil {
			return ended(err)
		}
		if err := watchDispatches(run, w, ts); err != nil {
			return nil, err
		}
		// The entry poll comes first; after that a settled worker's collect
		// line precedes the poll line carrying the new counts.
		if !entry {
			if err := lifecycle.Collect(run, rec); err != nil {
				return ended(err)
			}
		}
		c := lifecycle.CountDispatches(ts.WorkerDispatches)
		if entry && havePrev && c == prev && !changedSince(ts.WorkerDispatches, prevAt) {
			last = c // the ledger's last poll says it already
		}
		if c != last {
			if err := rec.Record("phase-5-poll", "", countFields(c), ""); err != nil {
				return ended(err)
			}
			last = c
		}
		if entry {
			if err := lifecycle.Collect(run, rec); err != nil {
				return ended(err)
			}
		}
		res.Dispatches, res.Counts, res.Lines, res.Unrecorded = ts.WorkerDispatches, c, rec.Lines(), rec.Unrecorded()
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
func watchDispatches(run *state.Run, w *watch.Watcher, ts *state.TeamState) error {
	for i := range ts.WorkerDispatches {
		d := &ts.WorkerDispatches[i]
		if d.Terminal() || d.StatusPath == "" {
			continue
		}
		if d.PID > 0 {
			w.WatchPID(d.PID)
		}
		sp, err := run.Root.Resolve(d.StatusPath, "statusPath")
		if err != nil {
			continue // settled from its wrapper's exit (sidecarVerdict)
		}
		if err := w.Watch(sp, watch.EvSidecar); err != nil {
			return fmt.Errorf("watch %s: %w", d.StatusPath, err)
		}
		if d.ResultPath != "" {
			if rp, err := run.Root.Resolve(d.ResultPath, "resultPath"); err == nil {
				_ = w.Watch(rp, watch.EvResult)
			}
		}
		if sc, err := state.ReadSidecar(sp, d.StatusPath); err == nil && sc != nil && sc.PID > 0 {
			w.WatchPID(sc.PID)
		}
	}
	return nil
}

// lastRecordedPoll reads the counts of the ledger's last phase-5-poll and
// when it was recorded. A ledger that cannot be read has none: the poll is
// recorded again rather than the wait refused.
func lastRecordedPoll(run *state.Run) (c view.Counts, at string, ok bool) {
	events, err := state.ReadEvents(run.LeadEventsPath, run.Manifest.LeadEventsPath)
	if err != nil {
		return view.Counts{}, "", false
	}
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		phase, fields := e.Phase, e.Fields
		if phase == "" {
			phase, _, fields = lifecycle.ParseProgressLine(e.ProgressLine)
		}
		if phase != "phase-5-poll" {
			continue
		}
		p, perr := strconv.Atoi(lifecycle.Field(fields, "pending"))
		d, derr := strconv.Atoi(lifecycle.Field(fields, "done"))
		if perr != nil || derr != nil {
			return view.Counts{}, "", false
		}
		return view.Counts{Pending: p, Done: d}, e.At, true
	}
	return view.Counts{}, "", false
}

// changedSince reports whether a dispatch was dispatched or settled after
// at (a ledger timestamp): then the workers' state changed, even if the
// counts came back to the same numbers (a retry that settled).
func changedSince(ds []state.Dispatch, at string) bool {
	t, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return true
	}
	after := func(s string) bool {
		u, err := time.Parse(time.RFC3339, s)
		return err == nil && u.After(t)
	}
	for i := range ds {
		if after(ds[i].DispatchedAt) || after(ds[i].SettledAt) {
			return true
		}
	}
	return false
}

// countFields are the fields of a phase-5-poll checkpoint.
func countFields(c view.Counts) [][2]string {
	return [][2]string{{"pending", fmt.Sprint(c.Pending)}, {"done", fmt.Sprint(c.Done)}}
}
