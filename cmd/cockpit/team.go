package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime"
	"github.com/okstra/cockpit/state"
)

func newTeamCmd(io *streams) *cobra.Command {
	team := &cobra.Command{
		Use:   "team",
		Short: "Dispatch, await, reclaim and tear down a run's workers",
		Args:  noArgs,
	}
	team.AddCommand(newTeamDispatchCmd(io), newTeamAwaitCmd(io), newTeamReclaimCmd(io), newTeamTeardownCmd(io))
	return team
}

type awaitOptions struct {
	run     runFlags
	timeout time.Duration
	json    jsonFlag
}

// awaitOutput is team await's JSON.
type awaitOutput struct {
	Completed     bool             `json:"completed"`
	Pending       int              `json:"pending"`
	Done          int              `json:"done"`
	Dispatches    []state.Dispatch `json:"dispatches"`
	ProgressLines []string         `json:"progressLines"`
}

func newTeamAwaitCmd(io *streams) *cobra.Command {
	opts := &awaitOptions{}
	cmd := &cobra.Command{
		Use:   "await [--timeout <d>]",
		Short: "Wait until every dispatch of the run is terminal",
		Long: `team await waits, woken by file events, until every dispatch of the run has a
terminal status. It prints one line per dispatch and then its PROGRESS lines
last: phase-5-poll on entry and whenever the counts change, and phase-5-collect
for each initial dispatch it settled. It records them in the ledger only on a
pane run (terminalBackend cockpit-pane or cmux-pane), as the seeds say.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return awaitRun(io, opts)
		},
	}
	opts.run.add(cmd)
	cmd.Flags().DurationVar(&opts.timeout, "timeout", 0, "give up after this long (e.g. 30m); 0 waits forever")
	opts.json.add(cmd)
	return cmd
}

func awaitRun(io *streams, o *awaitOptions) error {
	run, err := o.run.load()
	if err != nil {
		return err
	}
	ctx, cancel := interruptible()
	defer cancel()
	res, err := runtime.Await(ctx, run, o.timeout)
	if res != nil {
		if o.json.on {
			if werr := writeJSON(io.Out, awaitOutput{
				Completed: res.Counts.Pending == 0, Pending: res.Counts.Pending, Done: res.Counts.Done,
				Dispatches: nonNilDispatches(res.Dispatches), ProgressLines: nonNil(res.Lines),
			}); werr != nil {
				return werr
			}
		} else {
			for _, d := range res.Dispatches {
				line := fmt.Sprintf("%s\t%s\t%s", d.DispatchID, d.Role, d.Status)
				if d.Reason != "" {
					line += "\t" + d.Reason
				}
				fmt.Fprintln(io.Out, line)
			}
			for _, l := range res.Lines {
				fmt.Fprintln(io.Out, l)
			}
		}
	}
	if errors.Is(err, runtime.ErrAwaitTimeout) {
		return &codedError{code: 3, err: fmt.Errorf("%d worker(s) still running after %s; run team await again, or worker-liveness to probe them", res.Counts.Pending, o.timeout)}
	}
	return err
}

func nonNilDispatches(ds []state.Dispatch) []state.Dispatch {
	if ds == nil {
		return []state.Dispatch{}
	}
	return ds
}
