package approval

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func optionJSON(t *testing.T, o Option) string {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCommandLinesEndToEnd(t *testing.T) {
	fixedClock(t, "2026-11-29T10:31:07Z")
	root, report, _ := project(t)
	ledger := ".okstra/tasks/dev-10860/runs/feature-analysis/state/approval-decisions-feature-analysis-002.json"
	ex := exampleRow()
	open := OpenOptions{
		ProjectRoot: root, Ledger: ledger, TaskKey: "dev-10860", TaskType: "feature-analysis", RunSeq: "002",
		ClarificationID: "C-003", TicketID: ex.TicketID, Statement: ex.Statement, ExpectedForm: ex.ExpectedForm,
		Classification: ex.Classification, Origin: ex.Origin, UserConfirmation: ex.UserConfirmation,
		UnblockCondition: ex.UnblockCondition, RecommendedDisposition: "select",
		Options: []string{optionJSON(t, ex.Options[0]), optionJSON(t, ex.Options[1])},
	}
	var out bytes.Buffer
	if err := RunOpen(open, &out); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(root, ledger)
	if got := out.String(); got != "opened C-003 in "+abs+"\n" {
		t.Fatalf("open printed %q", got)
	}
	// Bad flags.
	bad := open
	bad.ClarificationID = "C-004"
	bad.Options = []string{optionJSON(t, ex.Options[0]), `{"role":"alternative","answr":"typo"}`}
	mustErr(t, RunOpen(bad, &out), `--option 2: is not an option object (json: unknown field "answr")`)
	// One option: the row is recorded, and reported incomplete (okstra: "a
	// row that ... offers fewer than two ... is incomplete"), not refused.
	one := bad
	one.Ledger = "scratch/approval-decisions.json"
	one.Options = []string{optionJSON(t, ex.Options[0])}
	out.Reset()
	if err := RunOpen(one, &out); err != nil {
		t.Fatalf("a row with one option was refused: %v", err)
	}
	scratch := filepath.Join(root, "scratch", "approval-decisions.json")
	if want := "opened C-004 in " + scratch + "\nincomplete: C-004 options: has 1 option(s); a row needs at least 2: one recommended, the others alternative — add options with `approval-decision option --ledger " + scratch + " --clarification-id C-004 --option <json>`\n"; out.String() != want {
		t.Fatalf("open printed %q\nwant         %q", out.String(), want)
	}
	bad.Ledger = "../elsewhere.json"
	mustErr(t, RunOpen(bad, &out), "--ledger", "is outside the project root")
	bad.Ledger = ""
	mustErr(t, RunOpen(bad, &out), "--ledger: is required")

	// show, text and JSON.
	out.Reset()
	if err := RunShow(ShowOptions{ProjectRoot: root, Report: rel(t, root, report)}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "C-003 [open] Should the export keep") {
		t.Fatalf("show printed:\n%s", out.String())
	}
	out.Reset()
	if err := RunShow(ShowOptions{ProjectRoot: root, Report: rel(t, root, report), JSON: true}, &out); err != nil {
		t.Fatal(err)
	}
	var shown ShowResult
	if err := json.Unmarshal(out.Bytes(), &shown); err != nil || len(shown.Rows) != 1 || shown.Rows[0].Options[1].Reach != "cross-repo" {
		t.Fatalf("show --json = %s (%v)", out.String(), err)
	}

	// write, as okstra: prints {"sidecar": path}.
	out.Reset()
	w := WriteOptions{ProjectRoot: root, Report: rel(t, root, report),
		Answers:         `[{"id": "C-003", "answer": "Keep the legacy order", "disposition": "select"}]`,
		ReportAuthoring: `{"status": "approved", "reason": "report-writer failed twice with a timeout"}`}
	if err := RunWrite(w, &out); err != nil {
		t.Fatal(err)
	}
	var printed map[string]string
	if err := json.Unmarshal(out.Bytes(), &printed); err != nil || printed["sidecar"] != SidecarPath(report) {
		t.Fatalf("write printed %s", out.String())
	}
	if got := string(readFile(t, SidecarPath(report))); got != string(readFile(t, exampleResponse)) {
		t.Fatalf("sidecar:\n%s", got)
	}
	badW := w
	badW.ReportAuthoring = `{"status": "approved", "reason": ""}`
	mustErr(t, RunWrite(badW, &out), "--report-authoring: REPORT AUTHORING requires a Reason")
	badW.ReportAuthoring = `{"status": "approved", "why": "x"}`
	mustErr(t, RunWrite(badW, &out), "--report-authoring: is not a JSON object", `unknown field "why"`)
	badW.ReportAuthoring = ""
	badW.Answers = `{"C-003": "x"}`
	mustErr(t, RunWrite(badW, &out), "--answers: is not a JSON array of answers")
	badW.Answers = `[{"id": "C-003", "clarificationId": "C-004", "answer": "x"}]`
	mustErr(t, RunWrite(badW, &out), "--answers[0]: gives id C-003 and clarificationId C-004")
	badW.Answers = `[]`
	badW.PlanDecision = `{"status": "rejected"}`
	mustErr(t, RunWrite(badW, &out), "--plan-decision: PLAN DECISION rejected requires a Reason")

	// resolve.
	out.Reset()
	if err := RunResolve(ResolveOptions{ProjectRoot: root, Ledger: ledger, ClarificationID: "C-003", Disposition: "select", UserText: "Keep the legacy order", UserResponseRef: printed["sidecar"]}, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "resolved C-003 (select) in "+abs+"\n" {
		t.Fatalf("resolve printed %q", got)
	}
	out.Reset()
	if err := RunShow(ShowOptions{ProjectRoot: root, Report: rel(t, root, report)}, &out); err != nil || !strings.Contains(out.String(), "no open rows") {
		t.Fatalf("show after resolve: %q, %v", out.String(), err)
	}
}

func TestRunCarry(t *testing.T) {
	root, responses, ledger := earlierRun(t)
	var out bytes.Buffer
	o := CarryOptions{ProjectRoot: root, Ledger: rel(t, root, ledger), FromResponses: rel(t, root, responses), IDs: []string{"C-003"}}
	if err := RunCarry(o, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "carried C-003 into "+ledger+"\n" {
		t.Fatalf("carry printed %q", got)
	}
	out.Reset()
	o.JSON = true
	if err := RunCarry(o, &out); err != nil {
		t.Fatal(err)
	}
	var res CarryResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res.AlreadyCarried) != 1 || len(res.Carried) != 0 {
		t.Fatalf("carry --json = %s", out.String())
	}
}

func rel(t *testing.T, root, p string) string {
	t.Helper()
	r, err := filepath.Rel(root, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
