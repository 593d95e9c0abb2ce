package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
	if err != nil && isCobraUsageError(err) {
		err = didYouMean(err, root)
	}
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
		err := fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := suggest(cmd, args[0]); len(s) > 0 {
			err = fmt.Errorf("%w; did you mean %s?", err, orList(s))
		}
		return &usageError{err}
	}
}

// Command groups of the root's help: the commands a person types first,
// then the ones okstra's lead agent calls (its contract), apart.
const (
	groupHuman = "human"
	groupLead  = "lead"
)

// topLevel are the root's commands, by the names (and aliases) that call
// them, in the order the root's help lists them within their group.
// TestTopLevelNames keeps the names in step with the commands.
var topLevel = []struct {
	names []string
	group string
	make  func(*Factory) *cobra.Command
}{
	{[]string{"demo"}, groupHuman, func(f *Factory) *cobra.Command { return NewCmdDemo(f, nil) }},
	{[]string{"open"}, groupHuman, func(f *Factory) *cobra.Command { return NewCmdOpen(f, nil) }},
	{[]string{"attach"}, groupHuman, func(f *Factory) *cobra.Command { return NewCmdAttach(f, nil) }},
	{[]string{"ls"}, groupHuman, func(f *Factory) *cobra.Command { return NewCmdLs(f, nil) }},
	{[]string{"stop"}, groupHuman, func(f *Factory) *cobra.Command { return NewCmdStop(f, nil) }},
	{[]string{"wizard"}, groupHuman, func(f *Factory) *cobra.Command { return NewCmdWizard(f, nil) }},
	{[]string{"serve"}, groupHuman, func(f *Factory) *cobra.Command { return NewCmdServe(f, nil) }},
	{[]string{"events"}, groupHuman, func(f *Factory) *cobra.Command { return NewCmdEvents(f, nil) }},
	{[]string{"replay"}, groupHuman, func(f *Factory) *cobra.Command { return NewCmdReplay(f, nil) }},
	{[]string{"logs"}, groupHuman, func(f *Factory) *cobra.Command { return NewCmdLogs(f, nil) }},
	{[]string{"version"}, groupHuman, NewCmdVersion},
	{[]string{"team"}, groupLead, NewCmdTeam},
	{[]string{"worker-dispatch", "codex-dispatch"}, groupLead, func(f *Factory) *cobra.Command { return NewCmdWorkerDispatch(f, nil) }},
	{[]string{"worker-liveness"}, groupLead, func(f *Factory) *cobra.Command { return NewCmdWorkerLiveness(f, nil) }},
	{[]string{"lead-progress"}, groupLead, NewCmdLeadProgress},
	{[]string{"gate"}, groupLead, NewCmdGate},
	{[]string{"approval-decision"}, groupLead, NewCmdApprovalDecision},
	{[]string{"user-response"}, groupLead, NewCmdUserResponse},
	{[]string{"worker"}, groupLead, NewCmdWorker},
	{[]string{"engine"}, groupLead, func(f *Factory) *cobra.Command { return NewCmdEngine(f, nil) }},
}

// rootLong is the root's help text.
const rootLong = `cockpit is a terminal cockpit for okstra multi-agent runs: the lead agent and
its worker CLIs in panes, live counts, gates the lead asks you, and a run that
outlives its terminal (detach, attach again, as in tmux).

Start with ` + "`cockpit demo`" + `: a throwaway run with simulated workers, no LLM CLI needed.`

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
		Long:          rootLong,
		SilenceErrors: true,
		SilenceUsage:  true,
		// One error line: the did-you-mean is ours (didYouMean), on it.
		DisableSuggestions: true,
		Version:            version(),
	}
	root.SetVersionTemplate("{{.Use}} {{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	root.SetUsageFunc(usageFunc)
	root.AddGroup(&cobra.Group{ID: groupHuman, Title: "Commands:"},
		&cobra.Group{ID: groupLead, Title: "For okstra's lead agent (its contract: docs/OKSTRA.md):"})
	root.SetHelpCommandGroupID(groupHuman)
	root.SetCompletionCommandGroupID(groupHuman)
	add := func(c struct {
		names []string
		group string
		make  func(*Factory) *cobra.Command
	}) {
		cmd := c.make(f)
		cmd.GroupID = c.group
		root.AddCommand(cmd)
	}
	if len(args) > 0 {
		for _, c := range topLevel {
			if slices.Contains(c.names, args[0]) {
				add(c)
				root.CompletionOptions.DisableDefaultCmd = true // not asked for
				return root
			}
		}
	}
	for _, c := range topLevel {
		add(c)
	}
	root.InitDefaultCompletionCmd()
	return root
}

