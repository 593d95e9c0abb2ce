package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/state"
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
	return mainAs("cockpit", args, in, out, errw)
}

// mainAs runs the command tree under the program name prog: "cockpit", or
// "okstra" when the okstra shim routes one of the commands the cockpit owns
// (okstra.go). Errors are printed once, as "<prog> <cmd>: <reason>".
func mainAs(prog string, args []string, in io.Reader, out, errw io.Writer) ExitCode {
	caught.Store(0)
	io := &streams{In: in, Out: out, Err: errw}
	root := newRootCmd(io)
	root.Use = prog
	root.InitDefaultCompletionCmd()
	strictGroups(root)
	root.SetArgs(args)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errw)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	name := prog
	if cmd != nil {
		name = cmd.CommandPath()
		if as := cmd.CalledAs(); as != "" && as != cmd.Name() && cmd.HasParent() {
			name = cmd.Parent().CommandPath() + " " + as // an alias: codex-dispatch
		}
	}
	if errors.Is(err, context.Canceled) {
		if sig := syscall.Signal(caught.Load()); sig != 0 {
			fmt.Fprintf(errw, "%s: interrupted by %s\n", name, unix.SignalName(sig))
			return ExitCode(128 + int(sig))
		}
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
	if errors.As(err, &usage) || isCobraUsageError(err) || isMissingFlag(err) {
		return exitUsage
	}
	return exitError
}

// isMissingFlag recognises the engine's "--<flag>: is required" errors
// (state.LoadJobs, the approval commands): a missing required flag is a
// usage error wherever it is found.
func isMissingFlag(err error) bool {
	var se *state.Error
	return errors.As(err, &se) && se.File == "" && strings.HasPrefix(se.Field, "--") && strings.HasPrefix(se.Msg, "is required")
}

// strictGroups makes every command group (a command with subcommands and
// nothing to run of its own) answer an unknown subcommand as the root does:
// `<group>: unknown command "<name>" for "<group>"`, exit 2. A bare group,
// or one given -h/--help, prints its help to stdout and exits 0, as gh does.
// Groups take no flags, so their flag parsing is turned off: an unknown
// subcommand followed by its flags still reads as an unknown command.
func strictGroups(c *cobra.Command) {
	for _, sub := range c.Commands() {
		strictGroups(sub)
	}
	if !c.HasParent() || !c.HasSubCommands() || c.Runnable() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.DisableFlagParsing = true
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
			return cmd.Help() // to stdout
		}
		if strings.HasPrefix(args[0], "-") {
			return &usageError{fmt.Errorf("unknown flag: %s", args[0])}
		}
		return &usageError{fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())}
	}
}

func newRootCmd(io *streams) *cobra.Command {
	root := &cobra.Command{
		Use:           "cockpit",
		Short:         "A terminal cockpit for okstra multi-agent runs",
		SilenceErrors: true,
		SilenceUsage:  true,
		// One error line: no "Did you mean this?" block after an unknown
		// command.
		DisableSuggestions: true,
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
