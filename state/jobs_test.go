package state_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/okstra/cockpit/internal/filetest"
	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/state"
)

// Issue 18.1: okstra's jobs files and run manifests carry no rosterRole;
// the roster is team-state's workers[]. LoadJobs accepts such a file, and
// RosterFor takes each job's roster role from team-state, matched by
// provider and the role's function (a report writer, the lead, a generic
// worker), then model; a rosterRole in the job or its role execution is a
// hint that wins, a v1 workerId still names one, and a run with no roster
// gets okstra's roster-table names.
func TestRosterRoleComesFromTeamStateWorkers(t *testing.T) {
	root := fixture.Copy(t)
	run, err := state.LoadRun(root, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := state.ReadTeamState(run.TeamStatePath, fixture.TeamState)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		fixture.JobsInitial:      "Codex worker|Antigravity worker|Claude worker",
		fixture.JobsReverify:     "Codex worker",
		fixture.JobsReportWriter: "Report writer worker",
	}
	for jf, roles := range want {
		_, jobs, err := state.LoadJobs(run, jf, "")
		if err != nil {
			t.Fatalf("%s without rosterRole was refused: %v", jf, err)
		}
		var got []string
		for _, j := range jobs {
			r, err := state.RosterFor(run.Manifest, ts, j.Job)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		}
		if strings.Join(got, "|") != roles {
			t.Errorf("%s: roster roles %q, want %q", jf, strings.Join(got, "|"), roles)
		}
	}
	_, jobs, _ := state.LoadJobs(run, fixture.JobsInitial, "")
	// A renamed roster entry is what the job records under.
	ts.Workers[0].Role = "Codex reviewer worker"
	if r, _ := state.RosterFor(run.Manifest, ts, jobs[0].Job); r != "Codex reviewer worker" {
		t.Errorf("renamed roster entry: %q", r)
	}
	// Hints win: the job's, then its role execution's.
	hinted := jobs[0].Job
	hinted.RosterRole = "Codex hint"
	if r, _ := state.RosterFor(run.Manifest, ts, hinted); r != "Codex hint" {
		t.Errorf("job hint: %q", r)
	}
	run.Manifest.RoleExecution(jobs[0].RoleExecutionRef).RosterRole = "Manifest hint"
	if r, _ := state.RosterFor(run.Manifest, ts, jobs[0].Job); r != "Manifest hint" {
		t.Errorf("role execution hint: %q", r)
	}
	run.Manifest.RoleExecution(jobs[0].RoleExecutionRef).RosterRole = ""
	// No roster at all: okstra's roster-table names.
	for _, c := range []struct{ provider, role, want string }{
		{"codex", "analyser", "Codex worker"}, {"claude", "report-writer", "Report writer worker"},
		{"claude", "leader", "Lead role"}, {"antigravity", "verifier", "Antigravity worker"},
	} {
		if r, _ := state.RosterFor(run.Manifest, &state.TeamState{}, state.Job{Provider: c.provider, Role: c.role}); r != c.want {
			t.Errorf("no roster, %s %s: %q, want %q", c.provider, c.role, r, c.want)
		}
	}
	// A v1 worker id.
	if r, _ := state.RosterFor(run.Manifest, &state.TeamState{}, state.Job{Provider: "codex", WorkerID: "codex-worker"}); r != "Codex worker" {
		t.Errorf("v1 workerId: %q", r)
	}
	// Two generic claude workers on one model: the job must say which.
	two := &state.TeamState{Workers: []state.Worker{{Role: "Claude worker", Provider: "claude", Model: "sonnet"}, {Role: "Claude second worker", Provider: "claude", Model: "sonnet"}}}
	_, err = state.RosterFor(run.Manifest, two, jobs[2].Job)
	wantErr := `team-state's roster has "Claude worker" and "Claude second worker" for provider claude and role analyser; add rosterRole to the job to say which`
	if err == nil || err.Error() != wantErr {
		t.Fatalf("ambiguous roster: %v\nwant %s", err, wantErr)
	}
}