// didYouMean adds to an unknown command's error, on the same line, the
// commands the word may have meant (suggest): `unknown command "atach" for
// "cockpit"; did you mean attach?`.
func didYouMean(err error, root *cobra.Command) error {
	msg := err.Error()
	word, ok := strings.CutPrefix(msg, "unknown command ")
	if !ok {
		return err
	}
	q, err2 := strconvUnquotePrefix(word)
	if err2 != nil || strings.Contains(msg, "; did you mean ") {
		return err
	}
	// The command the word was given to: `for "cockpit team"`.
	in := root
	if _, path, ok := strings.Cut(msg, " for "); ok {
		if p, err := strconvUnquotePrefix(path); err == nil {
			if c, _, err := root.Find(strings.Fields(p)[1:]); err == nil && c != nil {
				in = c
			}
		}
	}
	if names := suggest(in, q); len(names) > 0 {
		return fmt.Errorf("%s; did you mean %s?", msg, orList(names))
	}
	return err
}

// strconvUnquotePrefix reads the quoted word at the start of s.
func strconvUnquotePrefix(s string) (string, error) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", err
	}
	return strconv.Unquote(q)
}

// suggest is the commands of c that typed may have meant, as git's
// "did you mean": a name it begins (two letters at least), or one within
// one edit for a short word and two for a word of six letters or more, a
// swap of two neighbouring letters counting as one edit (stpo: stop).
func suggest(c *cobra.Command, typed string) []string {
	var out []string
	limit := 1
	if len(typed) >= 6 {
		limit = 2
	}
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() || sub.Name() == "help" {
			continue
		}
		name := sub.Name()
		if (len(typed) >= 2 && strings.HasPrefix(name, typed)) || editDistance(typed, name) <= limit {
			out = append(out, name)
		}
	}
	return out
}

