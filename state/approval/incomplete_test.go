package approval

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/okstra/cockpit/internal/filetest"
)

const seedLedger = ".okstra/tasks/dev-10860/runs/feature-analysis/state/approval-decisions-feature-analysis-002.json"

// seedRow is the row of `approval-decision open` exactly as okstra's lead
// contract writes it: every flag of the contract's line, and no option.
// (The command's own tests are cmd/cockpit's decisions_run_test.go.)
func seedRow(id string) Row {
	ex := exampleRow()
	return Row{
		ClarificationID: id, TicketID: ex.TicketID, Statement: ex.Statement, ExpectedForm: ex.ExpectedForm,
		Classification: ex.Classification, Origin: ex.Origin, UserConfirmation: ex.UserConfirmation,
		UnblockCondition: ex.UnblockCondition, RecommendedDisposition: "select",
		TaskType: "feature-analysis", RunSeq: "002",
	}
}

// Adding options keeps what other tools wrote in the options already there.
func TestAddOptionsKeepsForeignMembersOfExistingOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	doc := strings.Replace(foreignLedger, `{"role": "alternative", "answer": "Sort", "rationale": "r", "reach": "cross-repo", "scopeEffects": ["deferrable"], "addedWork": "Importers.", "directionChange": "P-Step-004.", "disposition": "select"}`, `{"role": "alternative", "answer": "Sort", "rationale": "r", "reach": "cross-repo", "scopeEffects": ["deferrable"], "addedWork": "Importers.", "directionChange": "P-Step-004.", "disposition": "select", "x-second": 2}`, 1)
	filetest.Write(t, path, []byte(doc))
	third := Option{Role: RoleAlternative, Answer: "Drop CSV", Rationale: "JSON covers it.", Reach: "cross-repo", AddedWork: "Migrate importers.", DirectionChange: "Reverses the CSV export.", Disposition: "select"}
	r, err := AddOptions(path, "C-003", []Option{third}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Options) != 3 || r.Options[2].Answer != "Drop CSV" || r.Options[2].ScopeEffects == nil {
		t.Fatalf("row: %+v", r.Options)
	}
	data := string(filetest.Read(t, path))
	for _, k := range []string{`"x-opt": true`, `"x-second": 2`, `"x-row-audit"`, `"x-tail": "last"`, `"answer": "Drop CSV"`} {
		if !strings.Contains(data, k) {
			t.Fatalf("%s lost:\n%s", k, data)
		}
	}
}

// Options added to one row from many goroutines at once all arrive, once
// each: AddOptions is a locked read-modify-write like open.
func TestConcurrentAddOptionsLoseNothing(t *testing.T) {
	root, _, _ := filetest.ApprovalProject(t)
	ledger := filepath.Join(root, seedLedger)
	if _, err := OpenInTask(ledger, "dev-10860", seedRow("C-003"), ""); err != nil {
		t.Fatal(err)
	}
	const n = 12
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := exampleRow().Options[1]
			if i == 0 {
				o = exampleRow().Options[0]
			}
			o.Answer = fmt.Sprintf("answer %02d", i)
			// Each option twice: the second is a repeat and changes nothing.
			for range 2 {
				if _, err := AddOptions(ledger, "C-003", []Option{o}, false); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	l, err := Read(ledger)
	if err != nil {
		t.Fatal(err)
	}
	r := l.Row("C-003")
	seen := map[string]int{}
	for _, o := range r.Options {
		seen[o.Answer]++
	}
	if len(r.Options) != n || len(seen) != n {
		t.Fatalf("row has %d options (%d distinct), want %d", len(r.Options), len(seen), n)
	}
	if err := ValidateRow(*r); err != nil {
		t.Fatalf("row after concurrent adds: %v", err)
	}
}
