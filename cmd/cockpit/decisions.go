package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/state/approval"
)

// The approval-decision and user-response commands wire flags to the
// ledger and sidecar operations of state/approval. Every path flag
// (--ledger, --report, --options-file, --from-responses) resolves inside
// --project-root, whose default is the one every command has
// ($COCKPIT_PROJECT_ROOT, else "."): a path outside it is refused with one
// line.

// Hints of the flags the approval commands require.
const (
	hintLedger  = "pass the approval-decision ledger's path"
	hintRowID   = "give the row's id, C-NNN"
	hintDispose = "give select, accept-risk, request-revision or reject"
)

// ledgerCmd is the shape every approval-decision and user-response
// command shares: its own flags bound by addFlags, the shared
// --project-root and --json, required flags and enumerated values checked
// before runF.
func ledgerCmd[O any](f *Factory, cmd *cobra.Command, opts *O, projectRoot *string, jsonOn *bool,
	addFlags func(*cobra.Command), validate func(*O) error, runF func(*O) error) *cobra.Command {
	cmd.Args = noArgs
	cmd.Annotations = noWait()
	cmd.RunE = func(*cobra.Command, []string) error {
		if err := validate(opts); err != nil {
			return err
		}
		return runF(opts)
	}
	addProjectRootFlag(f, cmd, projectRoot, "resolve paths inside this project root")
	addFlags(cmd)
	addJSONFlag(cmd, jsonOn)
	return cmd
}

// NewCmdApprovalDecision is the approval-decision group.
func NewCmdApprovalDecision(f *Factory) *cobra.Command {
	ad := &cobra.Command{
		Use:   "approval-decision",
		Short: "Open, complete, carry and resolve rows of a run's approval-decision ledger",
		Args:  noArgs,
	}
	ad.AddCommand(NewCmdApprovalOpen(f, nil), NewCmdApprovalOption(f, nil), NewCmdApprovalCarry(f, nil), NewCmdApprovalResolve(f, nil))
	return ad
}

// ApprovalOpenOptions are the flags of `approval-decision open`.
type ApprovalOpenOptions struct {
	IO                     *IOStreams
	ProjectRoot            string   // --project-root: --ledger and --options-file resolve inside it
	Ledger                 string   // --ledger
	TaskKey                string   // --task-key: the ledger's task; a new ledger records it
	TaskType               string   // --task-type
	RunSeq                 string   // --run-seq
	ClarificationID        string   // --clarification-id C-NNN
	TicketID               string   // --ticket-id
	Statement              string   // --statement
	ExpectedForm           string   // --expected-form
	Classification         string   // --classification
	Origin                 string   // --origin
	UserConfirmation       string   // --user-confirmation
	UnblockCondition       string   // --unblock-condition
	RecommendedDisposition string   // --recommended-disposition
	Options                []string // --option <json object>, once per option
	OptionsFile            string   // --options-file <path>: a JSON array of option objects
	Supersedes             string   // --supersedes C-NNN
	RunManifest            string   // --run-manifest: defaults --ledger, --task-key, --task-type, --run-seq
	JSON                   bool     // --json
}

