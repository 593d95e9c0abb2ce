package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime"

	"github.com/okstra/cockpit/workers"
)

func newWorkerCmd(io *streams) *cobra.Command {
	w := &cobra.Command{
		Use:   "worker",
		Short: "The worker wrapper a pane runs",
		Args:  noArgs,
	}
	exec := &cobra.Command{
		Use:   "exec <provider> <project-root> <model-execution-value> <prompt-path> [worktree] [role] [idle-timeout-s] [--presentation live|quiet] [--session-id <uuid>] [--invocation-metadata <path>]",
		Short: "Run one provider CLI on one prompt: log, idle timeout, signals, status sidecar",
		Long: `worker exec is the okstra provider-exec: it feeds the prompt to the provider CLI,
tees its output to <prompt>.log, writes <prompt>.status.json ("started", then a
terminal status with the exit code), turns a long silence into "timeout", and on
SIGTERM/SIGHUP still writes a terminal status. Preflight failures exit 64-68
with one line. See docs/WORKERS.md.`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := workers.Exec(args, io.In, io.Out, io.Err); code != 0 {
				return &codedError{code: ExitCode(code)}
			}
			return nil
		},
	}
	sim := &cobra.Command{
		Use:                "sim --model <sim-model>",
		Short:              "The built-in simulated provider CLI (no LLM needed)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := workers.RunSim(args, io.In, io.Out, io.Err); code != 0 {
				return &codedError{code: ExitCode(code)}
			}
			return nil
		},
	}
	var tailPID int
	tail := &cobra.Command{
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
			ctx, cancel := interruptible()
			defer cancel()
			return runtime.TailLog(ctx, io.Out, args[0], tailPID, 256<<10)
		},
	}
	tail.Flags().IntVar(&tailPID, "pid", 0, "the worker process; the tail ends when it exits")
	w.AddCommand(exec, sim, tail)
	return w
}
