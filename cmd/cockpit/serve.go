package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime"
)

type serveOptions struct {
	run  runFlags
	json jsonFlag
}

func newServeCmd(io *streams) *cobra.Command {
	opts := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve [--json] [-- <lead command>...]",
		Short: "Run the cockpit engine without a screen: panes, control socket, events on stdout",
		Long: `serve is the cockpit without its screen: it serves the run's control socket,
runs worker panes for team dispatch (their output is kept, not shown) and
prints the cockpit's events as lines (--json: one object per line) until
SIGTERM or SIGINT, when it closes every pane — the workers write terminal
sidecars — and settles the run. Use it where no terminal is at hand (CI,
scripts); "cockpit open" is the same engine with the screen.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			run, err := opts.run.load()
			if err != nil {
				return err
			}
			self, err := selfPath()
			if err != nil {
				return err
			}
			cfg := runtime.CockpitConfig{Run: run, Self: self, Lead: args}
			if len(args) > 0 {
				shim, removeShim, err := okstraShim(self)
				if err != nil {
					return err
				}
				defer removeShim()
				cfg.LeadPath = []string{shim}
			}
			cp, err := runtime.StartCockpit(cfg)
			if err != nil {
				return err
			}
			sigs := make(chan os.Signal, 2)
			signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
			defer signal.Stop(sigs)
			events, stop := cp.Subscribe()
			defer stop()
			fmt.Fprintf(io.Err, "cockpit serve: serving %s at %s\n", run.Manifest.Display, cp.SocketPath())
			var prev *runtime.RunView
			for {
				select {
				case ev := <-events:
					for _, m := range runtime.WireEvents(prev, ev) {
						if opts.json.on {
							_ = writeJSONCompact(io, m)
						} else {
							fmt.Fprintln(io.Out, eventLine(m))
						}
					}
					if vu, ok := ev.(runtime.ViewUpdated); ok {
						v := vu.View
						prev = &v
					}
				case <-sigs:
					return cp.Close()
				}
			}
		},
	}
	opts.run.add(cmd)
	opts.json.add(cmd)
	return cmd
}