// editDistance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and swaps of neighbours.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// isCobraUsageError recognises cobra's own argument errors, which it does not
// type.
func isCobraUsageError(err error) bool {
	var coded *codedError
	if errors.As(err, &coded) {
		return false
	}
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "requires at most", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// usageFunc prints a command's usage as cobra's default does, but with
// every flag's value named (flagUsages).
func usageFunc(c *cobra.Command) error {
	w := c.OutOrStderr()
	var b strings.Builder
	b.WriteString("Usage:")
	if c.Runnable() {
		b.WriteString("\n  " + c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\n  " + c.CommandPath() + " [command]")
	}
	if len(c.Aliases) > 0 {
		b.WriteString("\n\nAliases:\n  " + c.NameAndAliases())
	}
	if c.HasExample() {
		b.WriteString("\n\nExamples:\n" + c.Example)
	}
	if c.HasAvailableSubCommands() {
		pad := 0
		for _, sub := range c.Commands() {
			pad = max(pad, len(sub.Name()))
		}
		subs := c.Commands()
		if !c.HasParent() {
			// The root lists its commands in topLevel's order: the ones to
			// start with first.
			rank := func(name string) int {
				for i, t := range topLevel {
					if t.names[0] == name {
						return i
					}
				}
				return len(topLevel)
			}
			subs = slices.Clone(subs)
			slices.SortStableFunc(subs, func(a, b *cobra.Command) int { return rank(a.Name()) - rank(b.Name()) })
		}
		list := func(title string, in func(*cobra.Command) bool) {
			var lines []string
			for _, sub := range subs {
				if (sub.IsAvailableCommand() || sub.Name() == "help") && in(sub) {
					lines = append(lines, fmt.Sprintf("  %-*s %s", pad+1, sub.Name(), sub.Short))
				}
			}
			if len(lines) > 0 {
				b.WriteString("\n\n" + title + "\n" + strings.Join(lines, "\n"))
			}
		}
		if len(c.Groups()) == 0 {
			list("Available Commands:", func(*cobra.Command) bool { return true })
		}
		for _, g := range c.Groups() {
			list(g.Title, func(sub *cobra.Command) bool { return sub.GroupID == g.ID })
		}
		if len(c.Groups()) > 0 {
			list("Additional Commands:", func(sub *cobra.Command) bool { return sub.GroupID == "" })
		}
	}
	if c.HasAvailableLocalFlags() {
		b.WriteString("\n\nFlags:\n" + strings.TrimRight(flagUsages(c.LocalFlags()), " \n"))
	}
	if c.HasAvailableInheritedFlags() {
		b.WriteString("\n\nGlobal Flags:\n" + strings.TrimRight(flagUsages(c.InheritedFlags()), " \n"))
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\n\nUse \"%s [command] --help\" for more information about a command.", c.CommandPath())
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// flagUsages lists fs's flags as pflag does, each with its value's name:
// the back-quoted word of its usage (`--jobs-file file`), else one drawn
// from the flag's name (valueName) instead of pflag's type name (string,
// stringArray), which says nothing of what to pass.
func flagUsages(fs *pflag.FlagSet) string {
	var lines []string
	width := 0
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden {
			return
		}
		line := "      --" + fl.Name
		if fl.Shorthand != "" && fl.ShorthandDeprecated == "" {
			line = "  -" + fl.Shorthand + ", --" + fl.Name
		}
		name, usage := pflag.UnquoteUsage(fl)
		if name != "" {
			line += " " + valueName(fl, name)
		}
		if fl.NoOptDefVal != "" && fl.Value.Type() != "bool" {
			line += "[=" + fl.NoOptDefVal + "]"
		}
		width = max(width, len(line))
		line += "\x00" + usage
		switch fl.DefValue {
		case "", "false", "0", "0s", "[]", "<nil>":
		default:
			if fl.Value.Type() == "string" {
				line += fmt.Sprintf(" (default %q)", fl.DefValue)
			} else {
				line += " (default " + fl.DefValue + ")"
			}
		}
		if fl.Deprecated != "" {
			line += " (DEPRECATED: " + fl.Deprecated + ")"
		}
		lines = append(lines, line)
	})
	var b strings.Builder
	for _, l := range lines {
		head, usage, _ := strings.Cut(l, "\x00")
		b.WriteString(head + strings.Repeat(" ", width-len(head)+3) + usage + "\n")
	}
	return b.String()
}

// valueName is the name help shows for a flag's value: pflag's when the
// usage named it (a back-quoted word), else one drawn from the flag's name
// (--ledger file, --project-root dir, --clarification-id id).
func valueName(fl *pflag.Flag, pflagName string) string {
	switch pflagName {
	case "string", "strings", "stringArray", "stringSlice":
	case "int", "int64", "uint", "uint64":
		return "n"
	default:
		return pflagName // a back-quoted word, or duration, float, …
	}
	n := fl.Name
	switch {
	case strings.HasSuffix(n, "file") || slices.Contains([]string{"ledger", "report", "answers", "log"}, n):
		return "file"
	case strings.HasSuffix(n, "root") || strings.HasSuffix(n, "dir"):
		return "dir"
	case strings.HasSuffix(n, "manifest") || strings.HasSuffix(n, "socket") || strings.HasSuffix(n, "path"):
		return "path"
	case strings.HasSuffix(n, "-id") || n == "id":
		return "id"
	case strings.HasSuffix(n, "key"):
		return "key"
	case strings.HasSuffix(n, "model"):
		return "model"
	case n == "prefix":
		return "key"
	}
	return "value"
}
