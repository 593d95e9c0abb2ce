package approval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The example files of the design, copied into testdata so the package's
// tests do not reach outside the module.
const (
	exampleLedger   = "testdata/approval-decisions.json"
	exampleResponse = "testdata/user-response.md"
)

// exampleLedgerData is the example ledger's bytes, read before any test
// changes directory.
var exampleLedgerData, exampleLedgerErr = os.ReadFile(exampleLedger)

// exampleRow is C-003 of the example ledger (the design's example file),
// without its status.
func exampleRow() Row {
	var l Ledger
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
