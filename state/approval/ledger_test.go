package approval

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/okstra/cockpit/internal/filetest"
)

func TestValidateRowRules(t *testing.T) {
	if err := ValidateRow(exampleRow()); err != nil {
		t.Fatalf("the example row is refused: %v", err)
	}
	cases := []struct {
		name string
		edit func(r *Row)
		want string
	}{
		{"id without C-", func(r *Row) { r.ClarificationID = "003" }, `clarificationId: "003" is not a clarification id`},
		{"id with letters", func(r *Row) { r.ClarificationID = "C-00a" }, "is not a clarification id"},
		{"empty id", func(r *Row) { r.ClarificationID = "" }, "is not a clarification id"},
		{"blank statement", func(r *Row) { r.Statement = "  " }, "C-003 statement: is empty"},
		{"empty expected form", func(r *Row) { r.ExpectedForm = "" }, "C-003 expectedForm: is empty"},
		{"one option", func(r *Row) { r.Options = r.Options[:1] }, "C-003 options: has 1 option(s); a row needs at least 2"},
		{"no options", func(r *Row) { r.Options = nil }, "has 0 option(s)"},
		{"no recommended", func(r *Row) { r.Options[0].Role = "alternative" }, "mark no option recommended; exactly one must be recommended"},
		{"two recommended", func(r *Row) { r.Options[1].Role = "recommended" }, "mark 2 options recommended (options[0], options[1]); exactly one may be"},
		{"unknown role", func(r *Row) { r.Options[1].Role = "fallback" }, `options[1].role: is "fallback"; expected recommended or alternative`},
		{"reach", func(r *Row) { r.Options[1].Reach = "repo" }, `options[1].reach: is "repo"; expected exactly one of in-repo or cross-repo`},
		{"empty reach", func(r *Row) { r.Options[0].Reach = "" }, `options[0].reach: is ""`},
		{"scope effect", func(r *Row) { r.Options[1].ScopeEffects = []string{"deferrable", "breaking"} }, `options[1].scopeEffects[1]: is "breaking"; allowed: new-schema, deferrable`},
		{"scope effect twice", func(r *Row) { r.Options[1].ScopeEffects = []string{"new-schema", "new-schema"} }, `repeats "new-schema"`},
		{"disposition", func(r *Row) { r.Options[0].Disposition = "approve" }, `options[0].disposition: is "approve"; expected select, accept-risk, request-revision or reject`},
		{"empty answer", func(r *Row) { r.Options[0].Answer = "" }, "options[0].answer: is empty"},
		{"empty rationale", func(r *Row) { r.Options[1].Rationale = " " }, "options[1].rationale: is empty"},
		{"empty added work", func(r *Row) { r.Options[1].AddedWork = "" }, "options[1].addedWork: is empty"},
		{"empty direction change", func(r *Row) { r.Options[0].DirectionChange = "" }, "options[0].directionChange: is empty; give what this choice reverses, or say that it reverses nothing"},
		{"status", func(r *Row) { r.Status = "closed" }, `status: is "closed"; expected open, answered, resolved or obsolete`},
		{"recommended disposition", func(r *Row) { r.RecommendedDisposition = "pick" }, `recommendedDisposition: is "pick"`},
		{"supersedes itself", func(r *Row) { r.Supersedes = "C-003" }, "supersedes: names the row itself"},
		{"supersedes bad id", func(r *Row) { r.Supersedes = "3" }, `supersedes: "3" is not a clarification id`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := exampleRow()
			r.Options = append([]Option(nil), r.Options...)
			c.edit(&r)
			filetest.MustErr(t, ValidateRow(r), c.want)
		})
	}
	for _, d := range Dispositions {
		r := exampleRow()
		r.Options = append([]Option(nil), r.Options...)
		r.Options[1].Disposition = d
		if err := ValidateRow(r); err != nil {
			t.Fatalf("disposition %s refused: %v", d, err)
		}
	}
	for _, st := range Statuses {
		r := exampleRow()
		r.Status = st
		if err := ValidateRow(r); err != nil {
			t.Fatalf("status %s refused: %v", st, err)
		}
	}
}

