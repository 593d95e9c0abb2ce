package team

import (
	"context"
	"errors"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/lifecycle"
)

// TeamDispatch is `team dispatch`: with the batch verified, it asks the
// cockpit for one pane per job running the worker wrapper, and records each
// dispatch with its pane id. Checkpoints are recorded on a pane run and only
// printed on any other (the seed).
func TeamDispatch(ctx context.Context, b *lifecycle.Batch, self string) (*DispatchResult, error) {
	run := b.Run
	cl, err := control.DialRunAs(ctx, run, control.RunDial{Client: "team dispatch", WithoutPanes: "dispatch without panes with `cockpit worker-dispatch`"})
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	rec := lifecycle.NewRecorder(run, lifecycle.SourceTeamDispatch, run.Manifest.IsPaneBackend())
	rg, err := lifecycle.RecordBatch(b, lifecycle.PaneBackend(run))
	if err != nil {
		return nil, err
	}
	recs := rg.Recs
	launched := lifecycle.OpenPanes(ctx, cl, run, recs, self, "team dispatch")
	// lifecycle.Recording where they run must not be cut short by the interruption.
	if err := lifecycle.MarkLaunched(run, recs, launched); err != nil {
		return nil, err
	}
	cperr := rg.Checkpoints(rec, launched)
	ts, err := run.TeamState()
	if err != nil {
		return nil, err
	}
	res := &DispatchResult{Dispatches: lifecycle.BatchDispatches(ts, recs), Lines: rec.Lines(), Unrecorded: rec.Unrecorded()}
	// The batch is printed whatever went wrong; the error says what.
	return res, errors.Join(lifecycle.NotStarted(recs, launched), cperr)
}
