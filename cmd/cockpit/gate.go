package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime/team"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/state/approval"
)

// GateOptions are the flags of `gate ask` and `gate report-authoring`.
type GateOptions struct {
	IO         *IOStreams
	Ctx        context.Context
	Run        runFlags
	Ledger     string // ask only
	ID         string // ask only
	Report     string
	ReasonHint string // report-authoring only
	JSON       bool   // gate commands always print JSON; --json is accepted

	// ask only: the row to open after the answer when the ledger has no
	// row --clarification-id yet (the seed's order: ask, then open the row
	// with the user's confirmation). The flags of approval-decision open.
	Row        approval.Row
	Options    []string
	OptionFile string
	Supersedes string
}

// NewCmdGate is the gate group.
func NewCmdGate(f *Factory) *cobra.Command {
	gate := &cobra.Command{
		Use:   "gate",
		Short: "Ask the human a question in the cockpit and wait for the answer",
		Args:  noArgs,
	}
	gate.AddCommand(NewCmdGateAsk(f, nil), NewCmdGateReportAuthoring(f, nil))
	return gate
}

// newGateCmd is the shape both gates share.
func newGateCmd(f *Factory, cmd *cobra.Command, reportUsage string, validate func(*GateOptions) error, runF func(*GateOptions) error) (*cobra.Command, *GateOptions) {
	opts := &GateOptions{IO: f.IO}
	cmd.Args = noArgs
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := validate(opts); err != nil {
			return err
		}
		opts.Ctx = cmd.Context()
		return runF(opts)
	}
	opts.Run.add(f, cmd)
	cmd.Flags().StringVar(&opts.Report, "report", "", reportUsage)
	addJSONFlag(cmd, &opts.JSON)
	return cmd, opts
}

// NewCmdGateAsk parses and checks `gate ask`; runF (gateAskRun when nil)
// does it.
func NewCmdGateAsk(f *Factory, runF func(*GateOptions) error) *cobra.Command {
	if runF == nil {
		runF = gateAskRun
	}
	cmd, opts := newGateCmd(f, &cobra.Command{
		Use:   "ask --ledger <path> --clarification-id <C-NNN> [--report <path>]",
		Short: "Show an approval-decision row to the human in the cockpit; print the answer as JSON",
		Long: `gate ask is the lead's way to ask the human. It first reclaims the finished
panes (printing PROGRESS: phase-gate-cleanup panes=<n>, recorded nowhere),
records and prints PROGRESS: user-confirm <C-NNN> <question>, then shows the
row's question with every option in the cockpit and blocks until the human
answers there. The answer goes into the report's user-response sidecar and is
printed as JSON. With no cockpit listening it says so and fails — unless stdin
is a terminal, where it asks on the terminal instead.`,
	}, "the report the answer belongs to (default: the run's final report path)", func(o *GateOptions) error {
		if o.ID == "" {
			return &usageError{fmt.Errorf("--clarification-id is required")}
		}
		return checkEnum("--recommended-disposition", o.Row.RecommendedDisposition, approval.Dispositions...)
	}, runF)
	fl := cmd.Flags()
	fl.StringVar(&opts.Ledger, "ledger", "", "the approval-decision ledger (default: the run manifest's approvalDecisionsPath)")
	fl.StringVar(&opts.ID, "clarification-id", "", "the row to ask, C-NNN (required)")
	// A row not in the ledger yet: the question comes with the call, and
	// the row is opened once the human answered.
	r := &opts.Row
	fl.StringVar(&r.Statement, "statement", "", "a row not in the ledger yet: the question (it is opened after the answer)")
	fl.StringVar(&r.ExpectedForm, "expected-form", "", "a row not in the ledger yet: the shape of the answer")
	fl.StringArrayVar(&opts.Options, "option", nil, "a row not in the ledger yet: an option as a JSON object; repeat for each")
	fl.StringVar(&opts.OptionFile, "options-file", "", "a row not in the ledger yet: a file holding a JSON array of options")
	fl.StringVar(&r.TicketID, "ticket-id", "", "a row not in the ledger yet: the ticket the question concerns")
	fl.StringVar(&r.Classification, "classification", "", "a row not in the ledger yet: e.g. user-decision")
	fl.StringVar(&r.Origin, "origin", "", "a row not in the ledger yet: where the question came from")
	fl.StringVar(&r.UnblockCondition, "unblock-condition", "", "a row not in the ledger yet: what answers it")
	fl.StringVar(&r.RecommendedDisposition, "recommended-disposition", "", "a row not in the ledger yet: "+orList(approval.Dispositions))
	fl.StringVar(&opts.Supersedes, "supersedes", "", "a row not in the ledger yet: the carried C-NNN it replaces")
	return cmd
}

