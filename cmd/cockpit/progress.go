package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime"
)

type progressOptions struct {
	run    runFlags
	phase  string
	worker string
	fields []string
	detail string
	json   jsonFlag
}

func newLeadProgressCmd(io *streams) *cobra.Command {
	lp := &cobra.Command{
		Use:   "lead-progress",
		Short: "Record lead checkpoints in the run's lead-events ledger",
		Args:  noArgs,
	}
	opts := &progressOptions{}
	appendCmd := &cobra.Command{
		Use:   "append --phase <phase-id> [--worker <role>] [--field K=V]... [--detail <text>]",
		Short: "Append one checkpoint and print its PROGRESS line as {\"progressLine\": ...}",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return progressRun(io, opts)
		},
	}
	opts.run.add(appendCmd)
	f := appendCmd.Flags()
	f.StringVar(&opts.phase, "phase", "", "the checkpoint id (e.g. phase-4-dispatch)")
	f.StringVar(&opts.worker, "worker", "", "the roster role (\"Codex worker\"; \"codex-worker\" is accepted)")
	f.StringArrayVar(&opts.fields, "field", nil, "a NAME=VALUE token of the line, in order; repeatable")
	f.StringVar(&opts.detail, "detail", "", "the verb phrase that ends the line")
	opts.json.add(appendCmd) // it always prints {"progressLine": ...}; --json is accepted and prints the same
	lp.AddCommand(appendCmd)
	return lp
}

func progressRun(io *streams, o *progressOptions) error {
	if o.phase == "" {
		return &usageError{fmt.Errorf("--phase is required")}
	}
	var fields [][2]string
	for _, kv := range o.fields {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t\r\n") {
			return &usageError{fmt.Errorf("--field %q must be NAME=VALUE with a NAME free of spaces", kv)}
		}
		if strings.ContainsAny(v, "\r\n") {
			return &usageError{fmt.Errorf("--field %s: the value must be one line", k)}
		}
		fields = append(fields, [2]string{k, v})
	}
	if strings.ContainsAny(o.detail, "\r\n") {
		return &usageError{fmt.Errorf("--detail must be one line")}
	}
	if strings.ContainsAny(o.worker, "\r\n") {
		return &usageError{fmt.Errorf("--worker must be one line")}
	}
	run, err := o.run.load()
	if err != nil {
		return err
	}
	line, err := runtime.AppendProgress(run, o.phase, o.worker, fields, o.detail)
	if err != nil {
		return err
	}
	return writeJSONCompact(io, map[string]string{"progressLine": line})
}
