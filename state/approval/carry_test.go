package approval

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/okstra/cockpit/internal/filetest"
)

// earlierRun lays out a finished feature-analysis run 001 whose ledger holds
// C-003 (resolved), C-002 (superseded by the resolved C-005), and whose
// sidecar answers all three. It returns the project root, the sidecar and
// this run's (implementation 001) ledger path.
func earlierRun(t *testing.T) (root, responses, ledger string) {
	t.Helper()
	root = t.TempDir()
	run := filepath.Join(root, ".okstra", "tasks", "dev-10860", "runs", "feature-analysis")
	report := filepath.Join(run, "reports", "final-report-feature-analysis-001.md")
	filetest.Write(t, report, []byte("# report\n"))
	c3 := rowWithID("C-003")
	c3.Status = StatusResolved
	c3.Resolution = &Resolution{Disposition: "select", UserText: "Keep the legacy order", UserResponseRef: "x", ResolvedAt: "2026-11-01T00:00:00Z"}
	c2 := rowWithID("C-002")
	c2.Status = StatusAnswered
	c5 := rowWithID("C-005")
	c5.Status = StatusResolved
	c5.Supersedes = "C-002"
	writeLedger(t, filepath.Join(run, "state", "approval-decisions-feature-analysis-001.json"), c3, c2, c5)
	var err error
	responses, err = Write(report, []Answer{
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

func TestCarryCopiesTheOriginalRowAsAnswered(t *testing.T) {
	filetest.FixedClock(t, "2026-11-30T08:00:00Z")
	_, responses, ledger := earlierRun(t)
	res, err := Carry(ledger, responses, []string{"C-005", "C-003", "C-003"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Carried) != 2 || len(res.AlreadyCarried) != 0 {
		t.Fatalf("carry = %+v", res)
	}
	l, err := Read(ledger)
	if err != nil {
		t.Fatal(err)
	}
	c3 := l.Row("C-003")
	if c3 == nil || c3.Status != StatusAnswered || !c3.Carried || c3.CarriedFrom != filepath.ToSlash(responses) {
		t.Fatalf("C-003 = %+v", c3)
	}
	if c3.Statement != exampleRow().Statement || len(c3.Options) != 2 {
		t.Fatalf("C-003 lost its question: %+v", c3)
	}
	// The disposition comes from the source row when the answer gives none;
	// the reference points at the section of the responses file.
	want := Resolution{Disposition: "select", UserText: "Keep the legacy order", UserResponseRef: ".okstra/tasks/dev-10860/runs/feature-analysis/reports/user-responses/user-response-feature-analysis-001.md#C-003", ResolvedAt: "2026-11-01T00:00:00Z"}
	if *c3.Resolution != want {
		t.Fatalf("C-003 resolution = %+v\nwant %+v", *c3.Resolution, want)
	}
	if c5 := l.Row("C-005"); c5.Resolution.Disposition != "accept-risk" || c5.Supersedes != "" {
		t.Fatalf("C-005 = %+v", c5)
	}
	// Carrying again changes nothing.
	before := filetest.Read(t, ledger)
	res, err = Carry(ledger, responses, []string{"C-003"})
	if err != nil || len(res.AlreadyCarried) != 1 || len(res.Carried) != 0 {
		t.Fatalf("second carry = %+v, %v", res, err)
	}
	filetest.Unchanged(t, ledger, before, nil)
	// A carried row can then be superseded, and is obsolete once the
	// replacement is resolved; the next run does not carry it.
	if _, err := Open(ledger, rowWithID("C-010"), "C-003"); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(ledger, "C-010", "select", "Sort", "s.md#C-010"); err != nil {
		t.Fatal(err)
	}
	if st := statusOf(t, ledger, "C-003"); st != StatusObsolete {
		t.Fatalf("carried C-003 reads %s after C-010 resolved", st)
	}
}

func TestCarryRefusals(t *testing.T) {
	_, responses, ledger := earlierRun(t)
	if _, err := Carry(ledger, responses, []string{"C-003"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ledger, rowWithID("C-005"), ""); err != nil {
		t.Fatal(err)
	}
	before := filetest.Read(t, ledger)
	dir := filetest.ListDir(t, filepath.Dir(ledger))
	for _, c := range []struct {
		ids  []string
		from string
		want []string
	}{
		{[]string{"C-002"}, responses, []string{"C-002: is obsolete there (superseded by C-005); carry C-005 instead"}},
		{[]string{"C-003", "C-009", "C-011"}, responses, []string{responses, "holds no answer for C-009, C-011"}},
		{[]string{"C-005"}, responses, []string{"C-005 is already a row of this run (status open); carry admits only decisions answered in an earlier run"}},
		{[]string{"5"}, responses, []string{"--clarification-id", `"5" is not a clarification id`}},
		{nil, responses, []string{"--clarification-id: is required"}},
		{[]string{"C-003"}, "", []string{"--from-responses: is required"}},
		{[]string{"C-003"}, responses + ".missing", []string{"--from-responses", "does not exist"}},
	} {
		_, err := Carry(ledger, c.from, c.ids)
		filetest.MustErr(t, err, c.want...)
		filetest.Unchanged(t, ledger, before, dir)
	}
}

func TestCarryFromADirectoryBundle(t *testing.T) {
	root, _, ledger := earlierRun(t)
	bundle := filepath.Join(t.TempDir(), "bundle")
	// A cumulative bundle: each section names the report that posed it; the
	// later file wins.
	filetest.Write(t, filepath.Join(bundle, "a.md"), []byte("# Responses\n\n## C-003\n- Answer: first answer\n- Source Report: .okstra/tasks/dev-10860/runs/feature-analysis/reports/final-report-feature-analysis-001.md\n"))
	filetest.Write(t, filepath.Join(bundle, "b", "z.md"), []byte("# Responses\n\n## C-003\n- Answer: Keep the legacy order\n- Disposition: select\n- Source Report: .okstra/tasks/dev-10860/runs/feature-analysis/reports/final-report-feature-analysis-001.md\n"))
	filetest.Write(t, filepath.Join(bundle, "c.md"), []byte("# Responses\n\n## C-020\n- Answer: orphan\n"))
	res, err := CarryWith(CarryRequest{Ledger: ledger, FromResponses: bundle, IDs: []string{"C-003"}, ProjectRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Carried[0].Resolution.UserText; got != "Keep the legacy order" {
		t.Fatalf("carried answer %q; the later file must win", got)
	}
	_, err = CarryWith(CarryRequest{Ledger: ledger, FromResponses: bundle, IDs: []string{"C-020"}, ProjectRoot: root})
	filetest.MustErr(t, err, "C-020: names no Source Report")
}

// TestConcurrentLedgerWritersLoseNothing opens rows from many goroutines, and
// from several processes at once, into one ledger that carries foreign
// members; every row must arrive once and the foreign members must stay.
func TestConcurrentLedgerWritersLoseNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "approval-decisions.json")
	filetest.Write(t, path, []byte(foreignLedger))
	const goroutines, each = 16, 6
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*each)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := Open(path, rowWithID(fmt.Sprintf("C-%d%02d", g+1, i)), ""); err != nil {
					errs <- err
				}
			}
		}()
	}
	const procs, perProc = 4, 8
	outs := make([][]byte, procs)
	perrs := make([]error, procs)
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), "APPROVAL_HELPER_LEDGER="+path, fmt.Sprintf("APPROVAL_HELPER_BASE=%d", 5000+p*10), fmt.Sprintf("APPROVAL_HELPER_N=%d", perProc))
			outs[p], perrs[p] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for p := range perrs {
		if perrs[p] != nil {
			t.Fatalf("helper process %d: %v\n%s", p, perrs[p], outs[p])
		}
	}
	l, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + goroutines*each + procs*perProc; len(l.Rows) != want {
		t.Fatalf("ledger holds %d rows, want %d: writes were lost", len(l.Rows), want)
	}
	seen := map[string]bool{}
	for _, r := range l.Rows {
		if seen[r.ClarificationID] {
			t.Fatalf("%s recorded twice", r.ClarificationID)
		}
		seen[r.ClarificationID] = true
	}
	var doc map[string]any
	if err := json.Unmarshal(filetest.Read(t, path), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["x-tail"] != "last" || doc["x-writer"] == nil {
		t.Fatalf("foreign members lost: %v", doc)
	}
	if !strings.HasPrefix(string(filetest.Read(t, path)), "{\n  \"schemaVersion\": \"1.0\",\n  \"x-writer\"") {
		t.Fatal("foreign member moved")
	}
}

