package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime/team"
	"github.com/okstra/cockpit/state"
)

// LeadProgressOptions are the flags of `lead-progress append`.
type LeadProgressOptions struct {
	IO     *IOStreams
	Run    runFlags
	Phase  string
	Worker string
	Fields [][2]string // --field NAME=VALUE, parsed, in order
	Detail string
	JSON   bool // it always prints {"progressLine": ...}; --json is accepted and prints the same

	fields []string
}

// NewCmdLeadProgress is the lead-progress group.
func NewCmdLeadProgress(f *Factory) *cobra.Command {
	lp := &cobra.Command{
		Use:   "lead-progress",
		Short: "Record lead checkpoints in the run's lead-events ledger",
		Args:  noArgs,
	}
	lp.AddCommand(NewCmdLeadProgressAppend(f, nil))
	return lp
}

// NewCmdLeadProgressAppend parses and checks `lead-progress append`; runF
// (leadProgressAppendRun when nil) does it.
func NewCmdLeadProgressAppend(f *Factory, runF func(*LeadProgressOptions) error) *cobra.Command {
	opts := &LeadProgressOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:         "append --phase <phase-id> [--worker <role>] [--field K=V]... [--detail <text>]",
		Short:       "Append one checkpoint and print its PROGRESS line as {\"progressLine\": ...}",
		Args:        noArgs,
		Annotations: noWait(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return leadProgressAppendRun(opts)
		},
	}
	opts.Run.add(f, cmd)
	fl := cmd.Flags()
	// An enumerated flag (the shared enumVar): an unknown phase id is a
	// usage error, exit 2, one line listing the ids, before anything is read.
	enumVar(cmd, &opts.Phase, "phase", "", "the checkpoint's `phase-id` (e.g. phase-4-dispatch): one of the lead contract's ids", nil, state.PhaseIDs...)
	fl.StringVar(&opts.Worker, "worker", "", "the roster role (\"Codex worker\"; \"codex-worker\" is accepted)")
	fl.StringArrayVar(&opts.fields, "field", nil, "a NAME=VALUE token of the line, in order; repeatable")
	fl.StringVar(&opts.Detail, "detail", "", "the verb phrase that ends the line")
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

func (o *LeadProgressOptions) validate() error {
	if o.Phase == "" {
		return &usageError{fmt.Errorf("--phase is required")}
	}
	o.Fields = nil
	for _, kv := range o.fields {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t\r\n") {
			return &usageError{fmt.Errorf("--field %q must be NAME=VALUE with a NAME free of spaces", kv)}
		}
		if strings.ContainsAny(v, "\r\n") {
			return &usageError{fmt.Errorf("--field %s: the value must be one line", k)}
		}
		o.Fields = append(o.Fields, [2]string{k, v})
	}
	if strings.ContainsAny(o.Detail, "\r\n") {
		return &usageError{fmt.Errorf("--detail must be one line")}
	}
	if strings.ContainsAny(o.Worker, "\r\n") {
		return &usageError{fmt.Errorf("--worker must be one line")}
	}
	return nil
}

func leadProgressAppendRun(o *LeadProgressOptions) error {
	run, err := o.Run.load()
	if err != nil {
		return err
	}
	line, err := team.AppendProgress(run, o.Phase, o.Worker, o.Fields, o.Detail)
	if err != nil {
		return err
	}
	return writeJSONLine(o.IO.Out, map[string]string{"progressLine": line})
}
