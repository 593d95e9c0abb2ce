package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/okstra/cockpit/internal/fixture"
)

// Issue 9, part 2: the lead contract's own command lines, run as written,
// each checked for its exact output and exit status.

// The seed's `approval-decision open` line names no option: the row is
// recorded and reported incomplete (exit 0), and options added later make
// it complete.
func TestApprovalOpenTakesTheSeedLine(t *testing.T) {
	t.Parallel() // waits on cockpit processes of its own
	root := fixture.Copy(t)
	ledger := fixture.RunDir + "/state/approval-decisions.json"
	abs := filepath.Join(root, ledger)
	r := cockpit(t, root, nil, "approval-decision", "open", "--project-root", root, "--ledger", ledger,
		"--task-key", "dev-10860", "--task-type", "feature-analysis", "--run-seq", "002",
		"--clarification-id", "C-001", "--ticket-id", "DEV-1", "--statement", "Which order?",
		"--expected-form", "one of the options", "--classification", "user-decision", "--origin", "worker-finding",
		"--user-confirmation", "yes", "--unblock-condition", "an answer", "--recommended-disposition", "select")
	want := "opened C-001 in " + abs + "\n" +
		"incomplete: C-001 options: has 0 option(s); a row needs at least 2: one recommended, the others alternative" +
		" — add options with `approval-decision option --ledger " + abs + " --clarification-id C-001 --option <json>`\n"
	if r.code != 0 || r.stdout != want || r.stderr != "" {
		t.Fatalf("open: exit %d\nstdout %q\nwant   %q\nstderr %q", r.code, r.stdout, want, r.stderr)
	}
	data, err := os.ReadFile(abs)
	if err != nil || !strings.Contains(string(data), `"C-001"`) || !strings.Contains(string(data), `"options": []`) {
		t.Fatalf("the incomplete row is not in the ledger: %v\n%s", err, data)
	}
	for _, opt := range []string{
		`{"role":"recommended","answer":"A","rationale":"r","reach":"in-repo","scopeEffects":[],"addedWork":"w","directionChange":"none","disposition":"select"}`,
		`{"role":"alternative","answer":"B","rationale":"r","reach":"cross-repo","scopeEffects":[],"addedWork":"w","directionChange":"d","disposition":"select"}`,
	} {
		r = cockpit(t, root, nil, "approval-decision", "option", "--project-root", root, "--ledger", ledger, "--clarification-id", "C-001", "--option", opt)
		if r.code != 0 {
			t.Fatalf("option: exit %d: %s", r.code, r.stderr)
		}
	}
	if strings.Contains(r.stdout, "incomplete") {
		t.Fatalf("two options, one recommended, still reported incomplete: %q", r.stdout)
	}
}

// Issue 18.1: the fixture is shaped as okstra writes a run — no rosterRole
// in the jobs file or the run manifest, the roster only in team-state's
// workers[] — and worker-dispatch records every job under the roster role
// team-state names (exit 0). The early shape, rosterRole in the job or its
// role execution, still works and wins.
func TestDispatchTakesTheRosterRoleFromTeamState(t *testing.T) {
	t.Parallel() // waits on cockpit processes of its own
	root := fixture.Copy(t)
	data, _ := os.ReadFile(filepath.Join(root, fixture.JobsInitial))
	if strings.Contains(string(data), "rosterRole") {
		t.Fatal("the fixture's jobs file carries rosterRole; okstra's do not")
	}
	editJSON(t, filepath.Join(root, fixture.TeamState), func(doc map[string]any) {
		doc["workers"].([]any)[1].(map[string]any)["role"] = "Gemini worker"
	})
	r := cockpit(t, root, nil, runArgs(root, "worker-dispatch", "--jobs-file", fixture.JobsInitial)...)
	if r.code != 0 {
		t.Fatalf("worker-dispatch: exit %d: %s", r.code, r.stderr)
	}
	want := []string{
		"PROGRESS: phase-4-dispatch worker=Codex worker model=gpt-6.1-sol",
		"PROGRESS: phase-4-dispatch worker=Gemini worker model=gemini-3.1-pro",
		"PROGRESS: phase-4-dispatch worker=Claude worker model=sonnet",
	}
	if got := progressLines(r.stdout); len(got) < 4 || !slices.Equal(got[1:4], want) {
		t.Fatalf("progressLines:\n%s", strings.Join(got, "\n"))
	}
	ts := readTeamState(t, root)
	for i, w := range []string{"Codex worker", "Gemini worker", "Claude worker"} {
		if d := ts.WorkerDispatches[i]; d.Role != w {
			t.Errorf("%s recorded as %q, want %q", d.DispatchID, d.Role, w)
		}
	}
	if len(ts.Workers) != 4 {
		t.Errorf("the roster grew: %+v", ts.Workers)
	}

	// The early shape: a rosterRole hint in the job and in the manifest.
	root = fixture.Copy(t)
	editJSON(t, filepath.Join(root, fixture.JobsInitial), func(doc map[string]any) {
		doc["jobs"].([]any)[0].(map[string]any)["rosterRole"] = "Codex hint worker"
	})
	editJSON(t, filepath.Join(root, fixture.RunManifest), func(doc map[string]any) {
		for _, re := range doc["roleExecutions"].([]any) {
			if m := re.(map[string]any); m["roleExecutionRef"] == "role-execution-004" {
				m["rosterRole"] = "Claude hint worker"
			}
		}
	})
	fixture.Rehash(t, root)
	r = cockpit(t, root, nil, runArgs(root, "worker-dispatch", "--jobs-file", fixture.JobsInitial)...)
	if r.code != 0 {
		t.Fatalf("worker-dispatch (early shape): exit %d: %s", r.code, r.stderr)
	}
	ts = readTeamState(t, root)
	for i, w := range []string{"Codex hint worker", "Antigravity worker", "Claude hint worker"} {
		if d := ts.WorkerDispatches[i]; d.Role != w {
			t.Errorf("early shape: %s recorded as %q, want %q", d.DispatchID, d.Role, w)
		}
	}
}

// With --project-root ".", the user-response sidecar names its report
// project-relative, as with an absolute root.
func TestUserResponseSourceReportStaysRelative(t *testing.T) {
	root := fixture.Copy(t)
	report := fixture.RunDir + "/reports/final-report-feature-analysis-002.md"
	os.MkdirAll(filepath.Join(root, fixture.RunDir, "reports"), 0o755)
	if err := os.WriteFile(filepath.Join(root, report), []byte("# report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := cockpit(t, root, nil, "user-response", "write", "--project-root", ".", "--report", report, "--answers", "[]",
		"--plan-decision", `{"status":"approved","implementationOption":"A","reason":"fine"}`)
	if r.code != 0 {
		t.Fatalf("user-response write: exit %d: %s", r.code, r.stderr)
	}
	sidecar := filepath.Join(root, fixture.RunDir, "reports/user-responses/user-response-feature-analysis-002.md")
	data, err := os.ReadFile(sidecar)
	if err != nil {
		t.Fatal(err)
	}
	if want := "- Source Report: " + report + "\n"; !strings.Contains(string(data), want) {
		t.Fatalf("sidecar does not hold %q:\n%s", want, data)
	}
}
