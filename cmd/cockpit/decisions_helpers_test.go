package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/okstra/cockpit/internal/filetest"
	"github.com/okstra/cockpit/state/approval"
)

// Fixtures of the approval commands' tests: the example files of the
// design (state/approval/testdata) and a project with one run.

// exampleResponse is the sidecar the example answers must produce.
const (
	exampleResponse = "../../state/approval/testdata/user-response.md"
	exampleLedger   = "../../state/approval/testdata/approval-decisions.json"
)

// exampleLedgerData is the example ledger's bytes, read before any test
// changes directory.
var exampleLedgerData, exampleLedgerErr = os.ReadFile(exampleLedger)

// exampleRow is C-003 of the example ledger (the design's example file),
// without its status.
func exampleRow() approval.Row {
	var l approval.Ledger
	if exampleLedgerErr != nil {
		panic(exampleLedgerErr)
	}
	if err := json.Unmarshal(exampleLedgerData, &l); err != nil {
		panic(err)
	}
	r := *l.Row("C-003")
	r.Status = ""
	return r
}

func rowWithID(id string) approval.Row {
	r := exampleRow()
	r.ClarificationID = id
	r.Status = approval.StatusOpen
	return r
}

// earlierRun lays out an earlier run whose ledger has C-003 resolved, C-002
// answered and C-005 (superseding C-002) resolved, with a user-response
// sidecar answering all three; ledger is the next run's (not yet written).
func earlierRun(t *testing.T) (root, responses, ledger string) {
	t.Helper()
	root = t.TempDir()
	run := filepath.Join(root, ".okstra", "tasks", "dev-10860", "runs", "feature-analysis")
	report := filepath.Join(run, "reports", "final-report-feature-analysis-001.md")
	filetest.Write(t, report, []byte("# report\n"))
	c3 := rowWithID("C-003")
	c3.Status = approval.StatusResolved
	c3.Resolution = &approval.Resolution{Disposition: "select", UserText: "Keep the legacy order", UserResponseRef: "x", ResolvedAt: "2026-11-01T00:00:00Z"}
	c2 := rowWithID("C-002")
	c2.Status = approval.StatusAnswered
	c5 := rowWithID("C-005")
	c5.Status = approval.StatusResolved
	c5.Supersedes = "C-002"
	data, err := json.MarshalIndent(approval.Ledger{SchemaVersion: "1.0", TaskKey: "dev-10860", Rows: []approval.Row{c3, c2, c5}}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	filetest.Write(t, filepath.Join(run, "state", "approval-decisions-feature-analysis-001.json"), append(data, '\n'))
	responses, err = approval.Write(report, []approval.Answer{
		{ClarificationID: "C-003", Answer: "Keep the legacy order"},
		{ClarificationID: "C-002", Answer: "Sort columns alphabetically", Disposition: "select"},
		{ClarificationID: "C-005", Answer: "Sort columns alphabetically", Disposition: "accept-risk"},
	}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ledger = filepath.Join(root, ".okstra", "tasks", "dev-10860", "runs", "implementation", "state", "approval-decisions-implementation-001.json")
	return root, responses, ledger
}

func statusOf(t *testing.T, path, id string) string {
	t.Helper()
	l, err := approval.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	r := l.Row(id)
	if r == nil {
		t.Fatalf("%s has no row %s", path, id)
	}
	return r.Status
}
