package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime"
	"github.com/okstra/cockpit/state"
)

type livenessOptions struct {
	run        runFlags
	teamState  string
	dispatchID string
	wait       bool
	timeout    time.Duration
	json       jsonFlag
}

func newWorkerLivenessCmd(io *streams) *cobra.Command {
	opts := &livenessOptions{}
	cmd := &cobra.Command{
		Use:   "worker-liveness --dispatch-id <id> [--wait]",
		Short: "Tell whether a dispatched worker is alive, done or dead",
		Long: `worker-liveness reads a dispatch's status sidecar: done when it is terminal,
dead when it is stuck at "started" (or was never written) and the wrapper
process is gone, alive otherwise. With --wait it blocks until done or dead.
The team-state comes from --run-manifest, or directly from --team-state.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return livenessRun(io, opts)
		},
	}
	opts.run.add(cmd)
	cmd.Flags().StringVar(&opts.teamState, "team-state", "", "the team-state file (instead of --run-manifest)")
	cmd.Flags().StringVar(&opts.dispatchID, "dispatch-id", "", "the dispatch to probe (e.g. dispatch-002)")
	cmd.Flags().BoolVar(&opts.wait, "wait", false, "block until the worker is done or dead")
	cmd.Flags().DurationVar(&opts.timeout, "timeout", 0, "with --wait, give up after this long")
	opts.json.add(cmd)
	return cmd
}

func livenessRun(io *streams, o *livenessOptions) error {
	if o.dispatchID == "" {
		return &usageError{fmt.Errorf("--dispatch-id is required")}
	}
	var root state.Root
	var tsPath, display string
	if o.teamState != "" {
		r, err := state.OpenRoot(o.run.ProjectRoot)
		if err != nil {
			return err
		}
		p, err := r.Resolve(o.teamState, "--team-state")
		if err != nil {
			return err
		}
		root, tsPath, display = r, p, o.teamState
	} else {
		run, err := o.run.load()
		if err != nil {
			return err
		}
		root, tsPath, display = run.Root, run.TeamStatePath, run.Manifest.TeamStatePath
	}
	ctx, cancel := interruptible()
	defer cancel()
	rep, err := runtime.Liveness(ctx, root, tsPath, display, o.dispatchID, o.wait, o.timeout)
	if rep != nil {
		if o.json.on {
			if werr := writeJSON(io.Out, rep); werr != nil {
				return werr
			}
		} else {
			line := fmt.Sprintf("%s %s (%s)", rep.DispatchID, rep.Liveness, rep.Status)
			if rep.Reason != "" {
				line += ": " + rep.Reason
			}
			fmt.Fprintln(io.Out, line)
		}
	}
	if errors.Is(err, runtime.ErrAwaitTimeout) {
		return &codedError{code: 3, err: fmt.Errorf("%s still alive after %s", o.dispatchID, o.timeout)}
	}
	return err
}
