package approval

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/okstra/cockpit/internal/filetest"
	"github.com/okstra/cockpit/state"
)

func TestWriteProducesTheExampleSidecar(t *testing.T) {
	filetest.FixedClock(t, "2026-11-29T10:31:07Z")
	_, report, _ := filetest.ApprovalProject(t)
	path, err := Write(report,
		[]Answer{{ClarificationID: "C-003", Answer: "Keep the legacy order", Disposition: "select"}},
		nil,
		&ReportAuthoring{Status: "approved", Reason: "report-writer failed twice with a timeout"})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(filepath.Dir(report), "user-responses", "user-response-feature-analysis-002.md")
	if path != want {
		t.Fatalf("sidecar at %s, want %s", path, want)
	}
	if got, exp := string(filetest.Read(t, path)), string(filetest.Read(t, exampleResponse)); got != exp {
		t.Fatalf("sidecar differs from the example:\n%s\n--- want\n%s", got, exp)
	}
}

func TestReportAuthoringSerialization(t *testing.T) {
	got, err := SerializeReportAuthoring(ReportAuthoring{Status: "denied", Reason: `the "writer" can retry` + "\nonce more"})
	if err != nil {
		t.Fatal(err)
	}
	want := "\n## REPORT AUTHORING\n- Status: denied\n- Reason: \"the \\\"writer\\\" can retry\\nonce more\"\n"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if q := QuotedField("Reason", "<b>&"); q != "- Reason: \"<b>&\"\n" {
		t.Fatalf("QuotedField escapes HTML: %q", q)
	}
	// The seed's exact messages.
	for _, c := range []struct {
		in   ReportAuthoring
		want string
	}{
		{ReportAuthoring{Status: "granted", Reason: "x"}, "invalid REPORT AUTHORING status: granted"},
		{ReportAuthoring{Status: "Approved", Reason: "x"}, "invalid REPORT AUTHORING status: Approved"},
		{ReportAuthoring{Status: "approved", Reason: ""}, "REPORT AUTHORING requires a Reason"},
		{ReportAuthoring{Status: "approved", Reason: " \t\n"}, "REPORT AUTHORING requires a Reason"},
		{ReportAuthoring{Status: "denied"}, "REPORT AUTHORING requires a Reason"},
	} {
		_, err := SerializeReportAuthoring(c.in)
		if err == nil || err.Error() != c.want {
			t.Fatalf("%+v: error %v, want exactly %q", c.in, err, c.want)
		}
	}
}

