package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/state/approval"
	"github.com/okstra/cockpit/tui/wizard"
)

func newApprovalDecisionCmd(io *streams) *cobra.Command {
	ad := &cobra.Command{
		Use:   "approval-decision",
		Short: "Open, carry and resolve rows of a run's approval-decision ledger",
		Args:  noArgs,
	}
	var o approval.OpenOptions
	open := &cobra.Command{
		Use:   "open --ledger <path> --clarification-id <C-NNN> --statement <text> --option <json> --option <json> ... [--supersedes <C-NNN>]",
		Short: "Add an open row (a question for the user) to the ledger",
		Long: `open adds one row C-NNN to the approval-decision ledger. Each --option is a JSON
object {"role","answer","rationale","reach","scopeEffects","addedWork",
"directionChange","disposition"}; a row needs at least two, exactly one with
role "recommended". --supersedes names a carried row this one replaces: once
this row is resolved, that one reads "obsolete". See docs/GATES.md.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return approval.RunOpen(o, io.Out) },
	}
	f := open.Flags()
	f.StringVar(&o.ProjectRoot, "project-root", os.Getenv(envProjectRoot), "resolve --ledger inside this project root")
	f.StringVar(&o.Ledger, "ledger", "", "the approval-decision ledger")
	f.StringVar(&o.TaskKey, "task-key", "", "the task (recorded by a new ledger)")
	f.StringVar(&o.TaskType, "task-type", "", "the run's task type")
	f.StringVar(&o.RunSeq, "run-seq", "", "the run's sequence number")
	f.StringVar(&o.ClarificationID, "clarification-id", "", "the row id, C-NNN")
	f.StringVar(&o.TicketID, "ticket-id", "", "the ticket the question concerns")
	f.StringVar(&o.Statement, "statement", "", "the question")
	f.StringVar(&o.ExpectedForm, "expected-form", "", "the shape of the answer (one of the options, a path, a date, ...)")
	f.StringVar(&o.Classification, "classification", "", "e.g. user-decision, correctness-critical")
	f.StringVar(&o.Origin, "origin", "", "where the question came from (e.g. worker-finding)")
	f.StringVar(&o.UserConfirmation, "user-confirmation", "", "the user's confirmation that this blocks approval")
	f.StringVar(&o.UnblockCondition, "unblock-condition", "", "what answers it")
	f.StringVar(&o.RecommendedDisposition, "recommended-disposition", "", "select, accept-risk, request-revision or reject")
	f.StringArrayVar(&o.Options, "option", nil, "an option as a JSON object; repeat for each")
	f.StringVar(&o.Supersedes, "supersedes", "", "the carried C-NNN this row replaces")
	f.BoolVar(&o.JSON, "json", false, "print machine-readable JSON")

	var c approval.CarryOptions
	carry := &cobra.Command{
		Use:   "carry --ledger <path> --from-responses <file|dir> --clarification-id <C-NNN>...",
		Short: "Carry decisions answered in an earlier run into this run's ledger",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return approval.RunCarry(c, io.Out) },
	}
	f = carry.Flags()
	f.StringVar(&c.ProjectRoot, "project-root", os.Getenv(envProjectRoot), "resolve paths inside this project root")
	f.StringVar(&c.Ledger, "ledger", "", "the approval-decision ledger")
	f.StringVar(&c.FromResponses, "from-responses", "", "a user-response sidecar, or a directory of them")
	f.StringArrayVar(&c.IDs, "clarification-id", nil, "a C-NNN to carry; repeatable")
	f.BoolVar(&c.JSON, "json", false, "print machine-readable JSON")

	var r approval.ResolveOptions
	resolve := &cobra.Command{
		Use:   "resolve --ledger <path> --clarification-id <C-NNN> --disposition <d> --user-text <text> --user-response-ref <ref>",
		Short: "Record the user's disposition of a row",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return approval.RunResolve(r, io.Out) },
	}
	f = resolve.Flags()
	f.StringVar(&r.ProjectRoot, "project-root", os.Getenv(envProjectRoot), "resolve --ledger inside this project root")
	f.StringVar(&r.Ledger, "ledger", "", "the approval-decision ledger")
	f.StringVar(&r.ClarificationID, "clarification-id", "", "the row, C-NNN")
	f.StringVar(&r.Disposition, "disposition", "", "select, accept-risk, request-revision or reject")
	f.StringVar(&r.UserText, "user-text", "", "the user's words")
	f.StringVar(&r.UserResponseRef, "user-response-ref", "", "where the answer is recorded (the sidecar)")
	f.BoolVar(&r.JSON, "json", false, "print machine-readable JSON")

	ad.AddCommand(open, carry, resolve)
	return ad
}

func newUserResponseCmd(io *streams) *cobra.Command {
	ur := &cobra.Command{
		Use:   "user-response",
		Short: "Write and show the user-response sidecar of a report",
		Args:  noArgs,
	}
	var w approval.WriteOptions
	write := &cobra.Command{
		Use:   "write --report <path> --answers <json> [--plan-decision <json>] [--report-authoring <json>]",
		Short: "Write the user's answers into the report's user-response sidecar",
		Long: `write records answers ([{"clarificationId":"C-003","answer":"...","disposition":"select"}]),
an optional PLAN DECISION and an optional REPORT AUTHORING permission
({"status":"approved|denied","reason":"..."}; a Reason is required even on
approval) in the sidecar beside the report, merging with what is there. Only the
user may grant report authoring: the cockpit's gate writes it from the human's
answer. Prints {"sidecar": <path>}.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if w.ReportAuthoring != "" && os.Getenv(envSocket) != "" {
				return fmt.Errorf("--report-authoring is the user's to grant, and this runs inside a cockpit's lead pane; ask the user with `cockpit gate report-authoring --reason-hint <why>`, who answers in the cockpit")
			}
			return approval.RunWrite(w, io.Out)
		},
	}
	f := write.Flags()
	f.StringVar(&w.ProjectRoot, "project-root", os.Getenv(envProjectRoot), "resolve --report inside this project root")
	f.StringVar(&w.Report, "report", "", "the final report the answers concern")
	f.StringVar(&w.Answers, "answers", "", "a JSON array of answers")
	f.StringVar(&w.PlanDecision, "plan-decision", "", "a JSON plan decision")
	f.StringVar(&w.ReportAuthoring, "report-authoring", "", "a JSON report-authoring permission")
	f.StringVar(&w.TaskKey, "task-key", "", "the task key, when the report path does not say it")

	var s approval.ShowOptions
	show := &cobra.Command{
		Use:   "show --report <path> [--ledger <path>] [--json]",
		Short: "List the open rows of the ledger a report points at",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return approval.RunShow(s, io.Out) },
	}
	f = show.Flags()
	f.StringVar(&s.ProjectRoot, "project-root", os.Getenv(envProjectRoot), "resolve paths inside this project root")
	f.StringVar(&s.Report, "report", "", "the final report")
	f.StringVar(&s.Ledger, "ledger", "", "the ledger (default: found beside the report's run)")
	f.BoolVar(&s.JSON, "json", false, "print machine-readable JSON")

	ur.AddCommand(write, show)
	return ur
}

