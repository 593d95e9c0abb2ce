package state_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/state"
)

// editFixtureJSON rewrites one JSON file of a fixture copy.
func editFixtureJSON(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	out, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

const codexMeta = fixture.RunDir + "/prompts/codex-worker-feature-analysis-002.meta.json"

// Issue 20: invocation metadata is validated with its schema
// (invocation-metadata.schema.json): one line naming the file, the JSON
// path and the fix; the wording of a v1 file stays "not v2 invocation
// metadata".
func TestInvocationMetadataIsValidatedWithItsSchema(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(map[string]any)
		want string
	}{
		{"v1", func(m map[string]any) { delete(m, "executionIdentityVersion") }, codexMeta + ": executionIdentityVersion: is missing: this is not v2 invocation metadata (executionIdentityVersion 2 with invocationRef and roleExecutionRef); a new worker dispatch requires v2 metadata: materialize the prompt again"},
		{"version 1", func(m map[string]any) { m["executionIdentityVersion"] = 1 }, codexMeta + ": executionIdentityVersion: is 1: this is not v2 invocation metadata (executionIdentityVersion 2 with invocationRef and roleExecutionRef); a new worker dispatch requires v2 metadata: materialize the prompt again"},
		{"no duty", func(m map[string]any) { delete(m, "dutyId") }, codexMeta + ": dutyId: is missing"},
		{"empty label", func(m map[string]any) { m["executionLabel"] = "" }, codexMeta + ": executionLabel: is empty"},
		{"no model", func(m map[string]any) { delete(m["modelAssignment"].(map[string]any), "modelExecutionValue") }, codexMeta + ": modelAssignment.modelExecutionValue: is missing; modelAssignment needs provider and modelExecutionValue"},
		{"prompt a string", func(m map[string]any) { m["prompt"] = "p.md" }, codexMeta + ": prompt: is a JSON string; expected an object"},
		{"bad digest", func(m map[string]any) { m["writePolicyDigest"] = "sha1:ab" }, codexMeta + `: writePolicyDigest: is "sha1:ab"; expected sha256: and 64 lowercase hex digits`},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := fixture.Copy(t)
			p := filepath.Join(root, codexMeta)
			editFixtureJSON(t, p, c.edit)
			_, err := state.ReadInvocationMetadata(p, codexMeta)
			if err == nil || err.Error() != c.want || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got  %v\nwant %s", err, c.want)
			}
		})
	}
}

// Issue 20: a dispatcher validates the run manifest with its schema before
// anything starts (LoadJobs); a command that only records (LoadRun alone)
// checks by hand the members it uses, so a v2 role execution without its
// binding is refused at dispatch and not at a checkpoint.
func TestDispatchValidatesTheRunManifestWithItsSchema(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(map[string]any)
		want string
	}{
		{"no binding", func(m map[string]any) {
			delete(m["roleExecutions"].([]any)[2].(map[string]any), "binding")
		}, "roleExecutions[2].binding: is missing; a binding needs runner and resolvedExecutionValue (required by executionIdentityVersion 2)"},
		{"no runner", func(m map[string]any) {
			delete(m["roleExecutions"].([]any)[1].(map[string]any)["binding"].(map[string]any), "runner")
		}, "roleExecutions[1].binding.runner: is missing; a binding needs runner and resolvedExecutionValue (required by executionIdentityVersion 2)"},
		{"no participant", func(m map[string]any) {
			delete(m["roleExecutions"].([]any)[3].(map[string]any), "participantRef")
		}, "roleExecutions[3].participantRef: is missing (required by executionIdentityVersion 2)"},
		{"no provider", func(m map[string]any) {
			delete(m["roleExecutions"].([]any)[0].(map[string]any), "provider")
		}, "roleExecutions[0].provider: is missing"},
		{"attempt zero", func(m map[string]any) {
			m["invocations"].([]any)[0].(map[string]any)["attempt"] = 0
		}, "invocations[0].attempt: is 0; expected at least 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := fixture.Copy(t)
			editFixtureJSON(t, filepath.Join(root, fixture.RunManifest), c.edit)
			run, err := state.LoadRun(root, fixture.RunManifest)
			if err != nil {
				t.Fatalf("LoadRun, for a command that records: %v", err)
			}
			_, _, err = state.LoadJobs(run, fixture.JobsInitial, "")
			if want := fixture.RunManifest + ": " + c.want; err == nil || err.Error() != want {
				t.Fatalf("got  %v\nwant %s", err, want)
			}
		})
	}
}
