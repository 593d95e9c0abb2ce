package state_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/okstra/cockpit/assets"
	"github.com/okstra/cockpit/state"
)

func compileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	data, err := assets.FS.ReadFile("schemas/" + name)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, what string, data []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := s.Validate(v); err != nil {
		t.Fatalf("%s does not match its schema: %v", what, err)
	}
}

// TestExamplesMatchSchemas checks the contract's example files, and files
// the cockpit writes, against the schemas it ships.
func TestExamplesMatchSchemas(t *testing.T) {
	for _, c := range []struct{ schema, example string }{
		{"run-manifest.schema.json", "run-manifest.json"},
		{"jobs.schema.json", "jobs-initial.json"},
		{"team-state.schema.json", "team-state.json"},
		{"status-sidecar.schema.json", "status-sidecar.json"},
	} {
		data, err := os.ReadFile(filepath.Join("testdata/examples", c.example))
		if err != nil {
			t.Fatal(err)
		}
		validate(t, compileSchema(t, c.schema), c.example, data)
	}
	ledger, _ := os.ReadFile("testdata/examples/lead-events.jsonl")
	s := compileSchema(t, "lead-event.schema.json")
	sc := bufio.NewScanner(bytes.NewReader(ledger))
	for sc.Scan() {
		validate(t, s, "lead-events.jsonl line", sc.Bytes())
	}
	np := compileSchema(t, "next-phase.schema.json")
	validate(t, np, "pointer", []byte(`{"phase":"implementation-planning","status":"ready","rationale":"r"}`))
	if v, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"phase":"x","status":"maybe","rationale":""}`)); np.Validate(v) == nil {
		t.Fatal("schema accepts an unknown pointer status")
	}
}

func TestWrittenFilesMatchSchemas(t *testing.T) {
	dir := t.TempDir()
	ts := filepath.Join(dir, "team-state.json")
	example, _ := os.ReadFile("testdata/examples/team-state.json")
	os.WriteFile(ts, example, 0o644)
	if err := state.UpdateTeamState(ts, "team-state.json", "x", func(s *state.TeamState) error {
		code := 1
		s.WorkerDispatches[1].Status, s.WorkerDispatches[1].ExitCode = "error", &code
		s.WorkerDispatches = append(s.WorkerDispatches, state.Dispatch{DispatchID: s.NextDispatchID(), Status: state.StatusInProgress, Backend: state.BackendCockpitPane})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(ts)
	validate(t, compileSchema(t, "team-state.schema.json"), "written team-state", data)

	sp := filepath.Join(dir, "p.md.status.json")
	zero := 0
	if err := state.WriteSidecar(sp, &state.Sidecar{Status: "completed", Wrapper: "cockpit worker exec", PID: 1, StartedAt: "2026-11-29T10:00:00Z", ExitCode: &zero, ServedModelAttestation: json.RawMessage(`{"level":"unknown"}`)}); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(sp)
	validate(t, compileSchema(t, "status-sidecar.schema.json"), "written sidecar", data)

	lp := filepath.Join(dir, "ledger.jsonl")
	ev, err := state.NewEvent("test", "phase-4-dispatch", "Codex worker", [][2]string{{"model", "gpt-6.1-sol"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := state.AppendEvents(lp, ev); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(lp)
	validate(t, compileSchema(t, "lead-event.schema.json"), "written ledger line", bytes.TrimSpace(data))
	if ev.ProgressLine != "PROGRESS: phase-4-dispatch worker=Codex worker model=gpt-6.1-sol" {
		t.Fatalf("progress line %q", ev.ProgressLine)
	}
}