func TestOpenCreatesTheExampleLedger(t *testing.T) {
	filetest.FixedClock(t, "2026-11-29T10:00:00Z")
	path := filepath.Join(t.TempDir(), "approval-decisions.json")
	row, err := openRow(path, "dev-10860", exampleRow(), "")
	if err != nil {
		t.Fatal(err)
	}
	if row.Status != StatusOpen || row.OpenedAt != "2026-11-29T10:00:00Z" {
		t.Fatalf("stored row: %+v", row)
	}
	// The file holds what the example holds, plus openedAt.
	var got, want map[string]any
	if err := json.Unmarshal(filetest.Read(t, path), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(filetest.Read(t, exampleLedger), &want); err != nil {
		t.Fatal(err)
	}
	gotRow := got["rows"].([]any)[0].(map[string]any)
	if gotRow["openedAt"] != "2026-11-29T10:00:00Z" {
		t.Fatalf("openedAt: %v", gotRow["openedAt"])
	}
	delete(gotRow, "openedAt")
	if !reflect.DeepEqual(got, want) {
		a, _ := json.MarshalIndent(got, "", "  ")
		b, _ := json.MarshalIndent(want, "", "  ")
		t.Fatalf("ledger differs from the example:\n%s\nwant\n%s", a, b)
	}
	l, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if l.TaskKey != "dev-10860" || l.SchemaVersion != "1.0" || len(l.Open()) != 1 {
		t.Fatalf("read back: %+v", l)
	}
}

func TestOpenRefusesADuplicateIDAndNamesTheNextFree(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	filetest.Write(t, path, filetest.Read(t, exampleLedger))
	before := filetest.Read(t, path)
	dir := filetest.ListDir(t, filepath.Dir(path))
	_, err := Open(path, exampleRow(), "")
	filetest.MustErr(t, err, path, "--clarification-id", "C-003 already exists (status open); use the next free id, C-004")
	filetest.Unchanged(t, path, before, dir)
}

func TestOpenRefusesALedgerOfAnotherTask(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	filetest.Write(t, path, filetest.Read(t, exampleLedger))
	before := filetest.Read(t, path)
	_, err := openRow(path, "dev-1", rowWithID("C-004"), "")
	filetest.MustErr(t, err, "--task-key", `is "dev-1" but the ledger belongs to task "dev-10860"`)
	filetest.Unchanged(t, path, before, nil)
}

// foreignLedger is the example ledger with members other tools wrote: at the
// top, in a row, and in an option.
const foreignLedger = `{
  "schemaVersion": "1.0",
  "x-writer": {"tool": "okstra", "version": "0.207.0"},
  "taskKey": "dev-10860",
  "rows": [
    {
      "clarificationId": "C-003",
      "x-row-audit": ["a", 1],
      "ticketId": "DEV-10860",
      "statement": "Should the export keep the legacy CSV column order?",
      "expectedForm": "one of the options",
      "classification": "user-decision",
      "origin": "worker-finding",
      "userConfirmation": "Confirmed.",
      "unblockCondition": "The user picks a column order.",
      "recommendedDisposition": "select",
      "status": "open",
      "supersedes": "",
      "options": [
        {"role": "recommended", "answer": "Keep", "rationale": "r", "reach": "in-repo", "scopeEffects": [], "addedWork": "None.", "directionChange": "Nothing.", "disposition": "select", "x-opt": true},
        {"role": "alternative", "answer": "Sort", "rationale": "r", "reach": "cross-repo", "scopeEffects": ["deferrable"], "addedWork": "Importers.", "directionChange": "P-Step-004.", "disposition": "select"}
      ],
      "resolutionHint": null
    }
  ],
  "x-tail": "last"
}
`

func TestRewritesKeepUnknownMembersInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	filetest.Write(t, path, []byte(foreignLedger))
	if _, err := Open(path, rowWithID("C-004"), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(path, "C-003", "select", "Keep", "user-responses/x.md#C-003"); err != nil {
		t.Fatal(err)
	}
	data := string(filetest.Read(t, path))
	order := []string{`"schemaVersion"`, `"x-writer"`, `"taskKey"`, `"rows"`, `"clarificationId": "C-003"`, `"x-row-audit"`, `"ticketId"`, `"status": "resolved"`, `"x-opt": true`, `"resolutionHint": null`, `"resolution"`, `"clarificationId": "C-004"`, `"x-tail": "last"`}
	last := -1
	for _, k := range order {
		i := strings.Index(data, k)
		if i < 0 || i < last {
			t.Fatalf("%s missing or out of place in\n%s", k, data)
		}
		last = i
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(data), &doc); err != nil {
		t.Fatal(err)
	}
	if w := doc["x-writer"].(map[string]any); w["version"] != "0.207.0" {
		t.Fatalf("x-writer changed: %v", w)
	}
}

func TestSupersededRowReadsObsoleteOnceTheNewRowIsResolved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.json")
	carried := exampleRow()
	carried.Status = StatusAnswered
	carried.Carried = true
	carried.Resolution = &Resolution{Disposition: "select", UserText: "Keep the legacy order", UserResponseRef: "old.md#C-003", ResolvedAt: "2026-11-01T00:00:00Z"}
	writeLedger(t, path, carried)

	repl := rowWithID("C-007")
	repl.Statement = "Keep the legacy order now that reports-etl reads by name?"
	if _, err := Open(path, repl, "C-003"); err != nil {
		t.Fatal(err)
	}
	// While the new row is open, the carried row still stands.
	if st := statusOf(t, path, "C-003"); st != StatusAnswered {
		t.Fatalf("C-003 reads %s while C-007 is open; want answered", st)
	}
	if st := storedStatus(t, path, "C-003"); st != StatusAnswered {
		t.Fatalf("C-003 stored as %s while C-007 is open", st)
	}
	r, err := Resolve(path, "C-007", "select", "Sort columns alphabetically", "user-responses/user-response-feature-analysis-002.md#C-007")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusResolved || r.Resolution == nil || r.Resolution.Disposition != "select" {
		t.Fatalf("resolved row: %+v", r)
	}
	// Written on resolve …
	if st := storedStatus(t, path, "C-003"); st != StatusObsolete {
		t.Fatalf("C-003 stored as %s after C-007 was resolved; want obsolete", st)
	}
	// … and read as such.
	l, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if c := l.Row("C-003"); c.Status != StatusObsolete || c.ObsoletedBy != "C-007" {
		t.Fatalf("C-003 reads %+v", c)
	}
	// An obsolete row cannot be resolved or superseded again.
	_, err = Resolve(path, "C-003", "select", "x", "y")
	filetest.MustErr(t, err, "C-003 is obsolete (superseded by C-007); resolve C-007 instead")
	_, err = Open(path, rowWithID("C-008"), "C-003")
	filetest.MustErr(t, err, "--supersedes", "C-003 is already superseded by C-007")
}

func TestObsoleteIsAlsoComputedOnRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	old := exampleRow()
	old.Status = StatusAnswered
	repl := rowWithID("C-007")
	repl.Supersedes = "C-003"
	repl.Status = StatusOpen
	writeLedger(t, path, old, repl)
	if st := statusOf(t, path, "C-003"); st != StatusAnswered {
		t.Fatalf("superseded by an open row: reads %s, want answered", st)
	}
	// Another tool resolved C-007 and left C-003 as it was.
	repl.Status = StatusResolved
	writeLedger(t, path, old, repl)
	if st := statusOf(t, path, "C-003"); st != StatusObsolete {
		t.Fatalf("superseded by a resolved row: reads %s, want obsolete", st)
	}
	rows, err := List(path, StatusObsolete)
	if err != nil || len(rows) != 1 || rows[0].ObsoletedBy != "C-007" {
		t.Fatalf("List(obsolete) = %+v, %v", rows, err)
	}
}

func TestSupersedesMustNameAnAnsweredRow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	open := rowWithID("C-001")
	open.Status = StatusOpen
	resolved := rowWithID("C-002")
	resolved.Status = StatusResolved
	writeLedger(t, path, open, resolved)
	before := filetest.Read(t, path)
	dir := filetest.ListDir(t, filepath.Dir(path))
	for _, c := range []struct{ target, want string }{
		{"C-009", "names C-009, which is not a row of this ledger; carry it first"},
		{"C-001", "C-001 is still open; only a carried or answered row can be superseded — resolve C-001 instead"},
		{"C-002", "C-002 is resolved; only a carried or answered row can be superseded"},
		{"C-010", "names C-010, which is not a row"},
	} {
		_, err := Open(path, rowWithID("C-010"), c.target)
		if c.target == "C-010" {
			filetest.MustErr(t, err, "supersedes: names the row itself")
		} else {
			filetest.MustErr(t, err, "--supersedes", c.want)
		}
		filetest.Unchanged(t, path, before, dir)
	}
	r := rowWithID("C-011")
	r.Supersedes = "C-001"
	_, err := Open(path, r, "C-002")
	filetest.MustErr(t, err, "--supersedes: is C-002 but the row says it supersedes C-001")
}

func TestResolveRules(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	carried := rowWithID("C-001")
	carried.Status = StatusAnswered
	carried.Carried = true
	writeLedger(t, path, carried, rowWithID("C-002"))
	before := filetest.Read(t, path)
	dir := filetest.ListDir(t, filepath.Dir(path))
	for _, c := range []struct {
		id, disp, text, ref string
		want                []string
	}{
		{"C-9x", "select", "t", "r", []string{"--clarification-id", "is not a clarification id"}},
		{"C-002", "approve", "t", "r", []string{"--disposition", `is "approve"; expected select, accept-risk, request-revision or reject`}},
		{"C-002", "select", " ", "r", []string{"--user-text: is empty"}},
		{"C-002", "select", "t", "", []string{"--user-response-ref: is empty"}},
		{"C-005", "select", "t", "r", []string{path, "C-005 is not a row of this ledger; open it first"}},
		{"C-001", "select", "t", "r", []string{"C-001 was answered in an earlier run; to replace that answer, open a new row with --supersedes C-001"}},
	} {
		_, err := Resolve(path, c.id, c.disp, c.text, c.ref)
		filetest.MustErr(t, err, c.want...)
		filetest.Unchanged(t, path, before, dir)
	}
	if _, err := Resolve(path, "C-002", "accept-risk", "Ship it", "s.md#C-002"); err != nil {
		t.Fatal(err)
	}
	after := filetest.Read(t, path)
	// The same resolve again is a no-op; another answer is refused.
	if _, err := Resolve(path, "C-002", "accept-risk", "Ship it", "s.md#C-002"); err != nil {
		t.Fatalf("repeating the same resolve: %v", err)
	}
	filetest.Unchanged(t, path, after, nil)
	_, err := Resolve(path, "C-002", "reject", "No", "s.md#C-002")
	filetest.MustErr(t, err, "C-002 is already resolved with another answer; to change it, open a new row with --supersedes C-002")
	filetest.Unchanged(t, path, after, nil)
}