// NewCmdGateReportAuthoring parses `gate report-authoring`; runF
// (gateReportAuthoringRun when nil) does it.
func NewCmdGateReportAuthoring(f *Factory, runF func(*GateOptions) error) *cobra.Command {
	if runF == nil {
		runF = gateReportAuthoringRun
	}
	cmd, opts := newGateCmd(f, &cobra.Command{
		Use:   "report-authoring --reason-hint <text> [--report <path>]",
		Short: "Ask the human whether the lead may author the final report itself",
		Long: `gate report-authoring asks the human — never the lead — whether the lead may
write the final report itself (the report-writer path failed). The human
approves or denies in the cockpit and must give a Reason either way; the answer
is written as the sidecar's ## REPORT AUTHORING section and printed as JSON.
There is no terminal fallback: only the human at the cockpit can grant it.`,
	}, "the report (default: the run's final report path)", func(*GateOptions) error { return nil }, runF)
	cmd.Flags().StringVar(&opts.ReasonHint, "reason-hint", "", "why the lead asks (e.g. the report-writer dispatch's failure)")
	return cmd
}

func gateReport(run *state.Run, flag string) (string, error) {
	if flag == "" {
		return team.DefaultReport(run), nil
	}
	return run.Root.Resolve(flag, "--report")
}

func gateAskRun(o *GateOptions) error {
	run, err := o.Run.load()
	if err != nil {
		return err
	}
	ledger := o.Ledger
	if ledger == "" {
		ledger = run.Manifest.ApprovalDecisionsPath
	}
	if ledger == "" {
		return &usageError{fmt.Errorf("--ledger is required: the run manifest names no approvalDecisionsPath")}
	}
	lp, err := run.Root.Resolve(ledger, "--ledger")
	if err != nil {
		return err
	}
	report, err := gateReport(run, o.Report)
	if err != nil {
		return err
	}
	var row *approval.Row
	var open *team.GateOpen
	l, err := approval.Read(lp)
	switch {
	case err == nil && l.Row(o.ID) != nil, o.Row.Statement == "":
		if err != nil {
			return err
		}
		if row, err = approval.RowForGate(l, ledger, o.ID); err != nil {
			if l.Row(o.ID) == nil {
				return &state.Error{File: ledger, Field: "--clarification-id", Msg: fmt.Sprintf("%s is not a row of the ledger; give its question with --statement, --expected-form and --option (gate ask opens the row once the user answered), or open it first with `cockpit approval-decision open`", o.ID)}
			}
			return err
		}
	default:
		// Not in the ledger (or no ledger yet): ask first, open after.
		if open, err = o.pendingRow(run, lp); err != nil {
			return err
		}
		row = &open.Row
	}
	req := team.GateRequest{Run: run, Gate: team.GateFromRow(*row), Report: report, Open: open}
	if o.IO.IsStdinTTY() {
		req.Fallback = &team.TerminalPrompt{In: o.IO.In, Out: o.IO.Err}
	}
	return askGate(o, req)
}

// pendingRow is the row --clarification-id the flags describe, checked as
// approval-decision open and the gate check it — a complete row, or the
// gate asks nothing — before the human is asked.
func (o *GateOptions) pendingRow(run *state.Run, ledger string) (*team.GateOpen, error) {
	opts, err := parseOptionFlags(run.Root.Dir(), o.Options, o.OptionFile)
	if err != nil {
		return nil, err
	}
	row := o.Row
	row.ClarificationID, row.Options = o.ID, opts
	row.TaskType, row.RunSeq = run.Manifest.TaskType, run.Manifest.RunSeq
	row.Status = approval.StatusOpen
	if err := approval.CheckRow(row); err != nil {
		return nil, err
	}
	if inc := row.Incomplete(); inc != nil {
		return nil, &state.Error{Field: "--option", Msg: fmt.Sprintf("%s is incomplete (%s): there is nothing the user can choose; give at least two options, exactly one recommended", o.ID, inc.Msg)}
	}
	return &team.GateOpen{Ledger: ledger, TaskKey: run.Manifest.TaskKey, Row: row, Supersedes: o.Supersedes}, nil
}

func gateReportAuthoringRun(o *GateOptions) error {
	run, err := o.Run.load()
	if err != nil {
		return err
	}
	report, err := gateReport(run, o.Report)
	if err != nil {
		return err
	}
	g := view.Gate{
		ID: string(state.GateReportAuthoring), Kind: state.GateReportAuthoring,
		Statement:  "The lead asks to write the final report itself instead of the report writer. Approve or deny, and give the reason the report will carry.",
		ReasonHint: strings.TrimSpace(o.ReasonHint),
	}
	return askGate(o, team.GateRequest{Run: run, Gate: g, Report: report})
}

func askGate(o *GateOptions, req team.GateRequest) error {
	res, err := team.AskGate(o.Ctx, req, func(line string) { fmt.Fprintln(o.IO.Out, line) })
	if res != nil {
		// The human answered: the answer is printed whatever happened to it
		// after (AnswerNotSaved says where it was kept).
		if werr := writeJSON(o.IO.Out, res); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}
