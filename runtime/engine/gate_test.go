package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/team"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/state/approval"
)

func openRow(t *testing.T, run *state.Run, ledger string) approval.Row {
	t.Helper()
	row := approval.Row{
		ClarificationID: "C-003", TicketID: "DEV-10860",
		Statement:              "Should the export keep the legacy CSV column order?",
		ExpectedForm:           "one of the options",
		Classification:         "user-decision",
		Origin:                 "worker-finding",
		UserConfirmation:       "Confirmed with the user that this blocks approval.",
		UnblockCondition:       "The user picks a column order.",
		RecommendedDisposition: "select",
		Options: []approval.Option{
			{Role: "alternative", Answer: "Sort columns alphabetically", Rationale: "Matches the new JSON export.", Reach: "cross-repo", ScopeEffects: []string{"deferrable"}, AddedWork: "Update importers in billing-sync.", DirectionChange: "Reverses plan item P-Step-004.", Disposition: "select"},
			{Role: "recommended", Answer: "Keep the legacy order", Rationale: "Three importers read columns by position.", Reach: "in-repo", ScopeEffects: []string{}, AddedWork: "None beyond the current plan.", DirectionChange: "Reverses nothing.", Disposition: "select"},
		},
	}
	stored, err := approval.Open(ledger, row, "")
	if err != nil {
		t.Fatal(err)
	}
	return *stored
}

// TestGateAskInTheCockpit asks a gate through the socket, answers it the
// way the screen does (AnswerGate), and checks the cleanup, the
// user-confirm checkpoint, the order of options and the sidecar.
func TestGateAskInTheCockpit(t *testing.T) {
	c, sock := startCockpit(t)
	t.Setenv("COCKPIT_SOCKET", sock)
	run := c.run
	ledger := filepath.Join(run.StateDir(), "approval-decisions.json")
	row := openRow(t, run, ledger)
	g := team.GateFromRow(row)
	if g.Options[0].Role != "recommended" || g.Options[0].Answer != "Keep the legacy order" {
		t.Fatalf("the recommended option must come first: %+v", g.Options)
	}
	type out struct {
		res *team.GateOutcome
		err error
	}
	done := make(chan out, 1)
	var lines []string
	go func() {
		res, err := team.AskGate(context.Background(), team.GateRequest{Run: run, Gate: g, Report: team.DefaultReport(run)}, func(l string) { lines = append(lines, l) })
		done <- out{res, err}
	}()
	waitGate := time.Now().Add(testenv.Scale(10 * time.Second))
	for len(c.View().Gates) == 0 {
		if time.Now().After(waitGate) {
			t.Fatal("the gate never reached the cockpit")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := c.AnswerGate(view.GateAnswer{GateID: "C-003", Option: 7}); err == nil {
		t.Fatal("an answer naming no option was accepted")
	}
	if err := c.AnswerGate(view.GateAnswer{GateID: "C-003", Option: 1, Note: "importers first"}); err != nil {
		t.Fatal(err)
	}
	var o out
	select {
	case o = <-done:
	case <-time.After(testenv.Scale(10 * time.Second)):
		t.Fatal("gate ask did not return after the answer")
	}
	if o.err != nil {
		t.Fatal(o.err)
	}
	res := o.res
	if res.Answer != "Sort columns alphabetically" || res.Note != "importers first" || res.AnsweredIn != "cockpit" {
		t.Fatalf("result %+v", res)
	}
	wantLines := []string{"PROGRESS: phase-gate-cleanup panes=0", "PROGRESS: user-confirm C-003 Should the export keep the legacy CSV column order?"}
	if strings.Join(res.ProgressLines, "\n") != strings.Join(wantLines, "\n") {
		t.Fatalf("progress lines %q", res.ProgressLines)
	}
	events, _ := state.ReadEvents(run.LeadEventsPath, "ledger")
	if len(events) != 1 || events[0].ProgressLine != wantLines[1] {
		t.Fatalf("ledger must hold user-confirm only (gate cleanup records nothing): %+v", events)
	}
	data, err := os.ReadFile(filepath.Join(run.Root.Dir(), res.Sidecar))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "## C-003\n- Answer: Sort columns alphabetically\n- Disposition: select") {
		t.Fatalf("sidecar:\n%s", data)
	}
	// The view is a snapshot the engine's loop rebuilds (and publishes to
	// the screens) after the answer dropped the gate: it must follow.
	testenv.Wait(t, "the answered gate to leave the view", 10*time.Second, func() bool { return len(c.View().Gates) == 0 })
	if c.dropGate("C-003") != nil {
		t.Fatal("the answered gate is still waiting")
	}
}

func TestReportAuthoringNeedsAReason(t *testing.T) {
	c, sock := startCockpit(t)
	t.Setenv("COCKPIT_SOCKET", sock)
	run := c.run
	g := view.Gate{ID: string(state.GateReportAuthoring), Kind: state.GateReportAuthoring, Statement: "May the lead write the report?"}
	done := make(chan *team.GateOutcome, 1)
	go func() {
		res, err := team.AskGate(context.Background(), team.GateRequest{Run: run, Gate: g, Report: team.DefaultReport(run)}, nil)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	waitForGate(t, c)
	if err := c.AnswerGate(view.GateAnswer{GateID: g.ID, Status: "approved"}); err == nil || !strings.Contains(err.Error(), "REPORT AUTHORING requires a Reason") {
		t.Fatalf("approval without a reason: %v", err)
	}
	if err := c.AnswerGate(view.GateAnswer{GateID: g.ID, Status: "approved", Note: "report-writer failed twice with a timeout"}); err != nil {
		t.Fatal(err)
	}
	res := <-done
	data, _ := os.ReadFile(filepath.Join(run.Root.Dir(), res.Sidecar))
	if !strings.Contains(string(data), "## REPORT AUTHORING\n- Status: approved\n- Reason: \"report-writer failed twice with a timeout\"") {
		t.Fatalf("sidecar:\n%s", data)
	}
}

func TestGateWithdrawnWhenTheAskerLeaves(t *testing.T) {
	c, sock := startCockpit(t)
	cl, err := control.Dial(context.Background(), sock, "test")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go control.Gate.Call(ctx, cl, control.GateParams{Gate: view.Gate{ID: "C-009", Kind: state.GateDecision, Options: []view.GateOption{{}, {}}}})
	waitForGate(t, c)
	cl.Close()
	cancel()
	deadline := time.Now().Add(testenv.Scale(5 * time.Second))
	for len(c.View().Gates) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the gate stayed after its asker hung up")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitForGate waits until a gate reaches c's view, failing the test after
// ten seconds instead of hanging it.
func waitForGate(t *testing.T, c *Engine) {
	t.Helper()
	deadline := time.Now().Add(testenv.Scale(10 * time.Second))
	for len(c.View().Gates) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the gate never reached the cockpit")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
