package main

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
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
	// RunCLIWrapper passes SIGTERM/SIGINT/SIGHUP on to the workers and
	// settles the batch; this channel only notes which signal came, so the
	// command ends with 128+signal like every other one. (A cancelling
	// context here would reach the workers a second time, which reads as
	// insisting and skips their graceful stop.)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
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
	if ctx == nil {
		ctx = context.Background()
	}
	select {
	case s := <-sigs: // before anything is recorded: stop here
		noteSignal(s)
		return interruptedError()
	default:
	}
	res, err := runtime.RunCLIWrapper(ctx, batch, self)
	select {
	case s := <-sigs:
		noteSignal(s)
	default:
	}
	if err != nil {
		return err
	}
	if werr := writeJSON(io.Out, dispatchOutput{Dispatches: res.Dispatches, ProgressLines: nonNil(res.Lines)}); werr != nil {
		return werr
	}
	if caught.Load() != 0 {
		return interruptedError()
	}
	return nil
}

// requireJobs refuses a missing --jobs-file before anything is read.
func (o *dispatchOptions) requireJobs() error {
	if o.jobsFile == "" {
		return &usageError{&state.Error{Field: "--jobs-file", Msg: "is required; pass the jobs file written by `okstra agent-prompt jobs`"}}
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// caught is the signal that interrupted the command (0: none). Main turns
// an interrupted command's context.Canceled into exit 128+signal (130 for
// SIGINT, 143 for SIGTERM, 129 for SIGHUP), as the worker wrapper does.
var caught atomic.Int32

// stopSignals are the signals a command ends on gracefully.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// interruptible returns a context cancelled on SIGINT/SIGTERM/SIGHUP,
// noting the signal in caught.
func interruptible() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals...)
	go func() {
		select {
		case s := <-ch:
			noteSignal(s)
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel()
	}
}

func noteSignal(s os.Signal) {
	if n, ok := s.(syscall.Signal); ok {
		caught.CompareAndSwap(0, int32(n))
	}
}

// interruptedError is how a command that finished its own graceful stop
// after a signal ends: Main prints "<cmd>: interrupted by <SIG>" and exits
// 128+signal.
func interruptedError() error { return context.Canceled }
