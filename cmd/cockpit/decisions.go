package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/state/approval"
	"github.com/okstra/cockpit/tui/wizard"
)

func newApprovalDecisionCmd(io *streams) *cobra.Command {
	ad := &cobra.Command{
		Use:   "approval-decision",
		Short: "Open, complete, carry and resolve rows of a run's approval-decision ledger",
		Args:  noArgs,
	}
	var o approval.OpenOptions
	open := &cobra.Command{
		Use:   "open --ledger <path> --clarification-id <C-NNN> --statement <text> --expected-form <form> [--option <json>]... [--options-file <path>] [--supersedes <C-NNN>]",
		Short: "Add an open row (a question for the user) to the ledger",
		Long: `open adds one row C-NNN to the approval-decision ledger. Each --option is a JSON
object {"role","answer","rationale","reach","scopeEffects","addedWork",
"directionChange","disposition"}; --options-file holds a JSON array of them.
A complete row offers at least two, exactly one with role "recommended"; a row
with fewer is recorded and reported incomplete, and "approval-decision option"
adds the rest. --supersedes names a carried row this one replaces: once this
row is resolved, that one reads "obsolete". See docs/GATES.md.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireFlags(
				required{"--ledger", o.Ledger, "pass the approval-decision ledger's path"},
				required{"--clarification-id", o.ClarificationID, "give the row's id, C-NNN"},
				required{"--statement", o.Statement, "state the question the user must decide"},
				required{"--expected-form", o.ExpectedForm, "give the shape of the answer (one of the options, a file path, a number, a date)"},
			); err != nil {
				return err
			}
			return approval.RunOpen(o, io.Out)
		},
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
	f.StringVar(&o.OptionsFile, "options-file", "", "a file holding a JSON array of options")
	f.StringVar(&o.Supersedes, "supersedes", "", "the carried C-NNN this row replaces")
	addJSONFlag(open, &o.JSON)

	var op approval.OptionOptions
	option := &cobra.Command{
		Use:   "option --ledger <path> --clarification-id <C-NNN> (--option <json>... | --options-file <path>) [--replace]",
		Short: "Add options to an open row (or replace them with --replace)",
		Long: `option adds the given options to the open row C-NNN and prints how many it
now offers, and whether it is still incomplete (fewer than two options, or
not exactly one "recommended").`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireFlags(
				required{"--ledger", op.Ledger, "pass the approval-decision ledger's path"},
				required{"--clarification-id", op.ClarificationID, "name the open row the options belong to"},
			); err != nil {
				return err
			}
			return approval.RunOption(op, io.Out)
		},
	}
	f = option.Flags()
	f.StringVar(&op.ProjectRoot, "project-root", os.Getenv(envProjectRoot), "resolve paths inside this project root")
	f.StringVar(&op.Ledger, "ledger", "", "the approval-decision ledger")
	f.StringVar(&op.ClarificationID, "clarification-id", "", "the open row, C-NNN")
	f.StringArrayVar(&op.Options, "option", nil, "an option as a JSON object; repeat for each")
	f.StringVar(&op.OptionsFile, "options-file", "", "a file holding a JSON array of options")
	f.BoolVar(&op.Replace, "replace", false, "replace the row's options instead of adding to them")
	addJSONFlag(option, &op.JSON)

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
	addJSONFlag(carry, &c.JSON)

	var r approval.ResolveOptions
	resolve := &cobra.Command{
		Use:   "resolve --ledger <path> --clarification-id <C-NNN> --disposition <d> --user-text <text> --user-response-ref <ref>",
		Short: "Record the user's disposition of a row",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireFlags(
				required{"--ledger", r.Ledger, "pass the approval-decision ledger's path"},
				required{"--clarification-id", r.ClarificationID, "give the row's id, C-NNN"},
				required{"--disposition", r.Disposition, "give select, accept-risk, request-revision or reject"},
			); err != nil {
				return err
			}
			return approval.RunResolve(r, io.Out)
		},
	}
	f = resolve.Flags()
	f.StringVar(&r.ProjectRoot, "project-root", os.Getenv(envProjectRoot), "resolve --ledger inside this project root")
	f.StringVar(&r.Ledger, "ledger", "", "the approval-decision ledger")
	f.StringVar(&r.ClarificationID, "clarification-id", "", "the row, C-NNN")
	f.StringVar(&r.Disposition, "disposition", "", "select, accept-risk, request-revision or reject")
	f.StringVar(&r.UserText, "user-text", "", "the user's words")
	f.StringVar(&r.UserResponseRef, "user-response-ref", "", "where the answer is recorded (the sidecar)")
	addJSONFlag(resolve, &r.JSON)

	ad.AddCommand(open, option, carry, resolve)
	return ad
}

func newUserResponseCmd(io *streams) *cobra.Command {
	ur := &cobra.Command{
		Use:   "user-response",
		Short: "Write and show the user-response sidecar of a report",
		Args:  noArgs,
	}
	var w approval.WriteOptions
	var writeJSONOut bool
	write := &cobra.Command{
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
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if w.ReportAuthoring != "" && os.Getenv(envSocket) != "" {
				return fmt.Errorf("--report-authoring is the user's to grant, and this runs inside a cockpit's lead pane; ask the user with `cockpit gate report-authoring --reason-hint <why>`, who answers in the cockpit")
			}
			if !writeJSONOut {
				return approval.RunWrite(w, io.Out)
			}
			return userResponseWriteJSON(io, w)
		},
	}
	f := write.Flags()
	f.StringVar(&w.ProjectRoot, "project-root", os.Getenv(envProjectRoot), "resolve --report inside this project root")
	f.StringVar(&w.Report, "report", "", "the final report the answers concern")
	f.StringVar(&w.Answers, "answers", "", "a JSON array of answers")
	f.StringVar(&w.PlanDecision, "plan-decision", "", "a JSON plan decision")
	f.StringVar(&w.ReportAuthoring, "report-authoring", "", "a JSON report-authoring permission")
	f.StringVar(&w.TaskKey, "task-key", "", "the task key, when the report path does not say it")
	addJSONFlag(write, &writeJSONOut)

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
	addJSONFlag(show, &s.JSON)

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
	addJSONFlag(cmd, &o.JSON)
	return cmd
}

// userResponseWriteOutput is `user-response write --json`: the sidecar it
// wrote, the report as given, the clarification ids answered (in the order
// given), whether a PLAN DECISION was written, and the REPORT AUTHORING
// status written ("approved", "denied"; "" when none).
type userResponseWriteOutput struct {
	Sidecar          string   `json:"sidecar"`
	Report           string   `json:"report"`
	ClarificationIDs []string `json:"clarificationIds"`
	PlanDecision     bool     `json:"planDecision"`
	ReportAuthoring  string   `json:"reportAuthoring"`
}

func userResponseWriteJSON(io *streams, w approval.WriteOptions) error {
	var buf bytes.Buffer
	if err := approval.RunWrite(w, &buf); err != nil {
		return err
	}
	var printed struct {
		Sidecar string `json:"sidecar"`
	}
	if err := json.Unmarshal(buf.Bytes(), &printed); err != nil {
		return fmt.Errorf("read what user-response write printed: %w", err)
	}
	out := userResponseWriteOutput{Sidecar: printed.Sidecar, Report: w.Report, ClarificationIDs: []string{}}
	answers, err := approval.ParseAnswers(w.Answers) // RunWrite accepted them
	if err != nil {
		return err
	}
	for _, a := range answers {
		out.ClarificationIDs = append(out.ClarificationIDs, a.ClarificationID)
	}
	out.PlanDecision = strings.TrimSpace(w.PlanDecision) != ""
	if strings.TrimSpace(w.ReportAuthoring) != "" {
		var ra struct {
			Status string `json:"status"`
		}
		if err := json.Unmarshal([]byte(w.ReportAuthoring), &ra); err == nil {
			out.ReportAuthoring = ra.Status
		}
	}
	return writeJSON(io.Out, out)
}