func TestPlanDecisionSerialization(t *testing.T) {
	got, err := SerializePlanDecision(PlanDecision{Status: "approved", ImplementationOption: "P-Opt-2"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "\n## PLAN DECISION\n- Status: approved\n- Implementation Option: P-Opt-2\n"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	got, err = SerializePlanDecision(PlanDecision{Status: "rejected", Reason: "scope too wide"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "\n## PLAN DECISION\n- Status: rejected\n- Reason: \"scope too wide\"\n"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	if _, err := SerializePlanDecision(PlanDecision{Status: "ok"}); err == nil || err.Error() != "invalid PLAN DECISION status: ok" {
		t.Fatalf("bad status: %v", err)
	}
	if _, err := SerializePlanDecision(PlanDecision{Status: "revision-requested"}); err == nil || err.Error() != "PLAN DECISION revision-requested requires a Reason" {
		t.Fatalf("no reason: %v", err)
	}
}

func TestBadSidecarInputsWriteNothing(t *testing.T) {
	_, report, _ := filetest.ApprovalProject(t)
	path := SidecarPath(report)
	// First: no sidecar yet, and none may appear.
	for _, c := range []struct {
		answers []Answer
		plan    *PlanDecision
		auth    *ReportAuthoring
		want    []string
	}{
		{auth: &ReportAuthoring{Status: "yes", Reason: "r"}, want: []string{"--report-authoring: invalid REPORT AUTHORING status: yes"}},
		{auth: &ReportAuthoring{Status: "approved", Reason: "  "}, want: []string{"--report-authoring: REPORT AUTHORING requires a Reason"}},
		{plan: &PlanDecision{Status: "maybe"}, want: []string{"--plan-decision: invalid PLAN DECISION status: maybe"}},
		{answers: []Answer{{ClarificationID: "3", Answer: "a"}}, want: []string{"--answers[0].clarificationId"}},
		{answers: []Answer{{ClarificationID: "C-003", Answer: ""}}, want: []string{"--answers[0].answer: is empty"}},
		{answers: []Answer{{ClarificationID: "C-003", Answer: "a", Disposition: "pick"}}, want: []string{"--answers[0].disposition"}},
		{answers: []Answer{{ClarificationID: "C-003", Answer: "a"}, {ClarificationID: "C-003", Answer: "b"}}, want: []string{"--answers[1]: answers C-003 a second time"}},
	} {
		_, err := Write(report, c.answers, c.plan, c.auth)
		filetest.MustErr(t, err, c.want...)
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a rejected write created %s", path)
		}
	}
	// Then: an existing sidecar keeps every byte.
	if _, err := Write(report, []Answer{{ClarificationID: "C-003", Answer: "Keep"}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	before := filetest.Read(t, path)
	dir := filetest.ListDir(t, filepath.Dir(path))
	_, err := Write(report, []Answer{{ClarificationID: "C-004", Answer: "x"}}, nil, &ReportAuthoring{Status: "approved"})
	filetest.MustErr(t, err, "REPORT AUTHORING requires a Reason")
	filetest.Unchanged(t, path, before, dir)
	_, err = Write(filepath.Join(filepath.Dir(report), "nope.md"), nil, nil, nil)
	filetest.MustErr(t, err, "--report", "nope.md is not a report file")
	// As okstra: an authoring object without a status is no decision.
	if _, err := Write(report, nil, nil, &ReportAuthoring{Reason: "r"}); err != nil {
		t.Fatal(err)
	}
	filetest.Unchanged(t, path, before, dir)
}

func TestWriteMergesWithTheExistingSidecar(t *testing.T) {
	filetest.FixedClock(t, "2026-11-29T10:31:07Z")
	_, report, _ := filetest.ApprovalProject(t)
	path := SidecarPath(report)
	existing := `# User Response — dev-10860 feature-analysis 002

- Created At: 2026-11-28T09:00:00Z
- Source Report: .okstra/tasks/dev-10860/runs/feature-analysis/reports/final-report-feature-analysis-002.md
- Reviewer: kim

## C-001
- Answer: Use UTC
- Disposition: select
- Seen In: the HTML view

## C-003
- Answer: Sort columns alphabetically
- Disposition: select

## PLAN DECISION
- Status: approved
- Implementation Option: P-Opt-1

## ANALYSIS REVIEW
- Status: reviewed
free text the user wrote

## REPORT AUTHORING
- Status: approved
- Reason: "report-writer timed out"
`
	filetest.Write(t, path, []byte(existing))
	if _, err := Write(report, []Answer{
		{ClarificationID: "C-003", Answer: "Keep the legacy order", Disposition: "select"},
		{ClarificationID: "C-005", Answer: "  two lines\nof answer", Disposition: "accept-risk", Note: "asked twice"},
	}, nil, nil); err != nil {
		t.Fatal(err)
	}
	want := `# User Response — dev-10860 feature-analysis 002

- Created At: 2026-11-28T09:00:00Z
- Source Report: .okstra/tasks/dev-10860/runs/feature-analysis/reports/final-report-feature-analysis-002.md
- Reviewer: kim

## C-001
- Answer: Use UTC
- Disposition: select
- Seen In: the HTML view

## C-003
- Answer: Keep the legacy order
- Disposition: select

## C-005
- Answer: "  two lines\nof answer"
- Disposition: accept-risk
- Note: asked twice

## PLAN DECISION
- Status: approved
- Implementation Option: P-Opt-1

## ANALYSIS REVIEW
- Status: reviewed
free text the user wrote

## REPORT AUTHORING
- Status: approved
- Reason: "report-writer timed out"
`
	if got := string(filetest.Read(t, path)); got != want {
		t.Fatalf("merged sidecar:\n%s\n--- want\n%s", got, want)
	}
	// A new decision replaces its section where it stands.
	if _, err := Write(report, nil, &PlanDecision{Status: "revision-requested", Reason: "stage 3 is too big"}, &ReportAuthoring{Status: "denied", Reason: "retry the writer"}); err != nil {
		t.Fatal(err)
	}
	got := string(filetest.Read(t, path))
	for _, part := range []string{
		"## PLAN DECISION\n- Status: revision-requested\n- Reason: \"stage 3 is too big\"\n\n## ANALYSIS REVIEW",
		"## REPORT AUTHORING\n- Status: denied\n- Reason: \"retry the writer\"\n",
	} {
		if !strings.Contains(got, part) {
			t.Fatalf("missing %q in\n%s", part, got)
		}
	}
	sc := ParseSidecar([]byte(got))
	if e := sc.Entry("C-005"); e.Get("Answer") != "  two lines\nof answer" {
		t.Fatalf("quoted answer did not read back: %q", e.Get("Answer"))
	}
}

func TestSidecarPathsAndMeta(t *testing.T) {
	r := ".okstra/tasks/dev-10860/runs/implementation/reports/final-report-implementation-012.md"
	if got := SidecarPath(r); got != ".okstra/tasks/dev-10860/runs/implementation/reports/user-responses/user-response-implementation-012.md" {
		t.Fatalf("SidecarPath = %s", got)
	}
	if m := InferRunMeta(r); m != (RunMeta{TaskKey: "dev-10860", TaskType: "implementation", Seq: "012"}) {
		t.Fatalf("InferRunMeta = %+v", m)
	}
	if m := InferRunMeta("/tmp/report.md"); m != (RunMeta{}) {
		t.Fatalf("InferRunMeta of a bare path = %+v", m)
	}
	if got := SidecarPath("x/notes.md"); got != "x/user-responses/user-response-notes.md" {
		t.Fatalf("SidecarPath = %s", got)
	}
	got := LedgerCandidates(r)
	want := []string{
		".okstra/tasks/dev-10860/runs/implementation/state/approval-decisions-implementation-012.json",
		".okstra/tasks/dev-10860/runs/implementation/state/approval-decisions.json",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("LedgerCandidates = %v", got)
	}
}

func TestShowListsTheOpenRowsOfTheReportsLedger(t *testing.T) {
	_, report, stateDir := filetest.ApprovalProject(t)
	// No ledger yet.
	_, err := Show(report)
	filetest.MustErr(t, err, "--report", "no approval-decision ledger beside", "approval-decisions-feature-analysis-002.json", "pass --ledger")

	ledger := filepath.Join(stateDir, "approval-decisions-feature-analysis-002.json")
	done := rowWithID("C-001")
	done.Status = StatusResolved
	writeLedger(t, ledger, done, rowWithID("C-003"), rowWithID("C-004"))
	if _, err := Write(report, []Answer{{ClarificationID: "C-004", Answer: "Sort", Disposition: "select"}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	res, err := Show(report)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ledger != ledger || len(res.Rows) != 2 || res.Rows[0].ClarificationID != "C-003" || res.Rows[1].SidecarAnswer == nil || !res.SidecarExists {
		t.Fatalf("Show = %+v", res)
	}
	text := res.Text()
	for _, part := range []string{
		"C-003 [open] Should the export keep the legacy CSV column order?",
		"  * Keep the legacy order (select, in-repo)",
		"  - Sort columns alphabetically (select, cross-repo; deferrable)",
		"      added work: Update importers in billing-sync and reports-etl; add a migration note.",
		"      direction change: Reverses plan item P-Step-004 (keep CSV stable).",
		"answered in " + SidecarPath(report) + ": Sort (select)",
	} {
		if !strings.Contains(text, part) {
			t.Fatalf("Show text lacks %q:\n%s", part, text)
		}
	}
	if strings.Contains(text, "C-001") {
		t.Fatalf("Show lists a resolved row:\n%s", text)
	}
	// Fallbacks: the generic name, then the only ledger; several is an error.
	if err := os.Rename(ledger, filepath.Join(stateDir, "approval-decisions.json")); err != nil {
		t.Fatal(err)
	}
	if got, err := LedgerForReport(report); err != nil || filepath.Base(got) != "approval-decisions.json" {
		t.Fatalf("LedgerForReport = %s, %v", got, err)
	}
	if err := os.Rename(filepath.Join(stateDir, "approval-decisions.json"), filepath.Join(stateDir, "approval-decisions-run-a.json")); err != nil {
		t.Fatal(err)
	}
	if got, err := LedgerForReport(report); err != nil || filepath.Base(got) != "approval-decisions-run-a.json" {
		t.Fatalf("LedgerForReport = %s, %v", got, err)
	}
	writeLedger(t, filepath.Join(stateDir, "approval-decisions-run-b.json"))
	_, err = LedgerForReport(report)
	filetest.MustErr(t, err, "several ledgers beside", "pass --ledger")
	res, err = ShowWith(report, filepath.Join(stateDir, "approval-decisions-run-b.json"))
	if err != nil || len(res.Rows) != 0 || !strings.Contains(res.Text(), "no open rows") {
		t.Fatalf("ShowWith explicit ledger = %+v, %v", res, err)
	}
}

// TestConcurrentSidecarWritersLoseNothing has many writers answer different
// rows of one sidecar at once; every answer must arrive.
func TestConcurrentSidecarWritersLoseNothing(t *testing.T) {
	_, report, _ := filetest.ApprovalProject(t)
	const writers = 24
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		go func() {
			_, err := Write(report, []Answer{{ClarificationID: "C-" + pad(w+1), Answer: "answer " + pad(w+1), Disposition: "select"}}, nil, nil)
			errs <- err
		}()
	}
	for w := 0; w < writers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	sc, err := ReadSidecar(report)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Entries) != writers {
		t.Fatalf("sidecar holds %d answers, want %d", len(sc.Entries), writers)
	}
	for w := 0; w < writers; w++ {
		if e := sc.Entry("C-" + pad(w+1)); e == nil || e.Get("Answer") != "answer "+pad(w+1) {
			t.Fatalf("answer %d lost", w+1)
		}
	}
}

func pad(n int) string { return fmt.Sprintf("%03d", n) }

func TestRoundTripIsStable(t *testing.T) {
	data := filetest.Read(t, exampleResponse)
	if got := ParseSidecar(data).Render(); got != string(data) {
		t.Fatalf("parse+render changed the example:\n%s", got)
	}
}

// `user-response write --project-root .` (or ./, or the absolute root)
// stores Source Report relative to the project, whatever the report flag's
// form.
func TestSourceReportIsProjectRelativeForEveryRootForm(t *testing.T) {
	const want = "- Source Report: .okstra/tasks/dev-10860/runs/feature-analysis/reports/final-report-feature-analysis-002.md\n"
	for _, form := range []string{".", "./", "absolute", "absolute/"} {
		for _, reportForm := range []string{"relative", "absolute"} {
			t.Run(form+" "+reportForm, func(t *testing.T) {
				root, report, _ := filetest.ApprovalProject(t)
				t.Chdir(root)
				pr := form
				switch form {
				case "absolute":
					pr = root
				case "absolute/":
					pr = root + "/"
				}
				rp := rel(t, root, report)
				if reportForm == "absolute" {
					rp = report
				}
				// The report path resolves inside the project root as
				// `user-response write --report` resolves it.
				r, err := state.OpenRoot(pr)
				if err != nil {
					t.Fatal(err)
				}
				resolved, err := r.Resolve(rp, "--report")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := WriteSidecar(WriteRequest{Report: resolved, ProjectRoot: pr, Answers: []Answer{{ClarificationID: "C-003", Answer: "Keep"}}}); err != nil {
					t.Fatal(err)
				}
				data := string(filetest.Read(t, SidecarPath(report)))
				if !strings.Contains(data, want) {
					t.Fatalf("--project-root %q --report %q stored:\n%s", pr, rp, data)
				}
				// The carry of that answer finds the report again and
				// records a project-relative reference.
				ledger := filepath.Join(root, ".okstra", "tasks", "dev-10860", "runs", "feature-analysis", "state", "approval-decisions-feature-analysis-002.json")
				c := rowWithID("C-003")
				c.Status = StatusResolved
				writeLedger(t, ledger, c)
				next := filepath.Join(root, ".okstra", "tasks", "dev-10860", "runs", "implementation", "state", "approval-decisions-implementation-001.json")
				res, err := CarryWith(CarryRequest{Ledger: next, FromResponses: SidecarPath(report), IDs: []string{"C-003"}, ProjectRoot: pr})
				if err != nil {
					t.Fatal(err)
				}
				if ref := res.Carried[0].Resolution.UserResponseRef; ref != ".okstra/tasks/dev-10860/runs/feature-analysis/reports/user-responses/user-response-feature-analysis-002.md#C-003" {
					t.Fatalf("userResponseRef %q", ref)
				}
			})
		}
	}
}

// A sidecar whose Source Report an earlier cockpit stored as an absolute
// path to this report gets the project-relative one on the next write.
func TestAbsoluteSourceReportOfThisReportIsMadeRelative(t *testing.T) {
	root, report, _ := filetest.ApprovalProject(t)
	filetest.Write(t, SidecarPath(report), []byte("# User Response — dev-10860 feature-analysis 002\n\n- Created At: 2026-11-29T10:31:07Z\n- Source Report: "+report+"\n\n## C-003\n- Answer: Keep\n"))
	if _, err := WriteSidecar(WriteRequest{Report: report, ProjectRoot: root, Answers: []Answer{{ClarificationID: "C-004", Answer: "Sort"}}}); err != nil {
		t.Fatal(err)
	}
	data := string(filetest.Read(t, SidecarPath(report)))
	if !strings.Contains(data, "- Source Report: .okstra/tasks/dev-10860/runs/feature-analysis/reports/final-report-feature-analysis-002.md\n") || !strings.Contains(data, "- Created At: 2026-11-29T10:31:07Z\n") {
		t.Fatalf("sidecar:\n%s", data)
	}
	// Another report's absolute path is someone's choice and stays.
	other := filepath.Join(root, "elsewhere.md")
	filetest.Write(t, other, []byte("# other\n"))
	filetest.Write(t, SidecarPath(report), []byte("# User Response\n\n- Source Report: "+other+"\n"))
	if _, err := WriteSidecar(WriteRequest{Report: report, ProjectRoot: root, Answers: []Answer{{ClarificationID: "C-004", Answer: "Sort"}}}); err != nil {
		t.Fatal(err)
	}
	if data := string(filetest.Read(t, SidecarPath(report))); !strings.Contains(data, "- Source Report: "+other+"\n") {
		t.Fatalf("sidecar:\n%s", data)
	}
}

// Issue 18.10: `user-response write` is okstra's write_sidecar — Created At
// is now on every write, and a PLAN DECISION or REPORT AUTHORING the call
// does not pass again is dropped (serialize_user_response writes only what
// it is given; answers merge). The gates' own writes keep every section.
func TestUserResponseWriteIsOkstras(t *testing.T) {
	root, report, _ := filetest.ApprovalProject(t)
	filetest.FixedClock(t, "2026-11-29T10:00:00Z")
	if _, err := WriteSidecar(WriteRequest{Report: report, ProjectRoot: root, Okstra: true,
		Answers:         []Answer{{ClarificationID: "C-001", Answer: "Use UTC"}},
		ReportAuthoring: &ReportAuthoring{Status: "approved", Reason: "report-writer failed twice"},
	}); err != nil {
		t.Fatal(err)
	}
	filetest.FixedClock(t, "2026-11-29T11:30:00Z")
	if _, err := WriteSidecar(WriteRequest{Report: report, ProjectRoot: root, Okstra: true,
		Answers: []Answer{{ClarificationID: "C-003", Answer: "Keep the legacy order", Disposition: "select"}},
	}); err != nil {
		t.Fatal(err)
	}
	want := "# User Response — dev-10860 feature-analysis 002\n\n" +
		"- Created At: 2026-11-29T11:30:00Z\n" +
		"- Source Report: .okstra/tasks/dev-10860/runs/feature-analysis/reports/final-report-feature-analysis-002.md\n" +
		"\n## C-001\n- Answer: Use UTC\n" +
		"\n## C-003\n- Answer: Keep the legacy order\n- Disposition: select\n"
	if got := string(filetest.Read(t, SidecarPath(report))); got != want {
		t.Fatalf("sidecar:\n%s\nwant:\n%s", got, want)
	}
	// A gate's write (not okstra's) keeps what is there.
	if _, err := WriteSidecar(WriteRequest{Report: report, ProjectRoot: root, ReportAuthoring: &ReportAuthoring{Status: "denied", Reason: "write it again"}}); err != nil {
		t.Fatal(err)
	}
	filetest.FixedClock(t, "2026-11-29T12:00:00Z")
	if _, err := WriteSidecar(WriteRequest{Report: report, ProjectRoot: root, Answers: []Answer{{ClarificationID: "C-005", Answer: "x"}}}); err != nil {
		t.Fatal(err)
	}
	got := string(filetest.Read(t, SidecarPath(report)))
	if !strings.Contains(got, "## REPORT AUTHORING\n- Status: denied") || !strings.Contains(got, "- Created At: 2026-11-29T11:30:00Z") {
		t.Fatalf("a gate's write dropped a section or moved Created At:\n%s", got)
	}
}