// NewCmdApprovalOpen parses and checks `approval-decision open`; runF
// (approvalOpenRun when nil) does it.
func NewCmdApprovalOpen(f *Factory, runF func(*ApprovalOpenOptions) error) *cobra.Command {
	if runF == nil {
		runF = approvalOpenRun
	}
	o := &ApprovalOpenOptions{IO: f.IO}
	return ledgerCmd(f, &cobra.Command{
		Use:   "open --ledger <path> --clarification-id <C-NNN> --statement <text> --expected-form <form> [--option <json>]... [--options-file <path>] [--supersedes <C-NNN>]",
		Short: "Add an open row (a question for the user) to the ledger",
		Long: `open adds one row C-NNN to the approval-decision ledger. Each --option is a JSON
object {"role","answer","rationale","reach","scopeEffects","addedWork",
"directionChange","disposition"}; --options-file holds a JSON array of them.
A complete row offers at least two, exactly one with role "recommended"; a row
with fewer is recorded and reported incomplete, and "approval-decision option"
adds the rest. --supersedes names a carried row this one replaces: once this
row is resolved, that one reads "obsolete". See docs/GATES.md.`,
	}, o, &o.ProjectRoot, &o.JSON, func(cmd *cobra.Command) {
		fl := cmd.Flags()
		fl.StringVar(&o.Ledger, "ledger", "", "the approval-decision ledger")
		fl.StringVar(&o.TaskKey, "task-key", "", "the task (recorded by a new ledger)")
		fl.StringVar(&o.TaskType, "task-type", "", "the run's task type")
		fl.StringVar(&o.RunSeq, "run-seq", "", "the run's sequence number")
		fl.StringVar(&o.ClarificationID, "clarification-id", "", "the row id, C-NNN")
		fl.StringVar(&o.TicketID, "ticket-id", "", "the ticket the question concerns")
		fl.StringVar(&o.Statement, "statement", "", "the question")
		fl.StringVar(&o.ExpectedForm, "expected-form", "", "the shape of the answer (one of the options, a path, a date, ...)")
		fl.StringVar(&o.Classification, "classification", "", "e.g. user-decision, correctness-critical")
		fl.StringVar(&o.Origin, "origin", "", "where the question came from (e.g. worker-finding)")
		fl.StringVar(&o.UserConfirmation, "user-confirmation", "", "the user's confirmation that this blocks approval")
		fl.StringVar(&o.UnblockCondition, "unblock-condition", "", "what answers it")
		fl.StringVar(&o.RecommendedDisposition, "recommended-disposition", "", orList(approval.Dispositions))
		fl.StringArrayVar(&o.Options, "option", nil, "an option as a JSON object; repeat for each")
		fl.StringVar(&o.OptionsFile, "options-file", "", "a file holding a JSON array of options")
		fl.StringVar(&o.Supersedes, "supersedes", "", "the carried C-NNN this row replaces")
		fl.StringVar(&o.RunManifest, "run-manifest", f.Getenv(envRunManifest), "the run manifest: --ledger defaults to its approvalDecisionsPath, --task-key, --task-type and --run-seq to its own (default $"+envRunManifest+")")
		defaultSaid(cmd, "run-manifest")
		markRequired(cmd, "clarification-id", "statement", "expected-form")
		cmd.Flags().Lookup("ledger").Usage += " (required unless --run-manifest names approvalDecisionsPath)"
	}, func(o *ApprovalOpenOptions) error {
		ledger := o.Ledger
		if ledger == "" && o.RunManifest != "" {
			ledger = "from the run manifest" // resolved by approvalOpenRun
		}
		if err := requireAll(
			required{"--ledger", ledger, hintLedger + " (or --run-manifest, whose approvalDecisionsPath it defaults to)"},
			required{"--clarification-id", o.ClarificationID, hintRowID},
			required{"--statement", o.Statement, "state the question the user must decide"},
			required{"--expected-form", o.ExpectedForm, "give the shape of the answer (one of the options, a file path, a number, a date)"},
		); err != nil {
			return err
		}
		return checkEnum("--recommended-disposition", o.RecommendedDisposition, approval.Dispositions...)
	}, runF)
}

// markRequired says "(required)" in the help of each named flag.
func markRequired(cmd *cobra.Command, names ...string) {
	for _, n := range names {
		if fl := cmd.Flags().Lookup(n); fl != nil {
			fl.Usage += " (required)"
		}
	}
}

