package team

import (
	"context"

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
	st, err := lifecycle.StartInPanes(ctx, cl, b, self, "team dispatch", rec)
	if err != nil {
		return nil, err
	}
	ts, err := run.TeamState()
	if err != nil {
		return nil, err
	}
	res := &DispatchResult{Dispatches: lifecycle.BatchDispatches(ts, st.Recs), Lines: rec.Lines(), Unrecorded: rec.Unrecorded()}
	// The batch is printed whatever went wrong; the error says what.
	return res, st.Failed
}
