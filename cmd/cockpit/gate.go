package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/state/approval"
)

type gateOptions struct {
	run        runFlags
	ledger     string
	id         string
	report     string
	reasonHint string
	json       jsonFlag // gate commands always print JSON; --json is accepted
}

func newGateCmd(io *streams) *cobra.Command {
	gate := &cobra.Command{
		Use:   "gate",
		Short: "Ask the human a question in the cockpit and wait for the answer",
		Args:  noArgs,
	}
	ask := &gateOptions{}
	askCmd := &cobra.Command{
		Use:   "ask --ledger <path> --clarification-id <C-NNN> [--report <path>]",
		Short: "Show an approval-decision row to the human in the cockpit; print the answer as JSON",
		Long: `gate ask is the lead's way to ask the human. It first reclaims the finished
panes (printing PROGRESS: phase-gate-cleanup panes=<n>, recorded nowhere),
records and prints PROGRESS: user-confirm <C-NNN> <question>, then shows the
row's question with every option in the cockpit and blocks until the human
answers there. The answer goes into the report's user-response sidecar and is
printed as JSON. With no cockpit listening it says so and fails — unless stdin
is a terminal, where it asks on the terminal instead.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return gateAskRun(io, ask) },
	}
	ask.run.add(askCmd)
	askCmd.Flags().StringVar(&ask.ledger, "ledger", "", "the approval-decision ledger (default: the run manifest's approvalDecisionsPath)")
	askCmd.Flags().StringVar(&ask.id, "clarification-id", "", "the open row to ask, C-NNN")
	askCmd.Flags().StringVar(&ask.report, "report", "", "the report the answer belongs to (default: the run's final report path)")
	ask.json.add(askCmd)

	ra := &gateOptions{}
	raCmd := &cobra.Command{
		Use:   "report-authoring --reason-hint <text> [--report <path>]",
		Short: "Ask the human whether the lead may author the final report itself",
		Long: `gate report-authoring asks the human — never the lead — whether the lead may
write the final report itself (the report-writer path failed). The human
approves or denies in the cockpit and must give a Reason either way; the answer
is written as the sidecar's ## REPORT AUTHORING section and printed as JSON.
There is no terminal fallback: only the human at the cockpit can grant it.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return gateAuthoringRun(io, ra) },
	}
	ra.run.add(raCmd)
	raCmd.Flags().StringVar(&ra.reasonHint, "reason-hint", "", "why the lead asks (e.g. the report-writer dispatch's failure)")
	raCmd.Flags().StringVar(&ra.report, "report", "", "the report (default: the run's final report path)")
	ra.json.add(raCmd)
	gate.AddCommand(askCmd, raCmd)
	return gate
}

func gateReport(run *state.Run, flag string) (string, error) {
	if flag == "" {
		return runtime.DefaultReport(run), nil
	}
	return run.Root.Resolve(flag, "--report")
}

func gateAskRun(io *streams, o *gateOptions) error {
	if o.id == "" {
		return &usageError{fmt.Errorf("--clarification-id is required")}
	}
	run, err := o.run.load()
	if err != nil {
		return err
	}
	ledger := o.ledger
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
	row, err := approval.RowForGate(l, ledger, o.id)
	if err != nil {
		return err
	}
	report, err := gateReport(run, o.report)
	if err != nil {
		return err
	}
	req := runtime.GateRequest{Run: run, Gate: runtime.GateFromRow(*row), Report: report}
	if f, ok := io.In.(*os.File); ok && isTerminal(f) {
		req.Fallback = &runtime.TerminalPrompt{In: io.In, Out: io.Err}
	}
	return runGate(io, req)
}

func gateAuthoringRun(io *streams, o *gateOptions) error {
	run, err := o.run.load()
	if err != nil {
		return err
	}
	report, err := gateReport(run, o.report)
	if err != nil {
		return err
	}
	g := runtime.Gate{
		ID: runtime.GateReportAuthoring, Kind: runtime.GateReportAuthoring,
		Statement:  "The lead asks to write the final report itself instead of the report writer. Approve or deny, and give the reason the report will carry.",
		ReasonHint: strings.TrimSpace(o.reasonHint),
	}
	return runGate(io, runtime.GateRequest{Run: run, Gate: g, Report: report})
}

func runGate(io *streams, req runtime.GateRequest) error {
	ctx, cancel := interruptible()
	defer cancel()
	res, err := runtime.AskGate(ctx, req, func(line string) { fmt.Fprintln(io.Out, line) })
	if err != nil {
		return err
	}
	return writeJSON(io.Out, res)
}
