package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime/lifecycle"
	"github.com/okstra/cockpit/runtime/team"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/workers"
)

// DispatchOptions are the flags of `worker-dispatch` (alias
// `codex-dispatch`) and `team dispatch`: the same jobs file, two backends.
type DispatchOptions struct {
	IO       *IOStreams
	Ctx      context.Context
	Run      runFlags
	JobsFile string
	Kind     state.DispatchKind // --dispatch-kind: checked at parse time
	JSON     bool
	Text     bool // team dispatch --text: the tab-separated lines instead of JSON
}

// dispatchOutput is the JSON both dispatch commands print (the seed:
// "progressLines in the JSON the others print"). unrecordedLines: on a
// non-pane run, team dispatch records no checkpoint; these are the ones it
// would have, for the lead to append itself.
type dispatchOutput struct {
	Dispatches      []state.Dispatch `json:"dispatches"`
	ProgressLines   []string         `json:"progressLines"`
	UnrecordedLines []string         `json:"unrecordedLines,omitempty"`
}

// newDispatchCmd is the shape both dispatch commands share: the flags,
// their checks, and runF with the command's context.
func newDispatchCmd(f *Factory, cmd *cobra.Command, jobsUsage string, runF func(*DispatchOptions) error) (*cobra.Command, *DispatchOptions) {
	opts := &DispatchOptions{IO: f.IO}
	cmd.Args = noArgs
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := opts.validate(); err != nil {
			return err
		}
		opts.Ctx = cmd.Context()
		return runF(opts)
	}
	opts.Run.add(f, cmd)
	cmd.Flags().StringVar(&opts.JobsFile, "jobs-file", "", jobsUsage)
	cmd.Flags().StringVar((*string)(&opts.Kind), "dispatch-kind", "", "expected dispatch kind ("+orList(dispatchKinds)+"); must match the file's")
	addJSONFlag(cmd, &opts.JSON)
	return cmd, opts
}

// dispatchKinds are the values of --dispatch-kind, for the usage line.
var dispatchKinds = []string{string(state.DispatchInitial), "reverify-r<N>", string(state.DispatchCritic), string(state.DispatchReportWriter), string(state.DispatchTranslator)}

func (o *DispatchOptions) validate() error {
	if o.JobsFile == "" {
		return &usageError{&state.Error{Field: "--jobs-file", Msg: "is required; pass the jobs file written by `okstra agent-prompt jobs`"}}
	}
	if o.Kind != "" && state.CheckDispatchKind(o.Kind) != nil {
		return &usageError{fmt.Errorf("--dispatch-kind %q: choose %s", o.Kind, orList(dispatchKinds))}
	}
	return nil
}

// plan loads the run and verifies every job of the jobs file (no half
// batch): the batch to run, and the cockpit binary its workers run.
func (o *DispatchOptions) plan() (*lifecycle.Batch, string, error) {
	run, err := o.Run.load()
	if err != nil {
		return nil, "", err
	}
	cat, err := workers.LoadCatalog(run.Root.Dir())
	if err != nil {
		return nil, "", err
	}
	batch, err := lifecycle.PlanBatch(run, cat, o.JobsFile, o.Kind)
	if err != nil {
		return nil, "", err
	}
	self, err := selfPath()
	if err != nil {
		return nil, "", err
	}
	return batch, self, nil
}

// NewCmdWorkerDispatch parses and checks `worker-dispatch`; runF
// (workerDispatchRun when nil) does it.
func NewCmdWorkerDispatch(f *Factory, runF func(*DispatchOptions) error) *cobra.Command {
	if runF == nil {
		runF = workerDispatchRun
	}
	cmd, _ := newDispatchCmd(f, &cobra.Command{
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
	}, "the jobs `file` written by okstra agent-prompt jobs (or materialize --jobs-out)", runF)
	return cmd
}

