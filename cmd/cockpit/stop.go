package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/watch"
)

// stopWait bounds how long stop waits for the engine to go (its panes'
// close grace, the settling of the run).
const stopWait = 60 * time.Second

// StopOptions are the flags of `stop`.
type StopOptions struct {
	IO     *IOStreams
	Ctx    context.Context
	Target engineTarget
	JSON   bool
}

// NewCmdStop parses `stop`; runF (stopRun when nil) does it.
func NewCmdStop(f *Factory, runF func(*StopOptions) error) *cobra.Command {
	opts := &StopOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "stop [NAME | --socket <path> | --project-root <dir> --run-manifest <path>]",
		Short: "End a run's engine from anywhere: close its panes, end its screens",
		Long: `stop ends the run an engine serves, as "end the run" on its screen does: every
pane is closed (each worker writes a terminal sidecar), every attached screen
ends with "the run was ended", and the engine exits. It returns once the engine
is gone. NAME is the engine's name from cockpit ls (or its pid, or the start of
its name); without one it stops your only live engine. It says which engine it
stopped and how it found it.`,
		Example: `  cockpit stop demo-1-001
  cockpit stop --project-root . --run-manifest .okstra/tasks/dev-1/runs/x/state/run-manifest.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.Target.args(cmd, args); err != nil {
				return err
			}
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return stopRun(opts)
		},
	}
	opts.Target.add(f, cmd, "stop")
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

func stopRun(o *StopOptions) error {
	target, err := o.Target.resolve(o.Ctx, o.IO.Err)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(o.Ctx, 10*time.Second)
	defer cancel()
	c, err := control.Dial(ctx, target.socket, "stop")
	if errors.Is(err, control.ErrNoCockpit) {
		return fmt.Errorf("no engine answers at %s (resolved from %s); `cockpit ls` lists the running ones", target.socket, target.via)
	}
	if err != nil {
		return err
	}
	hello := c.Hello
	_, err = control.Stop.Call(ctx, c, control.Empty{})
	c.Close()
	// An engine that is ending may close the connection before its reply
	// is out: a dropped connection after the request says it is going, and
	// the wait below tells whether it went.
	if err != nil && !connectionDropped(err) {
		return err
	}
	if err := waitGone(o.Ctx, hello.PID, stopWait); err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, map[string]any{"name": target.name, "pid": hello.PID, "runManifest": hello.RunManifest, "projectRoot": hello.ProjectRoot, "socket": target.socket, "stopped": true})
	}
	what := "the engine"
	if target.name != "" {
		what += " " + target.name
	}
	fmt.Fprintf(o.IO.Out, "stopped %s (pid %d) of %s, resolved from %s\n", what, hello.PID, hello.RunManifest, target.via)
	return nil
}

// connectionDropped says whether err is the connection ending rather than
// a reply.
func connectionDropped(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}

// waitGone waits, on the process's pidfd (no polling), until pid has
// exited, for at most d.
func waitGone(ctx context.Context, pid int, d time.Duration) error {
	w, err := watch.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	w.WatchPID(pid)
	timeout := time.After(d)
	for w.Alive(pid) {
		select {
		case <-w.Events():
		case <-ctx.Done():
			return ctx.Err()
		case <-timeout:
			return fmt.Errorf("the engine (pid %d) is still running %s after stop; see its log", pid, d)
		}
	}
	return nil
}
