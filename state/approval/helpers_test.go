package approval

import (
	"path/filepath"
	"testing"
)

// The example files of the design, copied into testdata so the package's
// tests do not reach outside the module.
const (
	exampleLedger   = "testdata/approval-decisions.json"
	exampleResponse = "testdata/user-response.md"
)

// exampleRow is C-003 of the example ledger.
func exampleRow() Row {
	return Row{
		ClarificationID:        "C-003",
		TicketID:               "DEV-10860",
		Statement:              "Should the export keep the legacy CSV column order?",
		ExpectedForm:           "one of the options",
		Classification:         "user-decision",
		Origin:                 "worker-finding",
		UserConfirmation:       "Confirmed with the user on 2026-11-29 that this blocks approval.",
		UnblockCondition:       "The user picks a column order.",
		RecommendedDisposition: "select",
		Options: []Option{
			{Role: "recommended", Answer: "Keep the legacy order", Rationale: "Three downstream importers read columns by position.", Reach: "in-repo", ScopeEffects: []string{}, AddedWork: "None beyond the current plan.", DirectionChange: "Reverses nothing.", Disposition: "select"},
			{Role: "alternative", Answer: "Sort columns alphabetically", Rationale: "Matches the new JSON export.", Reach: "cross-repo", ScopeEffects: []string{"deferrable"}, AddedWork: "Update importers in billing-sync and reports-etl; add a migration note.", DirectionChange: "Reverses plan item P-Step-004 (keep CSV stable).", Disposition: "select"},
		},
	}
}

func rowWithID(id string) Row {
	r := exampleRow()
	r.ClarificationID = id
	r.Status = StatusOpen
	return r
}

// rel is p relative to root.
func rel(t *testing.T, root, p string) string {
	t.Helper()
	r, err := filepath.Rel(root, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
