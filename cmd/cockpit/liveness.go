package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime/team"
	"github.com/okstra/cockpit/state"
)

// LivenessOptions are the flags of `worker-liveness`.
type LivenessOptions struct {
	IO         *IOStreams
	Ctx        context.Context
	Run        runFlags
	TeamState  string
	DispatchID string
	Wait       bool
	Timeout    time.Duration
	JSON       bool
}

// NewCmdWorkerLiveness parses and checks `worker-liveness`; runF
// (workerLivenessRun when nil) does it.
func NewCmdWorkerLiveness(f *Factory, runF func(*LivenessOptions) error) *cobra.Command {
	opts := &LivenessOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "worker-liveness --dispatch-id <id> [--wait]",
		Short: "Tell whether a dispatched worker is alive, done or dead",
		Long: `worker-liveness reads a dispatch's status sidecar: done when it is terminal,
dead when it is stuck at "started" (or was never written) and the wrapper
process is gone, alive otherwise. With --wait it blocks until done or dead.
The team-state comes from --run-manifest, or directly from --team-state.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.DispatchID == "" {
				return &usageError{fmt.Errorf("--dispatch-id is required")}
			}
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return workerLivenessRun(opts)
		},
	}
	opts.Run.add(f, cmd)
	cmd.Flags().StringVar(&opts.TeamState, "team-state", "", "the team-state file (instead of --run-manifest)")
	cmd.Flags().StringVar(&opts.DispatchID, "dispatch-id", "", "the dispatch to probe (e.g. dispatch-002)")
	cmd.Flags().BoolVar(&opts.Wait, "wait", false, "block until the worker is done or dead")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 0, "with --wait, give up after this long")
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

func workerLivenessRun(o *LivenessOptions) error {
	var root state.Root
	var tsPath, display string
	if o.TeamState != "" {
		r, err := state.OpenRoot(o.Run.ProjectRoot)
		if err != nil {
			return err
		}
		p, err := r.Resolve(o.TeamState, "--team-state")
		if err != nil {
			return err
		}
		root, tsPath, display = r, p, o.TeamState
	} else {
		run, err := o.Run.load()
		if err != nil {
			return err
		}
		root, tsPath, display = run.Root, run.TeamStatePath, run.Manifest.TeamStatePath
	}
	rep, err := team.Liveness(o.Ctx, root, tsPath, display, o.DispatchID, o.Wait, o.Timeout)
	if rep != nil {
		if o.JSON {
			if werr := writeJSON(o.IO.Out, rep); werr != nil {
				return werr
			}
		} else {
			line := fmt.Sprintf("%s %s (%s)", rep.DispatchID, rep.Liveness, rep.Status)
			if rep.Reason != "" {
				line += ": " + rep.Reason
			}
			fmt.Fprintln(o.IO.Out, line)
		}
	}
	if errors.Is(err, team.ErrAwaitTimeout) {
		return &codedError{code: 3, err: fmt.Errorf("%s still alive after %s", o.DispatchID, o.Timeout)}
	}
	return err
}