// Issue 20: LoadJobs validates the jobs file with its schema
// (assets/schemas, santhosh-tekuri/jsonschema): every file it refuses for
// its shape, the schema as shipped refuses too (compiled here against the
// metaschema), and the refusal is one line naming the file, the JSON path
// of the first place that fails (the file's members before its jobs', jobs
// by index) and the fix.
func TestJobsShapeChecksAgreeWithTheSchema(t *testing.T) {
	schema := compileSchema(t, "jobs.schema.json")
	for _, c := range []struct{ doc, want string }{
		{`{"jobs": [{}]}`, "jobs.json: dispatchKind: is missing; expected initial, reverify-r<N>, critic, report-writer or translator"},
		{`{"dispatchKind": "reverify", "jobs": [{}]}`, `jobs.json: dispatchKind: unknown dispatch kind "reverify" (known: initial, reverify-r<N>, critic, report-writer, translator)`},
		{`{"dispatchKind": "initial", "jobs": []}`, "jobs.json: jobs: is empty; a jobs file needs at least one job"},
		{`{"dispatchKind": "initial", "jobs": {}}`, "jobs.json: jobs: is a JSON object; expected an array"},
		{`{"dispatchKind": "initial", "jobs": [{"provider": "codex", "modelExecutionValue": "m", "promptPath": "p", "resultPath": "r"}, {"modelExecutionValue": "m", "promptPath": "p", "resultPath": "r"}]}`, "jobs.json: jobs[1].provider: is missing"},
		{`{"dispatchKind": "initial", "jobs": [{"provider": "codex", "modelExecutionValue": "m", "promptPath": "p", "resultPath": "r", "idleTimeoutSeconds": -5}]}`, "jobs.json: jobs[0].idleTimeoutSeconds: is negative"},
		{`{"executionIdentityVersion": 2, "dispatchKind": "initial", "jobs": [{"provider": "codex", "modelExecutionValue": "m", "promptPath": "p", "resultPath": "r"}]}`, "jobs.json: jobs[0].invocationRef: is missing (required by executionIdentityVersion 2)"},
		{`{"dispatchKind": "initial", "jobs": [{"provider": "codex", "modelExecutionValue": "m", "promptPath": "p", "resultPath": "r", "promptDigest": "md5:1"}]}`, `jobs.json: jobs[0].promptDigest: is "md5:1"; expected sha256: and 64 lowercase hex digits (or no digest)`},
		{`{"executionIdentityVersion": 3, "dispatchKind": "initial", "jobs": [{}]}`, "jobs.json: executionIdentityVersion: is 3; expected 1 or 2 (regenerate the file with `okstra agent-prompt jobs`)"},
		{`{"dispatchKind": "initial", "jobs": [{"provider": "", "modelExecutionValue": "m", "promptPath": "p", "resultPath": "r"}]}`, "jobs.json: jobs[0].provider: is empty"},
		{`{"dispatchKind": "initial", "jobs": [{"provider": "codex", "modelExecutionValue": "m", "promptPath": "p", "resultPath": "r", "idleTimeoutSeconds": "900"}]}`, "jobs.json: jobs[0].idleTimeoutSeconds: is a JSON string; expected a number"},
		{`{"dispatchKind": "nope", "jobs": [{}, {"provider": 1}]}`, `jobs.json: dispatchKind: unknown dispatch kind "nope" (known: initial, reverify-r<N>, critic, report-writer, translator)`},
		{`{"dispatchKind": "initial", "jobs": [{"provider": "codex", "modelExecutionValue": "m", "promptPath": "p", "resultPath": "r"}, {}, {"provider": 1}]}`, "jobs.json: jobs[1].provider: is missing"},
		{`[]`, "jobs.json: (top level): is a JSON array; expected an object"},
	} {
		root := fixture.Copy(t)
		run, err := state.LoadRun(root, fixture.RunManifest)
		if err != nil {
			t.Fatal(err)
		}
		filetest.Write(t, filepath.Join(root, "jobs.json"), []byte(c.doc))
		_, _, err = state.LoadJobs(run, "jobs.json", "")
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got  %v\n want %s", c.doc, err, c.want)
		}
		v, jerr := jsonschema.UnmarshalJSON(strings.NewReader(c.doc))
		if jerr != nil || schema.Validate(v) == nil {
			t.Errorf("%s: the schema accepts what LoadJobs refuses (%v)", c.doc, jerr)
		}
	}
}
