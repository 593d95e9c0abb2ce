package state

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const pythonTeamState = `{
  "teamName": "okstra-dev-10860-feature-analysis-002",
  "lead": {"sessionId": "5f0c2d1e"},
  "teamCreate": {"attempted": false, "status": "implicit"},
  "workers": [
    {"role": "Codex worker", "workerId": "codex", "provider": "codex", "model": "gpt-6.1-sol", "x-w": 1}
  ],
  "workerDispatches": [
    {"dispatchId": "dispatch-001", "x-audit": {"by": "okstra"}, "status": "in-progress", "reason": "", "paneId": "pane-3"},
    {"dispatchId": "dispatch-002", "status": "in-progress", "reason": "", "x-tail": [1, "two"]}
  ],
  "x-end": "kept"
}
`

func writeTS(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "team-state.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestUpdateTeamStateKeepsForeignMembers(t *testing.T) {
	p := writeTS(t, pythonTeamState)
	err := UpdateTeamState(p, "team-state.json", "x", func(ts *TeamState) error {
		ts.WorkerDispatches[1].Status = "completed"
		ts.WorkerDispatches = append(ts.WorkerDispatches, Dispatch{DispatchID: "dispatch-003", Status: "in-progress"})
		ts.AddWorker(Worker{Role: "Antigravity worker", WorkerID: "antigravity"})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	s := string(data)
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	// The untouched dispatch is byte for byte what the other writer wrote.
	if !strings.Contains(s, `{"dispatchId": "dispatch-001", "x-audit": {"by": "okstra"}, "status": "in-progress", "reason": "", "paneId": "pane-3"}`) {
		t.Fatalf("untouched dispatch was rewritten:\n%s", s)
	}
	ds := doc["workerDispatches"].([]any)
	d2 := ds[1].(map[string]any)
	if d2["status"] != "completed" || d2["x-tail"] == nil {
		t.Fatalf("changed dispatch lost its update or its foreign member: %v", d2)
	}
	if strings.Index(s, `"x-tail"`) < strings.Index(s, `"completed"`) {
		t.Fatalf("x-tail moved before status:\n%s", s)
	}
	if len(ds) != 3 || doc["x-end"] != "kept" || doc["lead"] == nil {
		t.Fatalf("members lost: %s", s)
	}
	for _, k := range []string{`"teamName"`, `"lead"`, `"teamCreate"`, `"workers"`, `"workerDispatches"`, `"x-end"`} {
		if !strings.Contains(s, k) {
			t.Fatalf("missing %s", k)
		}
	}
	if strings.Index(s, `"lead"`) > strings.Index(s, `"teamCreate"`) || strings.Index(s, `"x-end"`) < strings.Index(s, `"workerDispatches"`) {
		t.Fatalf("top-level order changed:\n%s", s)
	}
	ws := doc["workers"].([]any)
	if len(ws) != 2 || ws[0].(map[string]any)["x-w"] != 1.0 {
		t.Fatalf("workers: %v", ws)
	}
	// A second writer that changes nothing writes nothing.
	st1, _ := os.Stat(p)
	if err := UpdateTeamState(p, "team-state.json", "x", func(*TeamState) error { return nil }); err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(p)
	if !os.SameFile(st1, st2) {
		t.Fatal("a no-op update replaced the file")
	}
}

func TestUpdateTeamStateRefusesBadFilesUnchanged(t *testing.T) {
	cases := map[string]struct{ body, want string }{
		"malformed":       {`{"teamName": "x",`, "truncated"},
		"syntax":          {`{"teamName": "x" "workers": []}`, "malformed JSON at line 1"},
		"dispatches type": {`{"workerDispatches": {}}`, "workerDispatches: is an object; expected an array"},
		"status type":     {`{"workerDispatches": [{"dispatchId": "d", "status": 3}]}`, "workerDispatches[0].status: is a number; expected a string"},
		"duplicate id":    {`{"workerDispatches": [{"dispatchId": "d"}, {"dispatchId": "d"}]}`, `workerDispatches[1].dispatchId: "d" appears twice`},
		"teamName type":   {`{"teamName": 5}`, "teamName"},
		"not object":      {`[1,2]`, "not a JSON object"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			p := writeTS(t, c.body)
			err := UpdateTeamState(p, "team-state.json", "x", func(ts *TeamState) error {
				ts.TeamName = "changed"
				return nil
			})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "team-state.json") {
				t.Fatalf("error %v, want one naming the file and %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			got, _ := os.ReadFile(p)
			if string(got) != c.body {
				t.Fatalf("file changed: %s", got)
			}
		})
	}
}

func TestUpdateTeamStateDuplicateFromFnIsRefused(t *testing.T) {
	p := writeTS(t, pythonTeamState)
	err := UpdateTeamState(p, "team-state.json", "x", func(ts *TeamState) error {
		ts.WorkerDispatches = append(ts.WorkerDispatches, Dispatch{DispatchID: "dispatch-001"})
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "appears twice") {
		t.Fatalf("want duplicate error, got %v", err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != pythonTeamState {
		t.Fatal("file changed")
	}
}

func TestTeamStateNewFileAndCompactInput(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ts.json")
	if err := UpdateTeamState(p, "ts.json", "team-a", func(ts *TeamState) error {
		ts.TeamCreate = &TeamCreate{Status: "implicit"}
		ts.WorkerDispatches = append(ts.WorkerDispatches, Dispatch{DispatchID: ts.NextDispatchID(), Status: StatusInProgress})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ts, err := ReadTeamState(p, "ts.json")
	if err != nil {
		t.Fatal(err)
	}
	if ts.TeamName != "team-a" || ts.TeamCreate.Status != "implicit" || ts.WorkerDispatches[0].DispatchID != "dispatch-001" {
		t.Fatalf("%+v", ts)
	}
	// Compact input, as another tool may write it.
	p2 := writeTS(t, `{"teamName":"c","workerDispatches":[{"dispatchId":"a","status":"x","reason":""},{"dispatchId":"b","status":"y","reason":"","z":1}]}`)
	if err := UpdateTeamState(p2, "ts.json", "c", func(ts *TeamState) error {
		ts.WorkerDispatches[0].Status = "completed"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ts2, err := ReadTeamState(p2, "ts.json")
	if err != nil {
		t.Fatal(err)
	}
	if ts2.WorkerDispatches[0].Status != "completed" || ts2.WorkerDispatches[1].Status != "y" {
		t.Fatalf("%+v", ts2.WorkerDispatches)
	}
	data, _ := os.ReadFile(p2)
	if !strings.Contains(string(data), `{"dispatchId":"b","status":"y","reason":"","z":1}`) {
		t.Fatalf("untouched compact element rewritten:\n%s", data)
	}
}

// A dispatch records its idle limit and the limit's source; a limit of 0
// (no limit) from a known source is written, and replaces an earlier limit
// on a rewrite.
func TestDispatchRecordsItsIdleLimit(t *testing.T) {
	p := writeTS(t, `{"workerDispatches": [{"dispatchId": "dispatch-001", "status": "in-progress", "reason": "", "idleTimeoutSeconds": 1800, "idleTimeoutSource": "catalog", "x-keep": 1}]}`)
	err := UpdateTeamState(p, "team-state.json", "x", func(ts *TeamState) error {
		ts.WorkerDispatches[0].IdleTimeoutSeconds = 0
		ts.WorkerDispatches[0].IdleTimeoutSource = "providers.json"
		ts.WorkerDispatches = append(ts.WorkerDispatches,
			Dispatch{DispatchID: "dispatch-002", Status: "in-progress", IdleTimeoutSeconds: 2400, IdleTimeoutSource: "providers.json"},
			Dispatch{DispatchID: "dispatch-003", Status: "in-progress"})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	var doc struct {
		WorkerDispatches []map[string]any `json:"workerDispatches"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	d := doc.WorkerDispatches
	if v, ok := d[0]["idleTimeoutSeconds"]; !ok || v != 0.0 || d[0]["idleTimeoutSource"] != "providers.json" || d[0]["x-keep"] != 1.0 {
		t.Fatalf("dispatch-001: %v\n%s", d[0], data)
	}
	if d[1]["idleTimeoutSeconds"] != 2400.0 || d[1]["idleTimeoutSource"] != "providers.json" {
		t.Fatalf("dispatch-002: %v", d[1])
	}
	if _, ok := d[2]["idleTimeoutSeconds"]; ok {
		t.Fatalf("dispatch-003 without a source wrote a limit: %v", d[2])
	}
	ts, err := ReadTeamState(p, "team-state.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := ts.WorkerDispatches[0]; got.IdleTimeoutSeconds != 0 || got.IdleTimeoutSource != "providers.json" {
		t.Fatalf("read back: %+v", got)
	}
	b, _ := json.Marshal(Dispatch{DispatchID: "d", Status: "s", IdleTimeoutSource: "catalog", SettledAt: "t"})
	if want := `{"dispatchId":"d","status":"s","reason":"","idleTimeoutSeconds":0,"idleTimeoutSource":"catalog","settledAt":"t"}`; string(b) != want {
		t.Fatalf("marshal: %s\nwant     %s", b, want)
	}
}