func newWizardCmd(io *streams) *cobra.Command {
	var o wizard.Options
	cmd := &cobra.Command{
		Use:   "wizard [--project-root <dir>] [--lang ko|en] [--answers <file>] [--json]",
		Short: "Set up an okstra task: task type, related tasks, roles and models (Korean or English)",
		Long: `wizard asks what okstra's render-bundle needs to set up a task and prints
outcome.renderArgv (the tokens in order; empty strings mean "use the phase
default") and actions[], as JSON with --json or as a summary. --answers runs it
without a form from a JSON file of answers (docs/WIZARD.md). The language comes
from --lang or LANG.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tty := isTerminal(os.Stdin) && isTerminal(os.Stdout)
			err := wizard.Main(o, io.In, io.Out, tty)
			if errors.Is(err, wizard.ErrAborted) {
				return &codedError{code: exitCancelled, err: err}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.ProjectRoot, "project-root", os.Getenv(envProjectRoot), "the project whose .okstra/tasks the wizard reads")
	f.StringVar(&o.Lang, "lang", "", "ko or en (default from LANG)")
	f.StringVar(&o.AnswersFile, "answers", "", "a JSON file of answers: run without the form")
	f.BoolVar(&o.JSON, "json", false, "print the machine-readable outcome")
	return cmd
}
