package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime/watch"
	"github.com/okstra/cockpit/workers"
)

// NewCmdWorker is the worker group: the programs a pane runs.
func NewCmdWorker(f *Factory) *cobra.Command {
	w := &cobra.Command{
		Use:   "worker",
		Short: "The worker wrapper a pane runs",
		Args:  noArgs,
	}
	w.AddCommand(NewCmdWorkerExec(f, nil), NewCmdWorkerSim(f, nil), NewCmdWorkerTail(f, nil))
	return w
}

// PassThroughOptions are the arguments of a command that parses its own
// (worker exec and worker sim: okstra's provider-exec contract, exit
// 64–68 on a bad one, docs/WORKERS.md).
type PassThroughOptions struct {
	IO   *IOStreams
	Args []string
}

// newPassThroughCmd makes a command that hands its arguments, unparsed, to
// run and exits with the status run returns. It handles its own signals
// (annotationOwnSignals).
func newPassThroughCmd(f *Factory, cmd *cobra.Command, runF func(*PassThroughOptions) error) *cobra.Command {
	opts := &PassThroughOptions{IO: f.IO}
	cmd.DisableFlagParsing = true
	cmd.Annotations = map[string]string{annotationOwnSignals: "true"}
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		opts.Args = args
		return runF(opts)
	}
	return cmd
}

// codeOf turns a program's exit status into the command's error.
func codeOf(code int) error {
	if code != 0 {
		return &codedError{code: ExitCode(code)}
	}
	return nil
}

// NewCmdWorkerExec is `worker exec`; runF (workerExecRun when nil) runs it.
func NewCmdWorkerExec(f *Factory, runF func(*PassThroughOptions) error) *cobra.Command {
	if runF == nil {
		runF = workerExecRun
	}
	return newPassThroughCmd(f, &cobra.Command{
		Use:   "exec <provider> <project-root> <model-execution-value> <prompt-path> [worktree] [role] [idle-timeout-s] [--presentation live|quiet] [--session-id <uuid>] [--invocation-metadata <path>]",
		Short: "Run one provider CLI on one prompt: log, idle timeout, signals, status sidecar",
		Long: `worker exec is the okstra provider-exec: it feeds the prompt to the provider CLI,
tees its output to <prompt>.log, writes <prompt>.status.json ("started", then a
terminal status with the exit code), turns a long silence into "timeout", and on
SIGTERM/SIGHUP still writes a terminal status. Preflight failures exit 64-68
with one line. See docs/WORKERS.md.`,
	}, runF)
}

func workerExecRun(o *PassThroughOptions) error {
	return codeOf(workers.Exec(o.Args, o.IO.In, o.IO.Out, o.IO.Err))
}

// NewCmdWorkerSim is the hidden `worker sim`; runF (workerSimRun when nil)
// runs it.
func NewCmdWorkerSim(f *Factory, runF func(*PassThroughOptions) error) *cobra.Command {
	if runF == nil {
		runF = workerSimRun
	}
	return newPassThroughCmd(f, &cobra.Command{
		Use:    "sim --model <sim-model>",
		Short:  "The built-in simulated provider CLI (no LLM needed)",
		Hidden: true,
	}, runF)
}

func workerSimRun(o *PassThroughOptions) error {
	return codeOf(workers.RunSim(o.Args, o.IO.In, o.IO.Out, o.IO.Err))
}

// TailOptions are the flags of the hidden `worker tail`.
type TailOptions struct {
	IO  *IOStreams
	Ctx context.Context
	PID int
	Log string
}

// NewCmdWorkerTail parses `worker tail`; runF (workerTailRun when nil)
// does it.
func NewCmdWorkerTail(f *Factory, runF func(*TailOptions) error) *cobra.Command {
	opts := &TailOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:    "tail --pid <pid> <log>",
		Short:  "Follow a worker's log until its process exits (what a \"running elsewhere\" pane runs)",
		Hidden: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{fmt.Errorf("worker tail takes one log file")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.PID <= 0 {
				return &usageError{fmt.Errorf("--pid is required: the worker process whose exit ends the tail")}
			}
			opts.Ctx, opts.Log = cmd.Context(), args[0]
			if runF != nil {
				return runF(opts)
			}
			return workerTailRun(opts)
		},
	}
	cmd.Flags().IntVar(&opts.PID, "pid", 0, "the worker process; the tail ends when it exits")
	return cmd
}

func workerTailRun(o *TailOptions) error {
	return watch.TailLog(o.Ctx, o.IO.Out, o.Log, o.PID, 256<<10)
}
