package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime/lifecycle"
	"github.com/okstra/cockpit/runtime/team"
	"github.com/okstra/cockpit/state"
)

// NewCmdTeam is the team group.
func NewCmdTeam(f *Factory) *cobra.Command {
	team := &cobra.Command{
		Use:   "team",
		Short: "Dispatch, await, reclaim and tear down a run's workers",
		Args:  noArgs,
	}
	team.AddCommand(NewCmdTeamDispatch(f, nil), NewCmdTeamAwait(f, nil), NewCmdTeamReclaim(f, nil), NewCmdTeamTeardown(f, nil))
	return team
}

// teamRefusals makes a team command report a refusal as okstra's team.py
// does (the seed: `print(f"okstra team: {exc}")`, `return 2`): one line
// `<prog> team: <reason>` — the program as it was called, okstra or
// cockpit — and exit 2. Usage errors, --timeout (3) and signals keep their
// own line and status.
func teamRefusals(cmd *cobra.Command) {
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		err := run(c, args)
		if err == nil || errors.Is(err, context.Canceled) {
			return err
		}
		var coded *codedError
		var usage *usageError
		if errors.As(err, &coded) || errors.As(err, &usage) || isMissingFlag(err) {
			return err
		}
		fmt.Fprintf(c.ErrOrStderr(), "%s team: %s\n", c.Root().Name(), state.OneLine(err.Error()))
		return &codedError{code: exitUsage, err: silentError{err}}
	}
}

// silentError is an error already printed: exitFor prints nothing for it.
type silentError struct{ err error }

func (silentError) Error() string   { return "" }
func (e silentError) Unwrap() error { return e.err }

// AwaitOptions are the flags of `team await`.
type AwaitOptions struct {
	IO      *IOStreams
	Ctx     context.Context
	Run     runFlags
	Timeout time.Duration
	JSON    bool
}

// awaitOutput is team await's JSON.
type awaitOutput struct {
	Completed       bool             `json:"completed"`
	Pending         int              `json:"pending"`
	Done            int              `json:"done"`
	Dispatches      []state.Dispatch `json:"dispatches"`
	ProgressLines   []string         `json:"progressLines"`
	UnrecordedLines []string         `json:"unrecordedLines,omitempty"`
}

// NewCmdTeamAwait parses and checks `team await`; runF (teamAwaitRun when
// nil) does it.
func NewCmdTeamAwait(f *Factory, runF func(*AwaitOptions) error) *cobra.Command {
	opts := &AwaitOptions{IO: f.IO}
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
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return teamAwaitRun(opts)
		},
	}
	opts.Run.add(f, cmd)
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 0, "give up after this long (e.g. 30m); 0 waits forever")
	addJSONFlag(cmd, &opts.JSON)
	teamRefusals(cmd)
	return cmd
}

func teamAwaitRun(o *AwaitOptions) error {
	run, err := o.Run.load()
	if err != nil {
		return err
	}
	res, err := team.Await(o.Ctx, run, o.Timeout)
	if res != nil {
		if o.JSON {
			if werr := writeJSON(o.IO.Out, awaitOutput{
				Completed: res.Counts.Pending == 0, Pending: res.Counts.Pending, Done: res.Counts.Done,
				Dispatches: nonNil(res.Dispatches), ProgressLines: nonNil(res.Lines), UnrecordedLines: res.Unrecorded,
			}); werr != nil {
				return werr
			}
		} else {
			printDispatches(o.IO.Out, res.Dispatches, false, res.Lines)
		}
	}
	if errors.Is(err, team.ErrAwaitTimeout) {
		return &codedError{code: 3, err: fmt.Errorf("%d worker(s) still running after %s; run team await again, or worker-liveness to probe them", res.Counts.Pending, o.Timeout)}
	}
	return err
}

// PanesOptions are the flags of `team reclaim` and `team teardown`, the two
// commands that close panes.
type PanesOptions struct {
	IO     *IOStreams
	Ctx    context.Context
	Run    runFlags
	Gate   bool // reclaim only
	DryRun bool
	JSON   bool
}