func TestMalformedLedgerIsNamed(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"empty.json":     "",
		"broken.json":    `{"rows": [`,
		"array.json":     `[]`,
		"rows.json":      `{"rows": {}}`,
		"rowtype.json":   `{"rows": [{"clarificationId": 3}]}`,
		"taskkey.json":   `{"taskKey": 7, "rows": []}`,
		"trailing.json":  `{"rows": []} {}`,
		"rowscalar.json": `{"rows": [1]}`,
	} {
		p := filepath.Join(dir, name)
		filetest.Write(t, p, []byte(body))
		_, err := Read(p)
		filetest.MustErr(t, err, p)
		_, err = Open(p, rowWithID("C-001"), "")
		filetest.MustErr(t, err, p)
		filetest.Unchanged(t, p, []byte(body), nil)
	}
	_, err := Read(filepath.Join(dir, "missing.json"))
	filetest.MustErr(t, err, "missing.json: does not exist")
	_, err = Resolve(filepath.Join(dir, "missing.json"), "C-001", "select", "t", "r")
	filetest.MustErr(t, err, "does not exist")
	if _, err := os.Stat(filepath.Join(dir, "missing.json")); err == nil {
		t.Fatal("resolve created a ledger")
	}
}

func writeLedger(t *testing.T, path string, rows ...Row) {
	t.Helper()
	for i := range rows {
		rows[i].fillScopeEffects()
	}
	data, err := json.MarshalIndent(Ledger{SchemaVersion: "1.0", TaskKey: "dev-10860", Rows: rows}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	filetest.Write(t, path, append(data, '\n'))
}

func statusOf(t *testing.T, path, id string) string {
	t.Helper()
	l, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	r := l.Row(id)
	if r == nil {
		t.Fatalf("%s has no row %s", path, id)
	}
	return r.Status
}

func storedStatus(t *testing.T, path, id string) string {
	t.Helper()
	var l Ledger
	if err := json.Unmarshal(filetest.Read(t, path), &l); err != nil {
		t.Fatal(err)
	}
	for _, r := range l.Rows {
		if r.ClarificationID == id {
			return r.Status
		}
	}
	t.Fatalf("no row %s", id)
	return ""
}

// A member is found and set as encoding/json decodes it into a row: by its
// name exactly or else without case, every member of that name set in
// place; keys stay as written.
func TestObjectMembersMatchAsEncodingJSON(t *testing.T) {
	o, err := parseObject([]byte(`{"status": "open", "x-k\u0065y": 1, "Status": "open", "tail": true}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := o.set("status", StatusResolved); err != nil {
		t.Fatal(err)
	}
	if err := o.set("new", 2); err != nil {
		t.Fatal(err)
	}
	want := `{"status":"resolved","x-k\u0065y":1,"Status":"resolved","tail":true,"new":2}`
	if got := string(o.compact()); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	var r Row
	if err := json.Unmarshal(o.compact(), &r); err != nil || r.Status != StatusResolved {
		t.Fatalf("row reads %q (%v)", r.Status, err)
	}
	if v, ok := o.get("STATUS"); !ok || string(v) != `"resolved"` {
		t.Fatalf("get STATUS: %s %v", v, ok)
	}
	if v, ok := o.get("x-key"); !ok || string(v) != "1" {
		t.Fatalf("get x-key: %s %v", v, ok)
	}
}

// A ledger that is not JSON, or a row id that breaks the rules, keeps the
// error underneath the one-line text.
func TestLedgerErrorsKeepTheirCause(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.json")
	filetest.Write(t, p, []byte(`{"rows": [`))
	_, err := Read(p)
	var syn *json.SyntaxError
	if err == nil || !errors.As(err, &syn) {
		t.Fatalf("error %v does not wrap a *json.SyntaxError", err)
	}
	err = CheckRow(rowWithID("X-1"))
	var re *RuleError
	if !errors.As(err, &re) || re.Err == nil || errors.Unwrap(err) != re.Err {
		t.Fatalf("rule error %v keeps no cause", err)
	}
}
