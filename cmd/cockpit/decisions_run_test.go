package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/okstra/cockpit/internal/filetest"
	"github.com/okstra/cockpit/state/approval"
)

// The approval-decision and user-response commands' run functions, called
// with buffers for streams: what they print, what they refuse, and that a
// refusal changes nothing. (They were state/approval's CLI functions; the
// ledger and sidecar rules they call are tested there.)

func runOpen(o ApprovalOpenOptions, out *bytes.Buffer) error {
	o.IO = &IOStreams{Out: out, Err: out}
	return approvalOpenRun(&o)
}

func runOption(o ApprovalOptionOptions, out *bytes.Buffer) error {
	o.IO = &IOStreams{Out: out, Err: out}
	return approvalOptionRun(&o)
}

func runCarry(o ApprovalCarryOptions, out *bytes.Buffer) error {
	o.IO = &IOStreams{Out: out, Err: out}
	return approvalCarryRun(&o)
}

func runResolve(o ApprovalResolveOptions, out *bytes.Buffer) error {
	o.IO = &IOStreams{Out: out, Err: out}
	return approvalResolveRun(&o)
}

func runWrite(o UserResponseWriteOptions, out *bytes.Buffer) error {
	o.IO = &IOStreams{Out: out, Err: out}
	return userResponseWriteRun(&o)
}

func runShow(o UserResponseShowOptions, out *bytes.Buffer) error {
	o.IO = &IOStreams{Out: out, Err: out}
	return userResponseShowRun(&o)
}

