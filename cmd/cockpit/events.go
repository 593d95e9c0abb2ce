package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime"
)

type eventsOptions struct {
	run  runFlags
	json jsonFlag
}

func newEventsCmd(io *streams) *cobra.Command {
	opts := &eventsOptions{}
	cmd := &cobra.Command{
		Use:   "events [--json]",
		Short: "Stream the cockpit's events: panes opened and closed, dispatch status, checkpoints, gates",
		Long: `events connects to the run's cockpit and prints its events as they happen until
interrupted or the cockpit exits: one JSON object per line with --json
({"event": "...", "data": {...}}), a readable line otherwise. See docs/PROTOCOL.md.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			run, err := opts.run.load()
			if err != nil {
				return err
			}
			ctx, cancel := interruptible()
			defer cancel()
			cl, err := runtime.DialRun(ctx, run, "cockpit events")
			if err != nil {
				return err
			}
			defer cl.Close()
			if err := cl.Subscribe(ctx); err != nil {
				return err
			}
			for {
				select {
				case ev, ok := <-cl.Events():
					if !ok {
						return nil
					}
					if opts.json.on {
						if err := writeJSONCompact(io, ev); err != nil {
							return err
						}
						continue
					}
					fmt.Fprintln(io.Out, eventLine(ev))
				case <-ctx.Done():
					return nil
				}
			}
		},
	}
	opts.run.add(cmd)
	opts.json.add(cmd)
	return cmd
}

// eventLine renders an event for people: the name and its fields.
func eventLine(ev runtime.EventMessage) string {
	var fields map[string]any
	_ = json.Unmarshal(ev.Data, &fields)
	var b strings.Builder
	b.WriteString(ev.Event)
	for _, k := range []string{"paneId", "dispatchId", "title", "executionLabel", "status", "reason", "pending", "done", "progressLine", "gateId", "statement", "text"} {
		if v, ok := fields[k]; ok && v != "" && v != nil {
			fmt.Fprintf(&b, " %s=%v", k, v)
		}
	}
	return b.String()
}
