package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime/engine"
)

// LogsOptions are the flags of `logs`.
type LogsOptions struct {
	IO     *IOStreams
	Ctx    context.Context
	Run    runFlags
	Follow bool
	Lines  int
	JSON   bool
}

// NewCmdLogs parses `logs`; runF (logsRun when nil) does it.
func NewCmdLogs(f *Factory, runF func(*LogsOptions) error) *cobra.Command {
	opts := &LogsOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "logs [-f] [-n N] [--json]",
		Short: "Print the run's engine log: requests, panes, settle decisions, screens",
		Long: `logs prints the last lines of the log the run's background engine keeps
(cockpit-engine.log in the run's state directory): every control request and
its outcome, each pane's life, every settle decision with its reason, the
watcher's rescans, gates and attached screens, with the dispatch, pane, gate
and screen ids. With -f it then follows the log (across rotations) until
interrupted. --json prints the lines as the engine wrote them, one JSON object
each. See docs/PROTOCOL.md, "The engine's log".`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Lines < 0 {
				return &usageError{fmt.Errorf("--lines %d: give a count of lines, or 0 for the whole log", opts.Lines)}
			}
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return logsRun(opts)
		},
	}
	opts.Run.add(f, cmd)
	cmd.Flags().BoolVarP(&opts.Follow, "follow", "f", false, "keep printing lines as the engine writes them")
	cmd.Flags().IntVarP(&opts.Lines, "lines", "n", 50, "how many of the last lines to print first (0: all)")
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

// logsRun prints the log; following, a signal is its normal end (exit 0).
func logsRun(o *LogsOptions) error {
	run, err := o.Run.load()
	if err != nil {
		return err
	}
	render := engine.LogText
	if o.JSON {
		render = func(line []byte) string { return string(line) }
	}
	return engine.ReadLog(o.Ctx, engineLog(run), o.Lines, o.Follow, o.IO.Out, render)
}