func workerDispatchRun(o *DispatchOptions) error {
	o.Ctx.Done() // catch the signals from here on, before anything is recorded
	batch, self, err := o.plan()
	if err != nil {
		return err
	}
	// The batch ends on the one signal context: RunCLIWrapper passes the
	// signal that came (its cause) on to the workers once, settles the
	// batch and names the signal in res.Signal; the command still prints
	// the settled batch, then ends with 128+signal. A signal before anything
	// is recorded stops it there.
	// On a pane run a cockpit serves, the batch opens in its panes (a lead
	// that calls worker-dispatch there keeps its panes; docs/OKSTRA.md).
	res, err := team.WorkerDispatchInPanes(o.Ctx, batch, self)
	if errors.Is(err, team.ErrNotServed) {
		res, err = team.RunCLIWrapper(o.Ctx, batch, self)
	}
	if res == nil {
		return err
	}
	// The batch is printed whatever went wrong after it was recorded (jobs
	// that did not start, checkpoints that could not be recorded, a
	// signal); the error then says what, and sets the exit status.
	if werr := writeJSON(o.IO.Out, dispatchOutput{Dispatches: res.Dispatches, ProgressLines: nonNil(res.Lines)}); werr != nil {
		return werr
	}
	if err := o.Ctx.Err(); err != nil {
		return err // context.Canceled with the signal as its cause
	}
	return err
}

// NewCmdTeamDispatch parses and checks `team dispatch`; runF
// (teamDispatchRun when nil) does it.
func NewCmdTeamDispatch(f *Factory, runF func(*DispatchOptions) error) *cobra.Command {
	if runF == nil {
		runF = teamDispatchRun
	}
	cmd, opts := newDispatchCmd(f, &cobra.Command{
		Use:   "dispatch --jobs-file <f> [--dispatch-kind <k>] [--text]",
		Short: "Open one cockpit pane per job running the worker wrapper, and record the dispatches",
		Long: `team dispatch verifies every job of the jobs file first (no half-opened batch),
then asks the run's cockpit to open one pane per job running "cockpit worker
exec", and records each dispatch with its pane id. It prints
{"dispatches": [...], "progressLines": [...]} (--text: one tab-separated line
per dispatch, then the PROGRESS lines). On a pane run it records
phase-3-team-create (when it writes the implicit-team marker), phase-4-dispatch
per initial job and phase-6-synthesis on the first report-writer dispatch, and
prints them in progressLines; on any other backend it records none, and lists
them in unrecordedLines for the lead to append itself.`,
	}, "the jobs `file` written by okstra agent-prompt jobs (or materialize --jobs-out)", runF)
	teamRefusals(cmd)
	cmd.Flags().BoolVar(&opts.Text, "text", false, "print tab-separated lines instead of JSON")
	return cmd
}

func teamDispatchRun(o *DispatchOptions) error {
	batch, self, err := o.plan()
	if err != nil {
		return err
	}
	// A signal cancels the context instead of killing the process between
	// recording the batch and recording where it runs.
	res, err := team.TeamDispatch(o.Ctx, batch, self)
	if res == nil {
		return err
	}
	// Printed even when some jobs did not start: the lead learns what runs;
	// the error names the rest and sets the exit status.
	if o.Text && !o.JSON {
		printDispatches(o.IO.Out, res.Dispatches, true, res.Lines)
		return err
	}
	if werr := writeJSON(o.IO.Out, dispatchOutput{Dispatches: res.Dispatches, ProgressLines: nonNil(res.Lines), UnrecordedLines: res.Unrecorded}); werr != nil {
		return werr
	}
	return err
}

// printDispatches prints one tab-separated line per dispatch (id, pane
// when withPane, role, status, reason if any), then the PROGRESS lines last.
func printDispatches(w io.Writer, ds []state.Dispatch, withPane bool, lines []string) {
	for _, d := range ds {
		// Every field one line of printable text: a label or a worker's
		// reason carrying ESC or NUL must not act on the terminal.
		line := state.OneLine(d.DispatchID)
		if withPane {
			line += "\t" + state.OneLine(d.PaneID)
		}
		line += "\t" + state.OneLine(d.Role) + "\t" + state.OneLine(string(d.Status))
		if d.Reason != "" {
			line += "\t" + state.OneLine(d.Reason)
		}
		fmt.Fprintln(w, line)
	}
	printLines(w, lines)
}
