package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime"
	"github.com/okstra/cockpit/workers"
)

func newTeamDispatchCmd(io *streams) *cobra.Command {
	opts := &dispatchOptions{}
	cmd := &cobra.Command{
		Use:   "dispatch --jobs-file <f> [--dispatch-kind <k>]",
		Short: "Open one cockpit pane per job running the worker wrapper, and record the dispatches",
		Long: `team dispatch verifies every job of the jobs file first (no half-opened batch),
then asks the run's cockpit to open one pane per job running "cockpit worker
exec", and records each dispatch with its pane id. On a pane run it records and
prints phase-3-team-create (when it writes the implicit-team marker),
phase-4-dispatch per initial job and phase-6-synthesis on the first report-writer
dispatch; on any other backend it prints them without recording.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return teamDispatchRun(io, opts)
		},
	}
	opts.run.add(cmd)
	cmd.Flags().StringVar(&opts.jobsFile, "jobs-file", "", "the jobs file")
	cmd.Flags().StringVar(&opts.kind, "dispatch-kind", "", "expected dispatch kind; must match the file's")
	opts.json.add(cmd)
	return cmd
}

func teamDispatchRun(io *streams, o *dispatchOptions) error {
	if err := o.requireJobs(); err != nil {
		return err
	}
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
	// SIGINT/SIGTERM cancel the context instead of killing the process
	// between recording the batch and recording where it runs.
	ctx, cancel := interruptible()
	defer cancel()
	res, err := runtime.TeamDispatch(ctx, batch, self)
	if err != nil {
		return err
	}
	if o.json.on {
		return writeJSON(io.Out, dispatchOutput{Dispatches: res.Dispatches, ProgressLines: nonNil(res.Lines)})
	}
	for _, d := range res.Dispatches {
		line := fmt.Sprintf("%s\t%s\t%s\t%s", d.DispatchID, d.PaneID, d.Role, d.Status)
		if d.Reason != "" {
			line += "\t" + d.Reason
		}
		fmt.Fprintln(io.Out, line)
	}
	for _, l := range res.Lines {
		fmt.Fprintln(io.Out, l)
	}
	return nil
}

type reclaimOptions struct {
	run    runFlags
	gate   bool
	dryRun bool
	json   jsonFlag
}

// panesOutput is the JSON of reclaim and teardown: {"panes": [...]}, plus
// the PROGRESS line the command printed, if any.
type panesOutput struct {
	Panes        []runtime.PaneRef `json:"panes"`
	ProgressLine string            `json:"progressLine,omitempty"`
}

func newTeamReclaimCmd(io *streams) *cobra.Command {
	opts := &reclaimOptions{}
	cmd := &cobra.Command{
		Use:   "reclaim [--gate] [--dry-run] [--json]",
		Short: "Close the panes of finished dispatches at a batch boundary",
		Long: `team reclaim closes the panes of dispatches with a terminal status — only pane
ids recorded in team-state, only panes still open; an in-progress worker keeps
its pane whenever it is called. It records phase-batch-cleanup panes=<n> (n =
panes it closed) and prints that line last. --gate (before a user gate) prints
phase-gate-cleanup panes=<n> and records nothing. --dry-run closes nothing and
prints "<paneId>\t<kind>" per pane it would close. A cli-wrapper run has no panes
and is refused.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return reclaimRun(io, opts)
		},
	}
	opts.run.add(cmd)
	cmd.Flags().BoolVar(&opts.gate, "gate", false, "before a user gate: print phase-gate-cleanup and record nothing")
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "close nothing; list the panes that would close")
	opts.json.add(cmd)
	return cmd
}

func reclaimRun(io *streams, o *reclaimOptions) error {
	run, err := o.run.load()
	if err != nil {
		return err
	}
	res, err := runtime.Reclaim(context.Background(), run, runtime.ReclaimOptions{Gate: o.gate, DryRun: o.dryRun})
	if err != nil {
		return err
	}
	return printPanes(io, res, o.json.on)
}

func printPanes(io *streams, res *runtime.ReclaimResult, asJSON bool) error {
	if asJSON {
		out := panesOutput{Panes: res.Panes}
		if out.Panes == nil {
			out.Panes = []runtime.PaneRef{}
		}
		if len(res.Lines) > 0 {
			out.ProgressLine = res.Lines[len(res.Lines)-1]
		}
		return writeJSON(io.Out, out)
	}
	for _, p := range res.Panes {
		fmt.Fprintf(io.Out, "%s\t%s\n", p.PaneID, p.Kind)
	}
	for _, l := range res.Lines {
		fmt.Fprintln(io.Out, l)
	}
	return nil
}

type teardownOptions struct {
	run    runFlags
	dryRun bool
	json   jsonFlag
}

func newTeamTeardownCmd(io *streams) *cobra.Command {
	opts := &teardownOptions{}
	cmd := &cobra.Command{
		Use:   "teardown [--dry-run] [--json]",
		Short: "End of run: close every recorded pane and write off unfinished dispatches",
		Long: `team teardown closes every pane recorded in team-state that is still open, and
marks every dispatch that is not terminal "error" with the teardown reason.
--dry-run lists the panes ("<paneId>\t<kind>") and changes nothing.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			run, err := opts.run.load()
			if err != nil {
				return err
			}
			res, err := runtime.Teardown(context.Background(), run, opts.dryRun)
			if err != nil {
				return err
			}
			return printPanes(io, res, opts.json.on)
		},
	}
	opts.run.add(cmd)
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "change nothing; list the panes that would close")
	opts.json.add(cmd)
	return cmd
}
