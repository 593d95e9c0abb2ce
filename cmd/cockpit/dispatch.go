package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/workers"
)

type dispatchOptions struct {
	run      runFlags
	jobsFile string
	kind     string
	json     jsonFlag
}

// dispatchOutput is the JSON both dispatch commands print.
type dispatchOutput struct {
	Dispatches    []state.Dispatch `json:"dispatches"`
	ProgressLines []string         `json:"progressLines"`
}

func newWorkerDispatchCmd(io *streams) *cobra.Command {
	opts := &dispatchOptions{}
	cmd := &cobra.Command{
		Use:     "worker-dispatch --jobs-file <f> [--dispatch-kind <k>]",
		Aliases: []string{"codex-dispatch"},
		Short:   "Run every job of a jobs file as a child worker (the cli-wrapper backend) and wait for all",
		Long: `worker-dispatch is the cli-wrapper backend: no panes. It verifies every job of the
jobs file first, records the dispatches in team-state, runs each job as a child
"cockpit worker exec" concurrently, waits for all of them and settles them from
their status sidecars. It records phase-3-team-create (when it writes the
implicit-team marker), phase-4-dispatch per initial job, phase-5-collect per
settled initial dispatch and phase-6-synthesis on the run's first report-writer
dispatch, and prints them in progressLines.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return workerDispatchRun(cmd.Context(), io, opts)
		},
	}
	opts.run.add(cmd)
	cmd.Flags().StringVar(&opts.jobsFile, "jobs-file", "", "the jobs file (from `okstra agent-prompt jobs` or `materialize --jobs-out`)")
	cmd.Flags().StringVar(&opts.kind, "dispatch-kind", "", "expected dispatch kind; must match the file's")
	opts.json.add(cmd)
	return cmd
}

func workerDispatchRun(ctx context.Context, io *streams, o *dispatchOptions) error {
	run, err := o.run.load()
	if err != nil {
		return err
	}
	cat, err := workers.LoadCatalog(run.Root.Dir())
	if err != nil {
		return err
	}
	batch, err := runtime.PlanBatch(run, cat, o.jobsFile, o.kind)
	if err != nil {
		return err
	}
	self, err := selfPath()
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := runtime.RunCLIWrapper(ctx, batch, self)
	if err != nil {
		return err
	}
	return writeJSON(io.Out, dispatchOutput{Dispatches: res.Dispatches, ProgressLines: nonNil(res.Lines)})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// interruptible returns a context cancelled on SIGINT/SIGTERM/SIGHUP.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}
