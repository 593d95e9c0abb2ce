package approval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/state"
)

// The example files of the design, copied into testdata so the package's
// tests do not reach outside the module.
const (
	exampleLedger   = "testdata/approval-decisions.json"
	exampleResponse = "testdata/user-response.md"
)

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixedClock pins state.Now for the test.
func fixedClock(t *testing.T, at string) {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, at)
	if err != nil {
		t.Fatal(err)
	}
	old := state.Now
	state.Now = func() time.Time { return tm }
	t.Cleanup(func() { state.Now = old })
}

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

// project lays out a project with one run of task dev-10860 and returns the
// root, the report path and the run's state directory.
func project(t *testing.T) (root, report, stateDir string) {
	t.Helper()
	root = t.TempDir()
	runDir := filepath.Join(root, ".okstra", "tasks", "dev-10860", "runs", "feature-analysis")
	report = filepath.Join(runDir, "reports", "final-report-feature-analysis-002.md")
	stateDir = filepath.Join(runDir, "state")
	writeFile(t, report, []byte("# Final report\n"))
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, report, stateDir
}

// mustErr fails unless err's text contains every part.
func mustErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not contain %q", err, p)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error is not one line: %q", err)
	}
}

// unchanged fails when the file's bytes differ from before, or when the
// directory holds a file it did not hold before (a temp file left behind).
func unchanged(t *testing.T, path string, before []byte, dirBefore []string) {
	t.Helper()
	after, err := os.ReadFile(path)
	if err != nil && before != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Fatalf("%s changed:\n--- before\n%s\n--- after\n%s", path, before, after)
	}
	if dirBefore != nil {
		if got := listDir(t, filepath.Dir(path)); strings.Join(got, ",") != strings.Join(dirBefore, ",") {
			t.Fatalf("directory changed: %v → %v", dirBefore, got)
		}
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".lock") {
			continue // the lock file is created by the first writer and stays
		}
		out = append(out, e.Name())
	}
	return out
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
