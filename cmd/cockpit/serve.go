package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/engine"
	"github.com/okstra/cockpit/runtime/registry"
	"github.com/okstra/cockpit/tui"
	"github.com/okstra/cockpit/tui/attach"
	"github.com/okstra/cockpit/tui/host"
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
	h := host.New(o.Prefix)
	cp, removeShim, err := startEngine(&o.Run, o.Lead, func(c *engine.Config) { c.Attach = h.Attach })
	if err != nil {
		return err
	}
	defer removeShim()
	h.SetEngine(cp)
	run := cp.Run()
	reg, err := registry.Register(registry.Entry{
		PID: os.Getpid(), Socket: cp.SocketPath(), ProjectRoot: run.Root.Dir(), RunManifest: run.Manifest.Display,
		TaskKey: run.Manifest.TaskKey, Started: cp.Started(),
	})
	if err != nil {
		cp.Close()
		return err
	}
	defer reg.Close()
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
			h.EndAll(attach.Outcome{Reason: attach.ReasonRunEnded, Message: "the run was ended"}, 5*time.Second)
			return cp.Close()
		case <-o.Ctx.Done():
			h.EndAll(attach.Outcome{Reason: attach.ReasonRunEnded, Message: "the engine was stopped by a signal"}, 5*time.Second)
			return cp.Close()
		}
	}
}
