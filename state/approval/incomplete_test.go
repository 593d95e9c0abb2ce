package approval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const seedLedger = ".okstra/tasks/dev-10860/runs/feature-analysis/state/approval-decisions-feature-analysis-002.json"

// seedOpen is `approval-decision open` exactly as okstra's lead contract
// writes it: every flag of the contract's line, and no option.
func seedOpen(root, id string) OpenOptions {
	ex := exampleRow()
	return OpenOptions{
		ProjectRoot: root, Ledger: seedLedger, TaskKey: "dev-10860", TaskType: "feature-analysis", RunSeq: "002",
		ClarificationID: id, TicketID: ex.TicketID, Statement: ex.Statement, ExpectedForm: ex.ExpectedForm,
		Classification: ex.Classification, Origin: ex.Origin, UserConfirmation: ex.UserConfirmation,
		UnblockCondition: ex.UnblockCondition, RecommendedDisposition: "select",
	}
}

func TestOpenAcceptsTheSeedCommandLineAndReportsTheRowIncomplete(t *testing.T) {
	fixedClock(t, "2026-11-29T10:31:07Z")
	root, report, _ := project(t)
	ledger := filepath.Join(root, seedLedger)
	var out bytes.Buffer
	if err := RunOpen(seedOpen(root, "C-003"), &out); err != nil {
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
	if err := json.Unmarshal(readFile(t, ledger), &doc); err != nil || len(doc.Rows) != 1 {
		t.Fatalf("ledger: %v %s", err, readFile(t, ledger))
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
	if err := RunOpen(o, &out); err != nil {
		t.Fatal(err)
	}
	var printed struct {
		Ledger     string `json:"ledger"`
		Row        Row    `json:"row"`
		Incomplete string `json:"incomplete"`
	}
	if err := json.Unmarshal(out.Bytes(), &printed); err != nil {
		t.Fatalf("open --json printed %s: %v", out.String(), err)
	}
	if printed.Incomplete != "C-004 options: has 0 option(s); a row needs at least 2: one recommended, the others alternative" || printed.Row.Status != StatusOpen {
		t.Fatalf("open --json printed %s", out.String())
	}

	// user-response show lists both, marked incomplete, in text and JSON.
	out.Reset()
	if err := RunShow(ShowOptions{ProjectRoot: root, Report: rel(t, root, report)}, &out); err != nil {
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
	if err := RunShow(ShowOptions{ProjectRoot: root, Report: rel(t, root, report), JSON: true}, &out); err != nil {
		t.Fatal(err)
	}
	var shown ShowResult
	if err := json.Unmarshal(out.Bytes(), &shown); err != nil || len(shown.Rows) != 2 || !strings.HasPrefix(shown.Rows[0].Incomplete, "C-003 options: has 0 option(s)") {
		t.Fatalf("show --json = %s (%v)", out.String(), err)
	}

	// A gate refuses to ask it, in one line.
	l, err := Read(ledger)
	if err != nil {
		t.Fatal(err)
	}
	_, err = RowForGate(l, seedLedger, "C-003")
	mustErr(t, err, seedLedger+": --clarification-id: C-003 is incomplete (has 0 option(s); a row needs at least 2: one recommended, the others alternative): there is nothing the user can choose yet; add options with `cockpit approval-decision option --clarification-id C-003 --option <json>` and ask again")
}

func TestOptionCompletesAnOpenRow(t *testing.T) {
	root, report, _ := project(t)
	ledger := filepath.Join(root, seedLedger)
	var out bytes.Buffer
	if err := RunOpen(seedOpen(root, "C-003"), &out); err != nil {
		t.Fatal(err)
	}
	ex := exampleRow()
	add := OptionOptions{ProjectRoot: root, Ledger: seedLedger, ClarificationID: "C-003", Options: []string{optionJSON(t, ex.Options[0])}}

	// One option: still incomplete.
	out.Reset()
	if err := RunOption(add, &out); err != nil {
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
	if err := RunOption(add, &out); err != nil {
		t.Fatalf("a repeated option was refused: %v", err)
	}
	st2, _ := os.Stat(ledger)
	if !os.SameFile(st1, st2) || !strings.HasPrefix(out.String(), "C-003 in "+ledger+" offers 1 option(s)\n") {
		t.Fatalf("a repeated option rewrote the ledger or printed %q", out.String())
	}
	// The alternative, from an options file: complete.
	writeFile(t, filepath.Join(root, "opts.json"), []byte("["+optionJSON(t, ex.Options[1])+"]"))
	out.Reset()
	if err := RunOption(OptionOptions{ProjectRoot: root, Ledger: seedLedger, ClarificationID: "C-003", OptionsFile: "opts.json"}, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "C-003 in "+ledger+" offers 2 option(s); it is complete\n" {
		t.Fatalf("option printed %q", got)
	}
	l, err := Read(ledger)
	if err != nil {
		t.Fatal(err)
	}
	row, err := RowForGate(l, seedLedger, "C-003")
	if err != nil || ValidateRow(*row) != nil || row.Options[1].Answer != ex.Options[1].Answer {
		t.Fatalf("completed row: %+v %v", row, err)
	}
	out.Reset()
	if err := RunShow(ShowOptions{ProjectRoot: root, Report: rel(t, root, report)}, &out); err != nil || !strings.Contains(out.String(), "C-003 [open] ") || strings.Contains(out.String(), "incomplete") {
		t.Fatalf("show after completion (%v):\n%s", err, out.String())
	}
}

func TestOptionRefusalsChangeNothing(t *testing.T) {
	root, _, _ := project(t)
	ledger := filepath.Join(root, seedLedger)
	var out bytes.Buffer
	if err := RunOpen(seedOpen(root, "C-003"), &out); err != nil {
		t.Fatal(err)
	}
	ex := exampleRow()
	if err := RunOption(OptionOptions{ProjectRoot: root, Ledger: seedLedger, ClarificationID: "C-003", Options: []string{optionJSON(t, ex.Options[0])}}, &out); err != nil {
		t.Fatal(err)
	}
	resolved := rowWithID("C-005")
	if _, err := Open(ledger, resolved, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(ledger, "C-005", "select", "Keep", "r.md#C-005"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "notarray.json"), []byte(`{"role": "alternative"}`))
	writeFile(t, filepath.Join(root, "badelem.json"), []byte(`[`+optionJSON(t, ex.Options[1])+`, {"role": "alternative", "answr": "x"}]`))
	writeFile(t, filepath.Join(root, "truncated.json"), []byte(`[{"role": "alt`))
	changed := ex.Options[0]
	changed.Rationale = "another reason"
	badReach := ex.Options[1]
	badReach.Reach = "repo"
	before := readFile(t, ledger)
	dir := listDir(t, filepath.Dir(ledger))
	base := OptionOptions{ProjectRoot: root, Ledger: seedLedger, ClarificationID: "C-003"}
	cases := []struct {
		name string
		edit func(o *OptionOptions)
		want string
	}{
		{"no option", func(o *OptionOptions) {}, "--option: is required; give each option as --option <json>, or a JSON array of them in --options-file"},
		{"no id", func(o *OptionOptions) { o.ClarificationID = ""; o.Options = []string{optionJSON(t, ex.Options[1])} }, "--clarification-id: is required"},
		{"bad id", func(o *OptionOptions) { o.ClarificationID = "003"; o.Options = []string{optionJSON(t, ex.Options[1])} }, `--clarification-id: "003" is not a clarification id`},
		{"unknown row", func(o *OptionOptions) {
			o.ClarificationID = "C-009"
			o.Options = []string{optionJSON(t, ex.Options[1])}
		}, "--clarification-id: C-009 is not a row of this ledger; open it first"},
		{"resolved row", func(o *OptionOptions) {
			o.ClarificationID = "C-005"
			o.Options = []string{optionJSON(t, ex.Options[1])}
		}, "--clarification-id: C-005 is resolved; only an open row takes options"},
		{"bad json", func(o *OptionOptions) { o.Options = []string{`{"role":`} }, "--option 1: is not an option object"},
		{"bad reach", func(o *OptionOptions) { o.Options = []string{optionJSON(t, badReach)} }, `option 1.reach: is "repo"; expected exactly one of in-repo or cross-repo`},
		{"same answer, other content", func(o *OptionOptions) { o.Options = []string{optionJSON(t, changed)} }, `option 1: offers "Keep the legacy order", which C-003 options[0] already offers differently; give each answer once, or --replace with the full list`},
		{"twice in a replace", func(o *OptionOptions) {
			o.Replace = true
			o.Options = []string{optionJSON(t, ex.Options[0]), optionJSON(t, changed)}
		}, `option 2: offers "Keep the legacy order" twice`},
		{"options file not an array", func(o *OptionOptions) { o.OptionsFile = "notarray.json" }, "notarray.json: is not a JSON array of options"},
		{"options file element", func(o *OptionOptions) { o.OptionsFile = "badelem.json" }, `badelem.json: [1]: is not an option object (json: unknown field "answr")`},
		{"options file truncated", func(o *OptionOptions) { o.OptionsFile = "truncated.json" }, "truncated.json: is not a JSON array of options"},
		{"options file missing", func(o *OptionOptions) { o.OptionsFile = "none.json" }, "--options-file: cannot read none.json (no such file or directory)"},
		{"options file outside", func(o *OptionOptions) { o.OptionsFile = "../x.json" }, "--options-file: path \"../x.json\" is outside the project root"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := base
			c.edit(&o)
			mustErr(t, RunOption(o, &out), c.want)
			unchanged(t, ledger, before, dir)
		})
	}
}

// A row opened with two recommended options is incomplete; --replace puts
// a right list in place.
func TestReplaceFixesTwoRecommendedOptions(t *testing.T) {
	root, _, _ := project(t)
	ledger := filepath.Join(root, seedLedger)
	ex := exampleRow()
	two := ex.Options[1]
	two.Role = RoleRecommended
	o := seedOpen(root, "C-003")
	o.Options = []string{optionJSON(t, ex.Options[0]), optionJSON(t, two)}
	var out bytes.Buffer
	if err := RunOpen(o, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "incomplete: C-003 options: mark 2 options recommended (options[0], options[1]); exactly one may be") {
		t.Fatalf("open printed %q", out.String())
	}
	out.Reset()
	if err := RunOption(OptionOptions{ProjectRoot: root, Ledger: seedLedger, ClarificationID: "C-003", Replace: true,
		Options: []string{optionJSON(t, ex.Options[0]), optionJSON(t, ex.Options[1])}}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "offers 2 option(s); it is complete\n") {
		t.Fatalf("option --replace printed %q", out.String())
	}
	l, err := Read(ledger)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateRow(*l.Row("C-003")); err != nil {
		t.Fatalf("replaced row: %v", err)
	}
}

// Adding options keeps what other tools wrote in the options already there.
func TestAddOptionsKeepsForeignMembersOfExistingOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	doc := strings.Replace(foreignLedger, `{"role": "alternative", "answer": "Sort", "rationale": "r", "reach": "cross-repo", "scopeEffects": ["deferrable"], "addedWork": "Importers.", "directionChange": "P-Step-004.", "disposition": "select"}`, `{"role": "alternative", "answer": "Sort", "rationale": "r", "reach": "cross-repo", "scopeEffects": ["deferrable"], "addedWork": "Importers.", "directionChange": "P-Step-004.", "disposition": "select", "x-second": 2}`, 1)
	writeFile(t, path, []byte(doc))
	third := Option{Role: RoleAlternative, Answer: "Drop CSV", Rationale: "JSON covers it.", Reach: "cross-repo", AddedWork: "Migrate importers.", DirectionChange: "Reverses the CSV export.", Disposition: "select"}
	r, err := AddOptions(path, "C-003", []Option{third}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Options) != 3 || r.Options[2].Answer != "Drop CSV" || r.Options[2].ScopeEffects == nil {
		t.Fatalf("row: %+v", r.Options)
	}
	data := string(readFile(t, path))
	for _, k := range []string{`"x-opt": true`, `"x-second": 2`, `"x-row-audit"`, `"x-tail": "last"`, `"answer": "Drop CSV"`} {
		if !strings.Contains(data, k) {
			t.Fatalf("%s lost:\n%s", k, data)
		}
	}
}

// An answered row of an earlier run carries even when it was incomplete:
// the user's answer stands.
func TestIncompleteRowStillCarries(t *testing.T) {
	root, responses, ledger := earlierRun(t)
	src := filepath.Join(root, ".okstra", "tasks", "dev-10860", "runs", "feature-analysis", "state", "approval-decisions-feature-analysis-001.json")
	var l map[string]any
	if err := json.Unmarshal(readFile(t, src), &l); err != nil {
		t.Fatal(err)
	}
	for _, r := range l["rows"].([]any) {
		r.(map[string]any)["options"] = []any{}
	}
	data, _ := json.MarshalIndent(l, "", "  ")
	writeFile(t, src, data)
	var out bytes.Buffer
	if err := RunCarry(CarryOptions{ProjectRoot: root, Ledger: rel(t, root, ledger), FromResponses: rel(t, root, responses), IDs: []string{"C-003"}}, &out); err != nil {
		t.Fatalf("carry of an incomplete answered row: %v", err)
	}
	if statusOf(t, ledger, "C-003") != StatusAnswered {
		t.Fatal("not carried")
	}
}

func TestOpenTakesAnOptionsFile(t *testing.T) {
	root, _, _ := project(t)
	ledger := filepath.Join(root, seedLedger)
	ex := exampleRow()
	writeFile(t, filepath.Join(root, "opts.json"), []byte("[\n"+optionJSON(t, ex.Options[1])+"\n]\n"))
	o := seedOpen(root, "C-003")
	o.Options = []string{optionJSON(t, ex.Options[0])} // --option first, then the file's
	o.OptionsFile = "opts.json"
	var out bytes.Buffer
	if err := RunOpen(o, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "opened C-003 in "+ledger+"\n" {
		t.Fatalf("open printed %q", out.String())
	}
	l, err := Read(ledger)
	if err != nil {
		t.Fatal(err)
	}
	if r := l.Row("C-003"); r == nil || ValidateRow(*r) != nil || r.Options[0].Role != RoleRecommended || r.Options[1].Answer != ex.Options[1].Answer {
		t.Fatalf("row: %+v", r)
	}
	// A bad options file writes nothing.
	before := readFile(t, ledger)
	writeFile(t, filepath.Join(root, "bad.json"), []byte(`[{"role": "alternative", "answer": 3}]`))
	o = seedOpen(root, "C-004")
	o.OptionsFile = "bad.json"
	mustErr(t, RunOpen(o, &out), "bad.json: [0]: is not an option object (json: cannot unmarshal number into Go struct field Option.answer of type string)")
	unchanged(t, ledger, before, nil)
}

// Options added to one row from many goroutines at once all arrive, once
// each: AddOptions is a locked read-modify-write like open.
func TestConcurrentAddOptionsLoseNothing(t *testing.T) {
	root, _, _ := project(t)
	ledger := filepath.Join(root, seedLedger)
	var out bytes.Buffer
	if err := RunOpen(seedOpen(root, "C-003"), &out); err != nil {
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