func optionJSON(t *testing.T, o approval.Option) string {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestApprovalCommandLinesEndToEnd(t *testing.T) {
	filetest.FixedClock(t, "2026-11-29T10:31:07Z")
	root, report, _ := filetest.ApprovalProject(t)
	ledger := ".okstra/tasks/dev-10860/runs/feature-analysis/state/approval-decisions-feature-analysis-002.json"
	ex := exampleRow()
	open := ApprovalOpenOptions{
		ProjectRoot: root, Ledger: ledger, TaskKey: "dev-10860", TaskType: "feature-analysis", RunSeq: "002",
		ClarificationID: "C-003", TicketID: ex.TicketID, Statement: ex.Statement, ExpectedForm: ex.ExpectedForm,
		Classification: ex.Classification, Origin: ex.Origin, UserConfirmation: ex.UserConfirmation,
		UnblockCondition: ex.UnblockCondition, RecommendedDisposition: "select",
		Options: []string{optionJSON(t, ex.Options[0]), optionJSON(t, ex.Options[1])},
	}
	var out bytes.Buffer
	if err := runOpen(open, &out); err != nil {
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
	filetest.MustErr(t, runOpen(bad, &out), `--option 2: is not an option object (json: unknown field "answr")`)
	// One option: the row is recorded, and reported incomplete (okstra: "a
	// row that ... offers fewer than two ... is incomplete"), not refused.
	one := bad
	one.Ledger = "scratch/approval-decisions.json"
	one.Options = []string{optionJSON(t, ex.Options[0])}
	out.Reset()
	if err := runOpen(one, &out); err != nil {
		t.Fatalf("a row with one option was refused: %v", err)
	}
	scratch := filepath.Join(root, "scratch", "approval-decisions.json")
	if want := "opened C-004 in " + scratch + "\nincomplete: C-004 options: has 1 option(s); a row needs at least 2: one recommended, the others alternative — add options with `approval-decision option --ledger " + scratch + " --clarification-id C-004 --option <json>`\n"; out.String() != want {
		t.Fatalf("open printed %q\nwant         %q", out.String(), want)
	}
	bad.Ledger = "../elsewhere.json"
	filetest.MustErr(t, runOpen(bad, &out), "--ledger", "is outside the project root")
	bad.Ledger = ""
	filetest.MustErr(t, runOpen(bad, &out), "--ledger: is required")

	// show, text and JSON.
	out.Reset()
	if err := runShow(UserResponseShowOptions{ProjectRoot: root, Report: rel(t, root, report)}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "C-003 [open] Should the export keep") {
		t.Fatalf("show printed:\n%s", out.String())
	}
	out.Reset()
	if err := runShow(UserResponseShowOptions{ProjectRoot: root, Report: rel(t, root, report), JSON: true}, &out); err != nil {
		t.Fatal(err)
	}
	var shown approval.ShowResult
	if err := json.Unmarshal(out.Bytes(), &shown); err != nil || len(shown.Rows) != 1 || shown.Rows[0].Options[1].Reach != "cross-repo" {
		t.Fatalf("show --json = %s (%v)", out.String(), err)
	}

	// write, as okstra: prints {"sidecar": path}.
	out.Reset()
	w := UserResponseWriteOptions{ProjectRoot: root, Report: rel(t, root, report),
		Answers:         `[{"id": "C-003", "answer": "Keep the legacy order", "disposition": "select"}]`,
		ReportAuthoring: `{"status": "approved", "reason": "report-writer failed twice with a timeout"}`}
	if err := runWrite(w, &out); err != nil {
		t.Fatal(err)
	}
	var printed map[string]string
	if err := json.Unmarshal(out.Bytes(), &printed); err != nil || printed["sidecar"] != approval.SidecarPath(report) {
		t.Fatalf("write printed %s", out.String())
	}
	if got := string(filetest.Read(t, approval.SidecarPath(report))); got != string(filetest.Read(t, exampleResponse)) {
		t.Fatalf("sidecar:\n%s", got)
	}
	badW := w
	badW.ReportAuthoring = `{"status": "approved", "reason": ""}`
	filetest.MustErr(t, runWrite(badW, &out), "--report-authoring: REPORT AUTHORING requires a Reason")
	badW.ReportAuthoring = `{"status": "approved", "why": "x"}`
	filetest.MustErr(t, runWrite(badW, &out), "--report-authoring: is not a JSON object", `unknown field "why"`)
	badW.ReportAuthoring = ""
	badW.Answers = `{"C-003": "x"}`
	filetest.MustErr(t, runWrite(badW, &out), "--answers: is not a JSON array of answers")
	badW.Answers = `[{"id": "C-003", "clarificationId": "C-004", "answer": "x"}]`
	filetest.MustErr(t, runWrite(badW, &out), "--answers[0]: gives id C-003 and clarificationId C-004")
	badW.Answers = `[]`
	badW.PlanDecision = `{"status": "rejected"}`
	filetest.MustErr(t, runWrite(badW, &out), "--plan-decision: PLAN DECISION rejected requires a Reason")

	// resolve.
	out.Reset()
	if err := runResolve(ApprovalResolveOptions{ProjectRoot: root, Ledger: ledger, ClarificationID: "C-003", Disposition: "select", UserText: "Keep the legacy order", UserResponseRef: printed["sidecar"]}, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "resolved C-003 (select) in "+abs+"\n" {
		t.Fatalf("resolve printed %q", got)
	}
	out.Reset()
	if err := runShow(UserResponseShowOptions{ProjectRoot: root, Report: rel(t, root, report)}, &out); err != nil || !strings.Contains(out.String(), "no open rows") {
		t.Fatalf("show after resolve: %q, %v", out.String(), err)
	}
}

func TestRunCarry(t *testing.T) {
	root, responses, ledger := earlierRun(t)
	var out bytes.Buffer
	o := ApprovalCarryOptions{ProjectRoot: root, Ledger: rel(t, root, ledger), FromResponses: rel(t, root, responses), IDs: []string{"C-003"}}
	if err := runCarry(o, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "carried C-003 into "+ledger+"\n" {
		t.Fatalf("carry printed %q", got)
	}
	out.Reset()
	o.JSON = true
	if err := runCarry(o, &out); err != nil {
		t.Fatal(err)
	}
	var res approval.CarryResult
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

const seedLedger = ".okstra/tasks/dev-10860/runs/feature-analysis/state/approval-decisions-feature-analysis-002.json"

// seedOpen is `approval-decision open` exactly as okstra's lead contract
// writes it: every flag of the contract's line, and no option.
func seedOpen(root, id string) ApprovalOpenOptions {
	ex := exampleRow()
	return ApprovalOpenOptions{
		ProjectRoot: root, Ledger: seedLedger, TaskKey: "dev-10860", TaskType: "feature-analysis", RunSeq: "002",
		ClarificationID: id, TicketID: ex.TicketID, Statement: ex.Statement, ExpectedForm: ex.ExpectedForm,
		Classification: ex.Classification, Origin: ex.Origin, UserConfirmation: ex.UserConfirmation,
		UnblockCondition: ex.UnblockCondition, RecommendedDisposition: "select",
	}
}

func TestOpenAcceptsTheSeedCommandLineAndReportsTheRowIncomplete(t *testing.T) {
	filetest.FixedClock(t, "2026-11-29T10:31:07Z")
	root, report, _ := filetest.ApprovalProject(t)
	ledger := filepath.Join(root, seedLedger)
	var out bytes.Buffer
	if err := runOpen(seedOpen(root, "C-003"), &out); err != nil {
		t.Fatalf("the seed's own command line was refused: %v", err)
	}
	want := "opened C-003 in " + ledger + "\n" +
		"incomplete: C-003 options: has 0 option(s); a row needs at least 2: one recommended, the others alternative — add options with `approval-decision option --ledger " + ledger + " --clarification-id C-003 --option <json>`\n"
	if out.String() != want {
		t.Fatalf("open printed %q\nwant         %q", out.String(), want)
	}
	// Stored as an open row with an empty options array, as okstra writes
	// a row without options.
	var doc struct {
		Rows []map[string]json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(filetest.Read(t, ledger), &doc); err != nil || len(doc.Rows) != 1 {
		t.Fatalf("ledger: %v %s", err, filetest.Read(t, ledger))
	}
	if got := string(doc.Rows[0]["options"]); got != "[]" {
		t.Fatalf("options stored as %s, want []", got)
	}
	if got := string(doc.Rows[0]["status"]); got != `"open"` {
		t.Fatalf("status stored as %s", got)
	}

	// --json says the same in "incomplete".
	out.Reset()
	o := seedOpen(root, "C-004")
	o.Supersedes = ""
	o.JSON = true
	if err := runOpen(o, &out); err != nil {
		t.Fatal(err)
	}
	var printed struct {
		Ledger     string       `json:"ledger"`
		Row        approval.Row `json:"row"`
		Incomplete string       `json:"incomplete"`
	}
	if err := json.Unmarshal(out.Bytes(), &printed); err != nil {
		t.Fatalf("open --json printed %s: %v", out.String(), err)
	}
	if printed.Incomplete != "C-004 options: has 0 option(s); a row needs at least 2: one recommended, the others alternative" || printed.Row.Status != approval.StatusOpen {
		t.Fatalf("open --json printed %s", out.String())
	}

	// user-response show lists both, marked incomplete, in text and JSON.
	out.Reset()
	if err := runShow(UserResponseShowOptions{ProjectRoot: root, Report: rel(t, root, report)}, &out); err != nil {
		t.Fatalf("show on incomplete rows: %v", err)
	}
	for _, line := range []string{
		"C-003 [open, incomplete] Should the export keep the legacy CSV column order?\n",
		"  incomplete: C-003 options: has 0 option(s); a row needs at least 2: one recommended, the others alternative — add options with `approval-decision option --clarification-id C-003`\n",
		"C-004 [open, incomplete] ",
	} {
		if !strings.Contains(out.String(), line) {
			t.Fatalf("show printed:\n%s\nwithout %q", out.String(), line)
		}
	}
	out.Reset()
	if err := runShow(UserResponseShowOptions{ProjectRoot: root, Report: rel(t, root, report), JSON: true}, &out); err != nil {
		t.Fatal(err)
	}
	var shown approval.ShowResult
	if err := json.Unmarshal(out.Bytes(), &shown); err != nil || len(shown.Rows) != 2 || !strings.HasPrefix(shown.Rows[0].Incomplete, "C-003 options: has 0 option(s)") {
		t.Fatalf("show --json = %s (%v)", out.String(), err)
	}

	// A gate refuses to ask it, in one line.
	l, err := approval.Read(ledger)
	if err != nil {
		t.Fatal(err)
	}
	_, err = approval.RowForGate(l, seedLedger, "C-003")
	filetest.MustErr(t, err, seedLedger+": --clarification-id: C-003 is incomplete (has 0 option(s); a row needs at least 2: one recommended, the others alternative): there is nothing the user can choose yet; add options with `cockpit approval-decision option --clarification-id C-003 --option <json>` and ask again")
}

func TestOptionCompletesAnOpenRow(t *testing.T) {
	root, report, _ := filetest.ApprovalProject(t)
	ledger := filepath.Join(root, seedLedger)
	var out bytes.Buffer
	if err := runOpen(seedOpen(root, "C-003"), &out); err != nil {
		t.Fatal(err)
	}
	ex := exampleRow()
	add := ApprovalOptionOptions{ProjectRoot: root, Ledger: seedLedger, ClarificationID: "C-003", Options: []string{optionJSON(t, ex.Options[0])}}

	// One option: still incomplete.
	out.Reset()
	if err := runOption(add, &out); err != nil {
		t.Fatal(err)
	}
	want := "C-003 in " + ledger + " offers 1 option(s)\nincomplete: C-003 options: has 1 option(s); a row needs at least 2: one recommended, the others alternative — add options with `approval-decision option --ledger " + ledger + " --clarification-id C-003 --option <json>`\n"
	if out.String() != want {
		t.Fatalf("option printed %q\nwant           %q", out.String(), want)
	}
	// The same option again (a retried call) changes nothing, not even the
	// file's inode.
	st1, _ := os.Stat(ledger)
	out.Reset()
	if err := runOption(add, &out); err != nil {
		t.Fatalf("a repeated option was refused: %v", err)
	}
	st2, _ := os.Stat(ledger)
	if !os.SameFile(st1, st2) || !strings.HasPrefix(out.String(), "C-003 in "+ledger+" offers 1 option(s)\n") {
		t.Fatalf("a repeated option rewrote the ledger or printed %q", out.String())
	}
	// The alternative, from an options file: complete.
	filetest.Write(t, filepath.Join(root, "opts.json"), []byte("["+optionJSON(t, ex.Options[1])+"]"))
	out.Reset()
	if err := runOption(ApprovalOptionOptions{ProjectRoot: root, Ledger: seedLedger, ClarificationID: "C-003", OptionsFile: "opts.json"}, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "C-003 in "+ledger+" offers 2 option(s); it is complete\n" {
		t.Fatalf("option printed %q", got)
	}
	l, err := approval.Read(ledger)
	if err != nil {
		t.Fatal(err)
	}
	row, err := approval.RowForGate(l, seedLedger, "C-003")
	if err != nil || approval.ValidateRow(*row) != nil || row.Options[1].Answer != ex.Options[1].Answer {
		t.Fatalf("completed row: %+v %v", row, err)
	}
	out.Reset()
	if err := runShow(UserResponseShowOptions{ProjectRoot: root, Report: rel(t, root, report)}, &out); err != nil || !strings.Contains(out.String(), "C-003 [open] ") || strings.Contains(out.String(), "incomplete") {
		t.Fatalf("show after completion (%v):\n%s", err, out.String())
	}
}

func TestOptionRefusalsChangeNothing(t *testing.T) {
	root, _, _ := filetest.ApprovalProject(t)
	ledger := filepath.Join(root, seedLedger)
	var out bytes.Buffer
	if err := runOpen(seedOpen(root, "C-003"), &out); err != nil {
		t.Fatal(err)
	}
	ex := exampleRow()
	if err := runOption(ApprovalOptionOptions{ProjectRoot: root, Ledger: seedLedger, ClarificationID: "C-003", Options: []string{optionJSON(t, ex.Options[0])}}, &out); err != nil {
		t.Fatal(err)
	}
	resolved := rowWithID("C-005")
	if _, err := approval.Open(ledger, resolved, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := approval.Resolve(ledger, "C-005", "select", "Keep", "r.md#C-005"); err != nil {
		t.Fatal(err)
	}
	filetest.Write(t, filepath.Join(root, "notarray.json"), []byte(`{"role": "alternative"}`))
	filetest.Write(t, filepath.Join(root, "badelem.json"), []byte(`[`+optionJSON(t, ex.Options[1])+`, {"role": "alternative", "answr": "x"}]`))
	filetest.Write(t, filepath.Join(root, "truncated.json"), []byte(`[{"role": "alt`))
	changed := ex.Options[0]
	changed.Rationale = "another reason"
	badReach := ex.Options[1]
	badReach.Reach = "repo"
	before := filetest.Read(t, ledger)
	dir := filetest.ListDir(t, filepath.Dir(ledger))
	base := ApprovalOptionOptions{ProjectRoot: root, Ledger: seedLedger, ClarificationID: "C-003"}
	cases := []struct {
		name string
		edit func(o *ApprovalOptionOptions)
		want string
	}{
		{"no option", func(o *ApprovalOptionOptions) {}, "--option: is required; give each option as --option <json>, or a JSON array of them in --options-file"},
		{"no id", func(o *ApprovalOptionOptions) {
			o.ClarificationID = ""
			o.Options = []string{optionJSON(t, ex.Options[1])}
		}, "--clarification-id: is required"},
		{"bad id", func(o *ApprovalOptionOptions) {
			o.ClarificationID = "003"
			o.Options = []string{optionJSON(t, ex.Options[1])}
		}, `--clarification-id: "003" is not a clarification id`},
		{"unknown row", func(o *ApprovalOptionOptions) {
			o.ClarificationID = "C-009"
			o.Options = []string{optionJSON(t, ex.Options[1])}
		}, "--clarification-id: C-009 is not a row of this ledger; open it first"},
		{"resolved row", func(o *ApprovalOptionOptions) {
			o.ClarificationID = "C-005"
			o.Options = []string{optionJSON(t, ex.Options[1])}
		}, "--clarification-id: C-005 is resolved; only an open row takes options"},
		{"bad json", func(o *ApprovalOptionOptions) { o.Options = []string{`{"role":`} }, "--option 1: is not an option object"},
		{"bad reach", func(o *ApprovalOptionOptions) { o.Options = []string{optionJSON(t, badReach)} }, `option 1.reach: is "repo"; expected exactly one of in-repo or cross-repo`},
		{"same answer, other content", func(o *ApprovalOptionOptions) { o.Options = []string{optionJSON(t, changed)} }, `option 1: offers "Keep the legacy order", which C-003 options[0] already offers differently; give each answer once, or --replace with the full list`},
		{"twice in a replace", func(o *ApprovalOptionOptions) {
			o.Replace = true
			o.Options = []string{optionJSON(t, ex.Options[0]), optionJSON(t, changed)}
		}, `option 2: offers "Keep the legacy order" twice`},
		{"options file not an array", func(o *ApprovalOptionOptions) { o.OptionsFile = "notarray.json" }, "notarray.json: is not a JSON array of options"},
		{"options file element", func(o *ApprovalOptionOptions) { o.OptionsFile = "badelem.json" }, `badelem.json: [1]: is not an option object (json: unknown field "answr")`},
		{"options file truncated", func(o *ApprovalOptionOptions) { o.OptionsFile = "truncated.json" }, "truncated.json: is not a JSON array of options"},
		{"options file missing", func(o *ApprovalOptionOptions) { o.OptionsFile = "none.json" }, "--options-file: cannot read none.json (no such file or directory)"},
		{"options file outside", func(o *ApprovalOptionOptions) { o.OptionsFile = "../x.json" }, "--options-file: path \"../x.json\" is outside the project root"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := base
			c.edit(&o)
			filetest.MustErr(t, runOption(o, &out), c.want)
			filetest.Unchanged(t, ledger, before, dir)
		})
	}
}

// A row opened with two recommended options is incomplete; --replace puts
// a right list in place.
func TestReplaceFixesTwoRecommendedOptions(t *testing.T) {
	root, _, _ := filetest.ApprovalProject(t)
	ledger := filepath.Join(root, seedLedger)
	ex := exampleRow()
	two := ex.Options[1]
	two.Role = approval.RoleRecommended
	o := seedOpen(root, "C-003")
	o.Options = []string{optionJSON(t, ex.Options[0]), optionJSON(t, two)}
	var out bytes.Buffer
	if err := runOpen(o, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "incomplete: C-003 options: mark 2 options recommended (options[0], options[1]); exactly one may be") {
		t.Fatalf("open printed %q", out.String())
	}
	out.Reset()
	if err := runOption(ApprovalOptionOptions{ProjectRoot: root, Ledger: seedLedger, ClarificationID: "C-003", Replace: true,
		Options: []string{optionJSON(t, ex.Options[0]), optionJSON(t, ex.Options[1])}}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "offers 2 option(s); it is complete\n") {
		t.Fatalf("option --replace printed %q", out.String())
	}
	l, err := approval.Read(ledger)
	if err != nil {
		t.Fatal(err)
	}
	if err := approval.ValidateRow(*l.Row("C-003")); err != nil {
		t.Fatalf("replaced row: %v", err)
	}
}

// An answered row of an earlier run carries even when it was incomplete:
// the user's answer stands.
func TestIncompleteRowStillCarries(t *testing.T) {
	root, responses, ledger := earlierRun(t)
	src := filepath.Join(root, ".okstra", "tasks", "dev-10860", "runs", "feature-analysis", "state", "approval-decisions-feature-analysis-001.json")
	var l map[string]any
	if err := json.Unmarshal(filetest.Read(t, src), &l); err != nil {
		t.Fatal(err)
	}
	for _, r := range l["rows"].([]any) {
		r.(map[string]any)["options"] = []any{}
	}
	data, _ := json.MarshalIndent(l, "", "  ")
	filetest.Write(t, src, data)
	var out bytes.Buffer
	if err := runCarry(ApprovalCarryOptions{ProjectRoot: root, Ledger: rel(t, root, ledger), FromResponses: rel(t, root, responses), IDs: []string{"C-003"}}, &out); err != nil {
		t.Fatalf("carry of an incomplete answered row: %v", err)
	}
	if statusOf(t, ledger, "C-003") != approval.StatusAnswered {
		t.Fatal("not carried")
	}
}

func TestOpenTakesAnOptionsFile(t *testing.T) {
	root, _, _ := filetest.ApprovalProject(t)
	ledger := filepath.Join(root, seedLedger)
	ex := exampleRow()
	filetest.Write(t, filepath.Join(root, "opts.json"), []byte("[\n"+optionJSON(t, ex.Options[1])+"\n]\n"))
	o := seedOpen(root, "C-003")
	o.Options = []string{optionJSON(t, ex.Options[0])} // --option first, then the file's
	o.OptionsFile = "opts.json"
	var out bytes.Buffer
	if err := runOpen(o, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "opened C-003 in "+ledger+"\n" {
		t.Fatalf("open printed %q", out.String())
	}
	l, err := approval.Read(ledger)
	if err != nil {
		t.Fatal(err)
	}
	if r := l.Row("C-003"); r == nil || approval.ValidateRow(*r) != nil || r.Options[0].Role != approval.RoleRecommended || r.Options[1].Answer != ex.Options[1].Answer {
		t.Fatalf("row: %+v", r)
	}
	// A bad options file writes nothing.
	before := filetest.Read(t, ledger)
	filetest.Write(t, filepath.Join(root, "bad.json"), []byte(`[{"role": "alternative", "answer": 3}]`))
	o = seedOpen(root, "C-004")
	o.OptionsFile = "bad.json"
	filetest.MustErr(t, runOpen(o, &out), "bad.json: [0]: is not an option object (json: cannot unmarshal number into Go struct field Option.answer of type string)")
	filetest.Unchanged(t, ledger, before, nil)
}
