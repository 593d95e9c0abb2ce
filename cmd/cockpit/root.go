package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

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

// annotationOwnSignals marks a command that handles SIGINT, SIGTERM and
// SIGHUP itself (the worker wrapper and the sim provider: their signal
// contract is okstra's provider-exec). Main makes no signal context for it,
// so a signal keeps reaching only the command's own handlers.
const annotationOwnSignals = "cockpit/own-signals"

// annotationNoWait marks a command that does its work and ends without
// waiting for anything (a ledger append, a sidecar write): it catches no
// signal unless it comes to wait (signalCtx.Done), so the calls a lead makes
// dozens of times a run start fast, and a signal keeps its default action
// on them. Every other command catches SIGINT, SIGTERM and SIGHUP from its
// start.
const annotationNoWait = "cockpit/no-wait"

// noWait is the annotation set of a command that does not wait.
func noWait() map[string]string { return map[string]string{annotationNoWait: "true"} }

// Main runs the cockpit with args and returns its exit status. Errors are
// printed once, as "cockpit <cmd>: <reason>".
func Main(args []string, in io.Reader, out, errw io.Writer) ExitCode {
	return mainAs("cockpit", args, in, out, errw)
}

// mainAs runs the command tree under the program name prog: "cockpit", or
// "okstra" when the okstra shim routes one of the commands the cockpit owns
// (okstra.go). Errors are printed once, as "<prog> <cmd>: <reason>".
//
// It makes the process's one signal context (signalCtx) and runs the
// command with it: every command reads cmd.Context(). A command ended by a
// signal returns context.Canceled; Main turns that into exit 128+signal
// and "<cmd>: interrupted by <SIG>".
func mainAs(prog string, args []string, in io.Reader, out, errw io.Writer) ExitCode {
	f := newFactory(in, out, errw)
	root := newRootCmdFor(f, args)
	root.Use = prog
	strictGroups(root)
	root.SetArgs(args)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errw)
	ctx := context.Background()
	target, _, err := root.Find(args)
	if err != nil || target.Annotations[annotationOwnSignals] == "" {
		sc := newSignalContext(ctx)
		defer sc.stop()
		if err != nil || target.Annotations[annotationNoWait] == "" {
			sc.Done() // catch the signals from the start
		}
		ctx = sc
	}
	cmd, err := root.ExecuteContextC(ctx)
	return exitFor(ctx, prog, cmd, err, errw)
}

// exitFor prints err once, as "<cmd>: <reason>", and maps it to the exit
// status: the one table of error kinds to codes (ok, error, usage,
// cancelled or signalled, a command's own code).
func exitFor(ctx context.Context, prog string, cmd *cobra.Command, err error, errw io.Writer) ExitCode {
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
		if sig := signalOf(ctx); sig != 0 {
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

// topLevel are the root's commands, by the names (and aliases) that call
// them. TestTopLevelNames keeps the names in step with the commands.
var topLevel = []struct {
	names []string
	make  func(*Factory) *cobra.Command
}{
	{[]string{"lead-progress"}, NewCmdLeadProgress},
	{[]string{"worker-dispatch", "codex-dispatch"}, func(f *Factory) *cobra.Command { return NewCmdWorkerDispatch(f, nil) }},
	{[]string{"team"}, NewCmdTeam},
	{[]string{"worker-liveness"}, func(f *Factory) *cobra.Command { return NewCmdWorkerLiveness(f, nil) }},
	{[]string{"worker"}, NewCmdWorker},
	{[]string{"events"}, func(f *Factory) *cobra.Command { return NewCmdEvents(f, nil) }},
	{[]string{"replay"}, func(f *Factory) *cobra.Command { return NewCmdReplay(f, nil) }},
	{[]string{"demo"}, func(f *Factory) *cobra.Command { return NewCmdDemo(f, nil) }},
	{[]string{"serve"}, func(f *Factory) *cobra.Command { return NewCmdServe(f, nil) }},
	{[]string{"open"}, func(f *Factory) *cobra.Command { return NewCmdOpen(f, nil) }},
	{[]string{"attach"}, func(f *Factory) *cobra.Command { return NewCmdAttach(f, nil) }},
	{[]string{"ls"}, func(f *Factory) *cobra.Command { return NewCmdLs(f, nil) }},
	{[]string{"stop"}, func(f *Factory) *cobra.Command { return NewCmdStop(f, nil) }},
	{[]string{"engine"}, func(f *Factory) *cobra.Command { return NewCmdEngine(f, nil) }},
	{[]string{"approval-decision"}, NewCmdApprovalDecision},
	{[]string{"user-response"}, NewCmdUserResponse},
	{[]string{"wizard"}, func(f *Factory) *cobra.Command { return NewCmdWizard(f, nil) }},
	{[]string{"gate"}, NewCmdGate},
	{[]string{"logs"}, func(f *Factory) *cobra.Command { return NewCmdLogs(f, nil) }},
}

// newRootCmd is the whole command tree.
func newRootCmd(f *Factory) *cobra.Command {
	return newRootCmdFor(f, nil)
}

// newRootCmdFor is the command tree args need: when args name a command
// (the headless calls a lead makes dozens of times a run), the root and
// that command's subtree alone, so a call does not build thirty commands
// and their flag sets to run one; the whole tree otherwise (help,
// completion, an unknown name: they list or search every command).
func newRootCmdFor(f *Factory, args []string) *cobra.Command {
	root := &cobra.Command{
		Use:           "cockpit",
		Short:         "A terminal cockpit for okstra multi-agent runs",
		SilenceErrors: true,
		SilenceUsage:  true,
		// One error line: no "Did you mean this?" block after an unknown
		// command.
		DisableSuggestions: true,
		Version:            version(),
	}
	root.SetVersionTemplate("{{.Use}} {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	if len(args) > 0 {
		for _, c := range topLevel {
			if slices.Contains(c.names, args[0]) {
				root.AddCommand(c.make(f))
				root.CompletionOptions.DisableDefaultCmd = true // not asked for
				return root
			}
		}
	}
	for _, c := range topLevel {
		root.AddCommand(c.make(f))
	}
	root.InitDefaultCompletionCmd()
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
