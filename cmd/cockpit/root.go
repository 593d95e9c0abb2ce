package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// ExitCode is the process exit status of a command.
type ExitCode int

const (
	exitOK        ExitCode = 0
	exitError     ExitCode = 1
	exitUsage     ExitCode = 2
	exitCancelled ExitCode = 130
)

// exitError carries an explicit exit status (the worker wrapper's 64–68
// preflight codes, a wrapped child's status) through cobra.
type codedError struct {
	code ExitCode
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// usageError marks a mistake in flags or arguments.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// streams are the command's standard streams, swapped for buffers in tests.
type streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// Main runs the cockpit with args and returns its exit status. Errors are
// printed once, as "cockpit <cmd>: <reason>".
func Main(args []string, in io.Reader, out, errw io.Writer) ExitCode {
	io := &streams{In: in, Out: out, Err: errw}
	root := newRootCmd(io)
	root.SetArgs(args)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errw)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	name := "cockpit"
	if cmd != nil {
		name = cmd.CommandPath()
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(errw, "%s: interrupted\n", name)
		return exitCancelled
	}
	var coded *codedError
	if errors.As(err, &coded) {
		if coded.err != nil && coded.err.Error() != "" {
			fmt.Fprintf(errw, "%s: %v\n", name, coded.err)
		}
		return coded.code
	}
	fmt.Fprintf(errw, "%s: %v\n", name, err)
	var usage *usageError
	if errors.As(err, &usage) || isCobraUsageError(err) {
		return exitUsage
	}
	return exitError
}

func newRootCmd(io *streams) *cobra.Command {
	root := &cobra.Command{
		Use:           "cockpit",
		Short:         "A terminal cockpit for okstra multi-agent runs",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	root.AddCommand(
		newLeadProgressCmd(io),
		newWorkerDispatchCmd(io),
		newTeamCmd(io),
		newWorkerLivenessCmd(io),
		newWorkerCmd(io),
		newEventsCmd(io),
		newReplayCmd(io),
		newDemoCmd(io),
		newServeCmd(io),
		newOpenCmd(io),
		newApprovalDecisionCmd(io),
		newUserResponseCmd(io),
		newWizardCmd(io),
		newGateCmd(io),
	)
	return root
}

// isCobraUsageError recognises cobra's own argument errors, which it does not
// type.
func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "requires at most", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
