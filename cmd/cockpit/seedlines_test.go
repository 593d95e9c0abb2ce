package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/state"
)

// Issue 9, part 2: the lead contract's own command lines, run as written,
// each checked for its exact output and exit status.

// The seed's `approval-decision open` line names no option: the row is
// recorded and reported incomplete (exit 0), and options added later make
// it complete.
func TestApprovalOpenTakesTheSeedLine(t *testing.T) {
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

// A v2 job without rosterRole records under its role execution's roster
// role; with neither, the batch is refused whole with one line, exit 1.
func TestDispatchTakesTheRosterRoleFromTheManifest(t *testing.T) {
	root := fixture.Copy(t)
	jobs := filepath.Join(root, fixture.JobsInitial)
	editJSON(t, jobs, func(doc map[string]any) {
		delete(doc["jobs"].([]any)[0].(map[string]any), "rosterRole")
	})
	r := cockpit(t, root, nil, runArgs(root, "worker-dispatch", "--jobs-file", fixture.JobsInitial)...)
	if r.code != 0 {
		t.Fatalf("worker-dispatch: exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "PROGRESS: phase-4-dispatch worker=Codex worker model=gpt-6.1-sol") {
		t.Fatalf("the job without rosterRole was not recorded as Codex worker:\n%s", r.stdout)
	}
	ts, err := state.ReadTeamState(filepath.Join(root, fixture.TeamState), fixture.TeamState)
	if err != nil {
		t.Fatal(err)
	}
	if d := ts.WorkerDispatches; len(d) == 0 || d[0].Role != "Codex worker" {
		t.Fatalf("dispatch role %+v; want Codex worker", d)
	}

	root = fixture.Copy(t)
	jobs = filepath.Join(root, fixture.JobsInitial)
	editJSON(t, jobs, func(doc map[string]any) {
		delete(doc["jobs"].([]any)[0].(map[string]any), "rosterRole")
	})
	editJSON(t, filepath.Join(root, fixture.RunManifest), func(doc map[string]any) {
		for _, re := range doc["roleExecutions"].([]any) {
			if m := re.(map[string]any); m["roleExecutionRef"] == "role-execution-002" {
				delete(m, "rosterRole")
			}
		}
	})
	before := snapshotFiles(t, root)
	r = cockpit(t, root, nil, runArgs(root, "worker-dispatch", "--jobs-file", fixture.JobsInitial)...)
	wantErr := "cockpit worker-dispatch: " + fixture.JobsInitial + ": jobs[0].rosterRole: is missing, and the run manifest " +
		fixture.RunManifest + ` names none for role execution "role-execution-002" either; add rosterRole to the job or to that role execution` + "\n"
	if r.code != 1 || r.stderr != wantErr || r.stdout != "" {
		t.Fatalf("exit %d\nstderr %q\nwant   %q\nstdout %q", r.code, r.stderr, wantErr, r.stdout)
	}
	if d := diffSnapshots(before, snapshotFiles(t, root)); len(d) > 0 {
		t.Fatalf("a refused batch changed files: %v", d)
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
