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

// editJSON rewrites a JSON file of the fixture copy through a generic map.
func editJSON(t *testing.T, path string, edit func(m map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func jobsOf(m map[string]any) []map[string]any {
	var out []map[string]any
	for _, j := range m["jobs"].([]any) {
		out = append(out, j.(map[string]any))
	}
	return out
}

func roleExecutionsOf(m map[string]any) []map[string]any {
	var out []map[string]any
	for _, r := range m["roleExecutions"].([]any) {
		out = append(out, r.(map[string]any))
	}
	return out
}

// A v2 job without rosterRole takes the roster role of its role execution
// in the run manifest; only a job whose role execution names none either is
// refused, in one line naming the file, the job and the field.
func TestJobRosterRoleComesFromTheRoleExecution(t *testing.T) {
	root := fixture.Copy(t)
	jobs := filepath.Join(root, fixture.JobsInitial)
	manifest := filepath.Join(root, fixture.RunManifest)
	want := map[string]string{}
	editJSON(t, jobs, func(m map[string]any) {
		for _, j := range jobsOf(m) {
			delete(j, "rosterRole")
			delete(j, "workerId")
		}
	})
	var mf state.RunManifest
	data, _ := os.ReadFile(manifest)
	if err := json.Unmarshal(data, &mf); err != nil {
		t.Fatal(err)
	}
	for _, re := range mf.RoleExecutions {
		want[re.RoleExecutionRef] = re.RosterRole
	}
	run, err := state.LoadRun(root, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	_, resolved, err := state.LoadJobs(run, fixture.JobsInitial, "")
	if err != nil {
		t.Fatalf("a v2 job without rosterRole was refused: %v", err)
	}
	for i, j := range resolved {
		if j.RosterRole == "" || j.RosterRole != want[j.RoleExecutionRef] || j.RosterRoleOf() != j.RosterRole {
			t.Fatalf("jobs[%d] (%s): roster role %q, want %q", i, j.RoleExecutionRef, j.RosterRole, want[j.RoleExecutionRef])
		}
	}

	// The job's own rosterRole still wins.
	editJSON(t, jobs, func(m map[string]any) { jobsOf(m)[0]["rosterRole"] = "Codex reviewer" })
	if _, resolved, err = state.LoadJobs(run, fixture.JobsInitial, ""); err != nil || resolved[0].RosterRole != "Codex reviewer" {
		t.Fatalf("job's own rosterRole: %v %q", err, resolved[0].RosterRole)
	}
	editJSON(t, jobs, func(m map[string]any) { delete(jobsOf(m)[0], "rosterRole") })

	// Neither the job nor its role execution has it: refused.
	ref := resolved[1].RoleExecutionRef
	editJSON(t, manifest, func(m map[string]any) {
		for _, re := range roleExecutionsOf(m) {
			if re["roleExecutionRef"] == ref {
				delete(re, "rosterRole")
			}
		}
	})
	run, err = state.LoadRun(root, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = state.LoadJobs(run, fixture.JobsInitial, "")
	wantErr := fixture.JobsInitial + ": jobs[1].rosterRole: is missing, and the run manifest " + fixture.RunManifest + ` names none for role execution "` + ref + `" either; add rosterRole to the job or to that role execution`
	if err == nil || err.Error() != wantErr {
		t.Fatalf("error %v\nwant  %s", err, wantErr)
	}
	// ... unless a v1-style workerId names it.
	editJSON(t, jobs, func(m map[string]any) { jobsOf(m)[1]["workerId"] = "antigravity" })
	if _, resolved, err = state.LoadJobs(run, fixture.JobsInitial, ""); err != nil || resolved[1].RosterRoleOf() != "Antigravity worker" {
		t.Fatalf("workerId fallback: %v", err)
	}
	// A role execution the manifest does not have.
	editJSON(t, jobs, func(m map[string]any) {
		delete(jobsOf(m)[1], "workerId")
		jobsOf(m)[1]["roleExecutionRef"] = "role-execution-099"
	})
	_, _, err = state.LoadJobs(run, fixture.JobsInitial, "")
	wantErr = fixture.JobsInitial + `: jobs[1].rosterRole: is missing, and roleExecutionRef "role-execution-099" names no role execution of the run manifest ` + fixture.RunManifest + " to take it from; add rosterRole to the job"
	if err == nil || err.Error() != wantErr || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %v\nwant  %s", err, wantErr)
	}
}