// requireAll is requireFlags listing every missing flag at once: one
// missing flag reads as requireFlags says it; several as "--a, --b and
// --c: are required (--a: <hint>; --b: <hint>; …)", exit 2.
func requireAll(rs ...required) error {
	var missing []required
	for _, r := range rs {
		if strings.TrimSpace(r.value) == "" {
			missing = append(missing, r)
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return requireFlags(missing...)
	}
	names := make([]string, len(missing))
	hints := make([]string, len(missing))
	for i, r := range missing {
		names[i] = r.flag
		hints[i] = r.flag + ": " + r.hint
	}
	list := strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	return &usageError{fmt.Errorf("%s: are required (%s)", list, strings.Join(hints, "; "))}
}

// ApprovalOptionOptions are the flags of `approval-decision option`.
type ApprovalOptionOptions struct {
	IO              *IOStreams
	ProjectRoot     string   // --project-root
	Ledger          string   // --ledger
	ClarificationID string   // --clarification-id C-NNN: an open row
	Options         []string // --option <json object>, once per option
	OptionsFile     string   // --options-file <path>: a JSON array of option objects
	Replace         bool     // --replace: the options replace the row's instead of adding to them
	JSON            bool     // --json
}

// NewCmdApprovalOption parses and checks `approval-decision option`; runF
// (approvalOptionRun when nil) does it.
func NewCmdApprovalOption(f *Factory, runF func(*ApprovalOptionOptions) error) *cobra.Command {
	if runF == nil {
		runF = approvalOptionRun
	}
	o := &ApprovalOptionOptions{IO: f.IO}
	return ledgerCmd(f, &cobra.Command{
		Use:   "option --ledger <path> --clarification-id <C-NNN> (--option <json>... | --options-file <path>) [--replace]",
		Short: "Add options to an open row (or replace them with --replace)",
		Long: `option adds the given options to the open row C-NNN and prints how many it
now offers, and whether it is still incomplete (fewer than two options, or
not exactly one "recommended").`,
	}, o, &o.ProjectRoot, &o.JSON, func(cmd *cobra.Command) {
		fl := cmd.Flags()
		fl.StringVar(&o.Ledger, "ledger", "", "the approval-decision ledger")
		fl.StringVar(&o.ClarificationID, "clarification-id", "", "the open row, C-NNN")
		fl.StringArrayVar(&o.Options, "option", nil, "an option as a JSON object; repeat for each")
		fl.StringVar(&o.OptionsFile, "options-file", "", "a file holding a JSON array of options")
		fl.BoolVar(&o.Replace, "replace", false, "replace the row's options instead of adding to them")
	}, func(o *ApprovalOptionOptions) error {
		return requireFlags(
			required{"--ledger", o.Ledger, hintLedger},
			required{"--clarification-id", o.ClarificationID, "name the open row the options belong to"},
		)
	}, runF)
}

// ApprovalCarryOptions are the flags of `approval-decision carry`.
type ApprovalCarryOptions struct {
	IO            *IOStreams
	ProjectRoot   string   // --project-root
	Ledger        string   // --ledger
	FromResponses string   // --from-responses <file or directory>
	IDs           []string // --clarification-id, repeatable
	JSON          bool     // --json
}

// NewCmdApprovalCarry parses and checks `approval-decision carry`; runF
// (approvalCarryRun when nil) does it.
func NewCmdApprovalCarry(f *Factory, runF func(*ApprovalCarryOptions) error) *cobra.Command {
	if runF == nil {
		runF = approvalCarryRun
	}
	o := &ApprovalCarryOptions{IO: f.IO}
	return ledgerCmd(f, &cobra.Command{
		Use:   "carry --ledger <path> --from-responses <file|dir> --clarification-id <C-NNN>...",
		Short: "Carry decisions answered in an earlier run into this run's ledger",
	}, o, &o.ProjectRoot, &o.JSON, func(cmd *cobra.Command) {
		fl := cmd.Flags()
		fl.StringVar(&o.Ledger, "ledger", "", "the approval-decision ledger")
		fl.StringVar(&o.FromResponses, "from-responses", "", "a user-response sidecar, or a directory of them")
		fl.StringArrayVar(&o.IDs, "clarification-id", nil, "a C-NNN to carry; repeatable")
	}, func(o *ApprovalCarryOptions) error {
		return requireFlags(required{"--ledger", o.Ledger, ""}, required{"--from-responses", o.FromResponses, ""})
	}, runF)
}

// ApprovalResolveOptions are the flags of `approval-decision resolve`.
type ApprovalResolveOptions struct {
	IO              *IOStreams
	ProjectRoot     string // --project-root
	Ledger          string // --ledger
	ClarificationID string // --clarification-id
	Disposition     string // --disposition
	UserText        string // --user-text
	UserResponseRef string // --user-response-ref
	JSON            bool   // --json
}

// NewCmdApprovalResolve parses and checks `approval-decision resolve`;
// runF (approvalResolveRun when nil) does it.
func NewCmdApprovalResolve(f *Factory, runF func(*ApprovalResolveOptions) error) *cobra.Command {
	if runF == nil {
		runF = approvalResolveRun
	}
	o := &ApprovalResolveOptions{IO: f.IO}
	return ledgerCmd(f, &cobra.Command{
		Use:   "resolve --ledger <path> --clarification-id <C-NNN> --disposition <d> --user-text <text> --user-response-ref <ref>",
		Short: "Record the user's disposition of a row",
	}, o, &o.ProjectRoot, &o.JSON, func(cmd *cobra.Command) {
		fl := cmd.Flags()
		fl.StringVar(&o.Ledger, "ledger", "", "the approval-decision ledger")
		fl.StringVar(&o.ClarificationID, "clarification-id", "", "the row, C-NNN")
		fl.StringVar(&o.Disposition, "disposition", "", orList(approval.Dispositions))
		fl.StringVar(&o.UserText, "user-text", "", "the user's words")
		fl.StringVar(&o.UserResponseRef, "user-response-ref", "", "where the answer is recorded (the sidecar)")
	}, func(o *ApprovalResolveOptions) error {
		if err := requireFlags(
			required{"--ledger", o.Ledger, hintLedger},
			required{"--clarification-id", o.ClarificationID, hintRowID},
			required{"--disposition", o.Disposition, hintDispose},
		); err != nil {
			return err
		}
		return checkEnum("--disposition", o.Disposition, approval.Dispositions...)
	}, runF)
}

// NewCmdUserResponse is the user-response group.
func NewCmdUserResponse(f *Factory) *cobra.Command {
	ur := &cobra.Command{
		Use:   "user-response",
		Short: "Write and show the user-response sidecar of a report",
		Args:  noArgs,
	}
	ur.AddCommand(NewCmdUserResponseWrite(f, nil), NewCmdUserResponseShow(f, nil))
	return ur
}

// UserResponseWriteOptions are the flags of `user-response write`.
type UserResponseWriteOptions struct {
	IO              *IOStreams
	ProjectRoot     string // --project-root
	Report          string // --report
	Answers         string // --answers <json array>
	PlanDecision    string // --plan-decision <json object>
	ReportAuthoring string // --report-authoring <json object>
	TaskKey         string // --task-key: overrides the key read from the report path
	JSON            bool   // --json
	InLead          bool   // $COCKPIT_SOCKET is set: this runs in a cockpit's lead pane
}

// NewCmdUserResponseWrite parses and checks `user-response write`; runF
// (userResponseWriteRun when nil) does it.
func NewCmdUserResponseWrite(f *Factory, runF func(*UserResponseWriteOptions) error) *cobra.Command {
	if runF == nil {
		runF = userResponseWriteRun
	}
	o := &UserResponseWriteOptions{IO: f.IO, InLead: f.Getenv(envSocket) != ""}
	return ledgerCmd(f, &cobra.Command{
		Use:   "write --report <path> --answers <json> [--plan-decision <json>] [--report-authoring <json>]",
		Short: "Write the user's answers into the report's user-response sidecar",
		Long: `write records answers ([{"clarificationId":"C-003","answer":"...","disposition":"select"}]),
an optional PLAN DECISION and an optional REPORT AUTHORING permission
({"status":"approved|denied","reason":"..."}; a Reason is required even on
approval) in the sidecar beside the report, merging with what is there. Only the
user may grant report authoring: the cockpit's gate writes it from the human's
answer. Prints {"sidecar": <path>}, as okstra does; --json prints what it
wrote: {"sidecar", "report", "clarificationIds", "planDecision",
"reportAuthoring"}.`,
	}, o, &o.ProjectRoot, &o.JSON, func(cmd *cobra.Command) {
		fl := cmd.Flags()
		fl.StringVar(&o.Report, "report", "", "the final report the answers concern")
		fl.StringVar(&o.Answers, "answers", "", "a JSON array of answers")
		fl.StringVar(&o.PlanDecision, "plan-decision", "", "a JSON plan decision")
		fl.StringVar(&o.ReportAuthoring, "report-authoring", "", "a JSON report-authoring permission")
		fl.StringVar(&o.TaskKey, "task-key", "", "the task key, when the report path does not say it")
	}, func(o *UserResponseWriteOptions) error {
		if o.ReportAuthoring != "" && o.InLead {
			return fmt.Errorf("--report-authoring is the user's to grant, and this runs inside a cockpit's lead pane; ask the user with `cockpit gate report-authoring --reason-hint <why>`, who answers in the cockpit")
		}
		return nil
	}, runF)
}

// UserResponseShowOptions are the flags of `user-response show`.
type UserResponseShowOptions struct {
	IO          *IOStreams
	ProjectRoot string // --project-root
	Report      string // --report
	Ledger      string // --ledger: overrides the ledger found from the report
	JSON        bool   // --json
}

// NewCmdUserResponseShow parses `user-response show`; runF
// (userResponseShowRun when nil) does it.
func NewCmdUserResponseShow(f *Factory, runF func(*UserResponseShowOptions) error) *cobra.Command {
	if runF == nil {
		runF = userResponseShowRun
	}
	o := &UserResponseShowOptions{IO: f.IO}
	return ledgerCmd(f, &cobra.Command{
		Use:   "show --report <path> [--ledger <path>] [--json]",
		Short: "List the open rows of the ledger a report points at",
	}, o, &o.ProjectRoot, &o.JSON, func(cmd *cobra.Command) {
		fl := cmd.Flags()
		fl.StringVar(&o.Report, "report", "", "the final report")
		fl.StringVar(&o.Ledger, "ledger", "", "the ledger (default: found beside the report's run)")
	}, func(*UserResponseShowOptions) error { return nil }, runF)
}
