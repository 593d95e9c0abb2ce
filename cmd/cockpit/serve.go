package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/engine"
	"github.com/okstra/cockpit/tui"
)

// ServeOptions are the flags of `serve`.
type ServeOptions struct {
	IO     *IOStreams
	Ctx    context.Context
	Run    runFlags
	Lead   []string // the lead command after --, if any
	JSON   bool
	Prefix string // attached screens' prefix key
}

// NewCmdServe parses `serve`; runF (serveRun when nil) does it.
func NewCmdServe(f *Factory, runF func(*ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{IO: f.IO, Prefix: f.envOr("COCKPIT_PREFIX", tui.DefaultPrefix)}
	cmd := &cobra.Command{
		Use:   "serve [--json] [-- <lead command>...]",
		Short: "Run the cockpit engine without a screen: panes, control socket, events on stdout",
		Long: `serve is the cockpit without its screen: it serves the run's control socket,
runs worker panes for team dispatch (their output is kept, not shown) and
prints the cockpit's events as lines (--json: one object per line) until
SIGTERM or SIGINT, when it closes every pane — the workers write terminal
sidecars — and settles the run. Use it where no terminal is at hand (CI,
scripts); "cockpit open" is the same engine with the screen. It is listed by
cockpit ls, and cockpit attach brings a screen to it; ending the run from that
screen, or cockpit stop, ends serve too.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx, opts.Lead = cmd.Context(), args
			if runF != nil {
				return runF(opts)
			}
			return serveRun(opts)
		},
	}
	opts.Run.add(f, cmd)
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

// serveRun runs the engine until a signal, its normal end: it closes the
// cockpit (every pane gets its hang-up) and exits 0.
func serveRun(o *ServeOptions) error {
	he, err := startHosted(&o.Run, o.Lead, o.Prefix, false, func(*engine.Config) {})
	if err != nil {
		return err
	}
	cp := he.cp
	events, stop := cp.Subscribe()
	defer stop()
	fmt.Fprintf(o.IO.Err, "cockpit serve: serving %s at %s\n", o.Run.RunManifest, cp.SocketPath())
	var wire control.Wire
	for {
		select {
		case ev := <-events:
			for _, m := range wire.Next(ev) {
				_ = printEvent(o.IO, o.JSON, m)
			}
		case <-cp.Stopping():
			return he.end("the run was ended")
		case <-o.Ctx.Done():
			return he.end("the engine was stopped by a signal")
		}
	}
}