// TestMain doubles as the writer processes of
// TestConcurrentLedgerWritersLoseNothing: with APPROVAL_HELPER_LEDGER set,
// the test binary only opens its rows in that ledger.
func TestMain(m *testing.M) {
	if path := os.Getenv("APPROVAL_HELPER_LEDGER"); path != "" {
		base, _ := strconv.Atoi(os.Getenv("APPROVAL_HELPER_BASE"))
		n, _ := strconv.Atoi(os.Getenv("APPROVAL_HELPER_N"))
		for i := 0; i < n; i++ {
			if _, err := Open(path, rowWithID(fmt.Sprintf("C-%d", base+i)), ""); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Issue 18.11, the seed: "Once the new row is resolved … the next run does
// not carry it." Run 001 answered C-003; run 002 carried it and replaced it
// (C-010 --supersedes C-003, resolved). Run 003 carries from the task's
// cumulative bundle, where C-003's answer still names run 001's report — and
// is refused, naming the row that replaced it; C-010 carries.
func TestASupersededDecisionIsNotCarriedAgain(t *testing.T) {
	root, responses, ledger2 := earlierRun(t)
	report2 := filepath.Join(root, ".okstra", "tasks", "dev-10860", "runs", "implementation", "reports", "final-report-implementation-001.md")
	filetest.Write(t, report2, []byte("# report\n"))
	if _, err := Carry(ledger2, responses, []string{"C-003"}); err != nil {
		t.Fatal(err)
	}
	c10 := rowWithID("C-010")
	if _, err := Open(ledger2, c10, "C-003"); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(ledger2, "C-010", "select", "Sort alphabetically", "s.md#C-010"); err != nil {
		t.Fatal(err)
	}
	responses2, err := Write(report2, []Answer{{ClarificationID: "C-010", Answer: "Sort alphabetically", Disposition: "select"}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(t.TempDir(), "bundle")
	for i, f := range []string{responses, responses2} {
		filetest.Write(t, filepath.Join(bundle, fmt.Sprintf("%d.md", i)), filetest.Read(t, f))
	}
	ledger3 := filepath.Join(root, ".okstra", "tasks", "dev-10860", "runs", "final-verification", "state", "approval-decisions-final-verification-001.json")
	_, err = CarryWith(CarryRequest{Ledger: ledger3, FromResponses: bundle, IDs: []string{"C-003"}, ProjectRoot: root})
	filetest.MustErr(t, err, ledger2+": C-003: is obsolete there (superseded by C-010, resolved in a later run); carry C-010 instead")
	if _, err := os.Stat(ledger3); !os.IsNotExist(err) {
		t.Fatalf("the refused carry wrote %s", ledger3)
	}
	res, err := CarryWith(CarryRequest{Ledger: ledger3, FromResponses: bundle, IDs: []string{"C-010"}, ProjectRoot: root})
	if err != nil || len(res.Carried) != 1 {
		t.Fatalf("carry C-010: %+v, %v", res, err)
	}
}
