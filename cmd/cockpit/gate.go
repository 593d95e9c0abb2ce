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
		return nil
	}, runF)
	cmd.Flags().StringVar(&opts.Ledger, "ledger", "", "the approval-decision ledger (default: the run manifest's approvalDecisionsPath)")
	cmd.Flags().StringVar(&opts.ID, "clarification-id", "", "the open row to ask, C-NNN")
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
	l, err := approval.Read(lp)
	if err != nil {
		return err
	}
	row, err := approval.RowForGate(l, ledger, o.ID)
	if err != nil {
		return err
	}
	report, err := gateReport(run, o.Report)
	if err != nil {
		return err
	}
	req := team.GateRequest{Run: run, Gate: team.GateFromRow(*row), Report: report}
	if o.IO.IsStdinTTY() {
		req.Fallback = &team.TerminalPrompt{In: o.IO.In, Out: o.IO.Err}
	}
	return askGate(o, req)
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
	if err != nil {
		return err
	}
	return writeJSON(o.IO.Out, res)
}