// panesOutput is the JSON of reclaim and teardown: {"panes": [...]}, plus
// the PROGRESS line the command printed, if any.
type panesOutput struct {
	Panes        []lifecycle.PaneRef `json:"panes"`
	ProgressLine string              `json:"progressLine,omitempty"`
}

// newPanesCmd is the shape reclaim and teardown share.
func newPanesCmd(f *Factory, cmd *cobra.Command, dryRunUsage string, runF func(*PanesOptions) error) (*cobra.Command, *PanesOptions) {
	opts := &PanesOptions{IO: f.IO}
	cmd.Args = noArgs
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		opts.Ctx = cmd.Context()
		return runF(opts)
	}
	opts.Run.add(f, cmd)
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, dryRunUsage)
	addJSONFlag(cmd, &opts.JSON)
	teamRefusals(cmd)
	return cmd, opts
}

// NewCmdTeamReclaim parses `team reclaim`; runF (teamReclaimRun when nil)
// does it.
func NewCmdTeamReclaim(f *Factory, runF func(*PanesOptions) error) *cobra.Command {
	if runF == nil {
		runF = teamReclaimRun
	}
	cmd, opts := newPanesCmd(f, &cobra.Command{
		Use:   "reclaim [--gate] [--dry-run] [--json]",
		Short: "Close the panes of finished dispatches at a batch boundary",
		Long: `team reclaim closes the panes of dispatches with a terminal status — only pane
ids recorded in team-state, only panes still open; an in-progress worker keeps
its pane whenever it is called. It records phase-batch-cleanup panes=<n> (n =
panes it closed) and prints that line last. --gate (before a user gate) prints
phase-gate-cleanup panes=<n> and records nothing. --dry-run closes nothing and
prints "<paneId>\t<kind>" per pane it would close. A cli-wrapper run has no panes
and is refused.`,
	}, "close nothing; list the panes that would close", runF)
	cmd.Flags().BoolVar(&opts.Gate, "gate", false, "before a user gate: print phase-gate-cleanup and record nothing")
	return cmd
}

func teamReclaimRun(o *PanesOptions) error {
	run, err := o.Run.load()
	if err != nil {
		return err
	}
	res, err := lifecycle.Reclaim(o.Ctx, run, lifecycle.ReclaimOptions{Gate: o.Gate, DryRun: o.DryRun})
	if err != nil {
		return err
	}
	return printPanes(o, res)
}

// NewCmdTeamTeardown parses `team teardown`; runF (teamTeardownRun when
// nil) does it.
func NewCmdTeamTeardown(f *Factory, runF func(*PanesOptions) error) *cobra.Command {
	if runF == nil {
		runF = teamTeardownRun
	}
	cmd, _ := newPanesCmd(f, &cobra.Command{
		Use:   "teardown [--dry-run] [--json]",
		Short: "End of run: close every recorded pane and write off unfinished dispatches",
		Long: `team teardown closes every pane recorded in team-state that is still open, and
marks every dispatch that is not terminal "error" with the teardown reason.
--dry-run lists the panes ("<paneId>\t<kind>") and changes nothing.`,
	}, "change nothing; list the panes that would close", runF)
	return cmd
}

func teamTeardownRun(o *PanesOptions) error {
	run, err := o.Run.load()
	if err != nil {
		return err
	}
	res, err := lifecycle.Teardown(o.Ctx, run, o.DryRun)
	if err != nil {
		return err
	}
	return printPanes(o, res)
}

func printPanes(o *PanesOptions, res *lifecycle.ReclaimResult) error {
	if o.JSON {
		out := panesOutput{Panes: nonNil(res.Panes)}
		if len(res.Lines) > 0 {
			out.ProgressLine = res.Lines[len(res.Lines)-1]
		}
		return writeJSON(o.IO.Out, out)
	}
	for _, p := range res.Panes {
		fmt.Fprintln(o.IO.Out, state.OneLine(p.PaneID)+"\t"+state.OneLine(p.Kind))
	}
	printLines(o.IO.Out, res.Lines)
	return nil
}
