package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime/control"
)

// EventsOptions are the flags of `events`.
type EventsOptions struct {
	IO   *IOStreams
	Ctx  context.Context
	Run  runFlags
	JSON bool
}

// NewCmdEvents parses `events`; runF (eventsRun when nil) does it.
func NewCmdEvents(f *Factory, runF func(*EventsOptions) error) *cobra.Command {
	opts := &EventsOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "events [--json]",
		Short: "Stream the cockpit's events: panes opened and closed, dispatch status, checkpoints, gates",
		Long: `events connects to the run's cockpit and prints its events as they happen until
interrupted or the cockpit exits: one JSON object per line with --json
({"event": "...", "data": {...}}), a readable line otherwise. See docs/PROTOCOL.md.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return eventsRun(opts)
		},
	}
	opts.Run.add(f, cmd)
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

// eventsRun prints the cockpit's events until the cockpit goes or a signal
// comes: both are its normal end (exit 0).
func eventsRun(o *EventsOptions) error {
	run, err := o.Run.load()
	if err != nil {
		return err
	}
	cl, err := control.DialRunAs(o.Ctx, run, control.RunDial{Client: "cockpit events"})
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := cl.Subscribe(o.Ctx); err != nil {
		return err
	}
	for {
		select {
		case ev, ok := <-cl.Events():
			if !ok {
				return nil
			}
			if err := printEvent(o.IO, o.JSON, ev); err != nil {
				return err
			}
		case <-o.Ctx.Done():
			return nil
		}
	}
}

// printEvent prints one event: a JSON line with asJSON, else eventLine.
func printEvent(io *IOStreams, asJSON bool, ev control.EventMessage) error {
	if asJSON {
		return writeJSONLine(io.Out, ev)
	}
	_, err := fmt.Fprintln(io.Out, eventLine(ev))
	return err
}

// eventLine renders an event for people: the name and its fields.
func eventLine(ev control.EventMessage) string { return control.EventLine(ev) }
