package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/okstra/cockpit/internal/fixture"
)

// TestBadInputs feeds the commands a lead can call broken files, flags and
// paths. Each must fail with one line on stderr naming what is wrong, a
// non-zero exit, and no file of the project changed.
func TestBadInputs(t *testing.T) {
	manifest := fixture.RunManifest
	jobs := fixture.JobsInitial
	type tc struct {
		name  string
		setup func(t *testing.T, root string)
		args  func(root string) []string
		want  string // a substring of the error line
	}
	run := func(args ...string) func(string) []string {
		return func(root string) []string { return runArgs(root, args...) }
	}
	writeFile := func(rel, body string) func(*testing.T, string) {
		return func(t *testing.T, root string) {
			if err := os.WriteFile(filepath.Join(root, rel), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	editManifest := func(fn func(map[string]any)) func(*testing.T, string) {
		return func(t *testing.T, root string) { editJSON(t, filepath.Join(root, manifest), fn) }
	}
	editJob := func(fn func(job map[string]any, doc map[string]any)) func(*testing.T, string) {
		return func(t *testing.T, root string) {
			editJSON(t, filepath.Join(root, jobs), func(doc map[string]any) {
				fn(doc["jobs"].([]any)[0].(map[string]any), doc)
			})
		}
	}
	dispatch := run("worker-dispatch", "--jobs-file", jobs)
	cases := []tc{
		{name: "no phase", args: run("lead-progress", "append"), want: "--phase is required"},
		{name: "unknown phase id", args: run("lead-progress", "append", "--phase", "phase-8-celebrate"), want: `unknown phase id "phase-8-celebrate"`},
		{name: "field without =", args: run("lead-progress", "append", "--phase", "phase-5-poll", "--field", "pending"), want: `--field "pending" must be NAME=VALUE`},
		{name: "worker not in the roster", args: run("lead-progress", "append", "--phase", "phase-4-dispatch", "--worker", "Claude verifier"), want: `"Claude verifier" is not a roster role`},
		{name: "unknown flag", args: run("lead-progress", "append", "--phase", "complete", "--colour"), want: "unknown flag: --colour"},
		{name: "no run manifest", args: func(root string) []string {
			return []string{"lead-progress", "append", "--phase", "complete", "--project-root", root}
		}, want: "--run-manifest is required"},
		{name: "missing run manifest", args: func(root string) []string {
			return []string{"lead-progress", "append", "--phase", "complete", "--project-root", root, "--run-manifest", "nope/run.json"}
		}, want: "nope/run.json: does not exist"},
		{name: "missing project root", args: func(root string) []string {
			return []string{"lead-progress", "append", "--phase", "complete", "--project-root", root + "/missing", "--run-manifest", manifest}
		}, want: "project root does not exist"},
		{name: "manifest outside the root", args: func(root string) []string {
			return []string{"lead-progress", "append", "--phase", "complete", "--project-root", root, "--run-manifest", "/etc/hostname"}
		}, want: "outside the project root"},
		{name: "malformed manifest", setup: writeFile(manifest, `{"teamStatePath": "x.json", "leadEventsPath" "y"}`), args: run("lead-progress", "append", "--phase", "complete"), want: "malformed JSON at line 1"},
		{name: "truncated manifest", setup: writeFile(manifest, `{"teamStatePath": "x.json", "leadEve`), args: run("lead-progress", "append", "--phase", "complete"), want: "is truncated"},
		{name: "empty manifest", setup: writeFile(manifest, ``), args: run("lead-progress", "append", "--phase", "complete"), want: "is empty"},
		{name: "manifest wrong type", setup: editManifest(func(m map[string]any) { m["terminalBackend"] = 5 }), args: run("lead-progress", "append", "--phase", "complete"), want: "terminalBackend: is a JSON number; expected a string"},
		{name: "unknown backend", setup: editManifest(func(m map[string]any) { m["terminalBackend"] = "screen" }), args: run("lead-progress", "append", "--phase", "complete"), want: `terminalBackend: is "screen"`},
		{name: "manifest without team-state", setup: editManifest(func(m map[string]any) { delete(m, "teamStatePath") }), args: run("lead-progress", "append", "--phase", "complete"), want: "teamStatePath: is missing"},
		{name: "ledger escapes the root", setup: editManifest(func(m map[string]any) { m["leadEventsPath"] = "../../outside.jsonl" }), args: run("lead-progress", "append", "--phase", "complete"), want: "leadEventsPath: path \"../../outside.jsonl\" is outside the project root"},
		{name: "no jobs file", args: run("worker-dispatch"), want: "--jobs-file: is required"},
		{name: "missing jobs file", args: run("worker-dispatch", "--jobs-file", "state/none.json"), want: "state/none.json: does not exist"},
		{name: "malformed jobs", setup: writeFile(jobs, `{"dispatchKind": "initial", "jobs": [}`), args: dispatch, want: "malformed JSON"},
		{name: "partial jobs", setup: writeFile(jobs, `{"dispatchKind": "initial", "jobs": [{"provider": "codex"`), args: dispatch, want: "is truncated"},
		{name: "jobs wrong type", setup: writeFile(jobs, `{"executionIdentityVersion": 2, "dispatchKind": "initial", "jobs": {}}`), args: dispatch, want: "jobs: is a JSON object; expected an array"},
		{name: "no jobs", setup: writeFile(jobs, `{"executionIdentityVersion": 2, "dispatchKind": "initial", "jobs": []}`), args: dispatch, want: "jobs: is empty"},
		{name: "unknown dispatch kind", setup: editJob(func(_, doc map[string]any) { doc["dispatchKind"] = "reverify" }), args: dispatch, want: `unknown dispatch kind "reverify"`},
		{name: "jobs mixing kinds", setup: editJob(func(j, _ map[string]any) { j["dispatchKind"] = "reverify-r1" }), args: dispatch, want: "one jobs file holds one dispatch kind"},
		{name: "dispatch-kind flag mismatch", args: run("worker-dispatch", "--jobs-file", jobs, "--dispatch-kind", "critic"), want: `is "initial" but --dispatch-kind is "critic"`},
		{name: "prompt escapes the root", setup: editJob(func(j, _ map[string]any) { j["promptPath"] = "../../../etc/passwd" }), args: dispatch, want: "outside the project root"},
		{name: "result outside the root", setup: editJob(func(j, _ map[string]any) { j["resultPath"] = "/tmp/result.md" }), args: dispatch, want: "jobs[0].resultPath: path \"/tmp/result.md\" is outside the project root"},
		{name: "prompt symlink out of the root", setup: func(t *testing.T, root string) {
			if err := os.Symlink("/etc", filepath.Join(root, fixture.RunDir, "prompts", "escape")); err != nil {
				t.Fatal(err)
			}
			editJob(func(j, _ map[string]any) { j["promptPath"] = fixture.RunDir + "/prompts/escape/hostname" })(t, root)
		}, args: dispatch, want: "leads outside the project root through a symlink"},
		{name: "missing prompt", setup: editJob(func(j, _ map[string]any) { j["promptPath"] = fixture.RunDir + "/prompts/none.md" }), args: dispatch, want: "none.md does not exist"},
		{name: "unknown provider", setup: editJob(func(j, _ map[string]any) { j["provider"] = "copilot" }), args: dispatch, want: "copilot"},
		{name: "unknown model", setup: editJob(func(j, _ map[string]any) { j["modelExecutionValue"] = "gpt-9" }), args: dispatch, want: "gpt-9"},
		{name: "v2 jobs on a v1 manifest", setup: editManifest(func(m map[string]any) { m["executionIdentityVersion"] = 1 }), args: dispatch, want: "executionIdentityVersion: is 2 but the run manifest"},
		{name: "identity mismatch", setup: editJob(func(j, _ map[string]any) { j["executionLabel"] = "Codex critic · gpt-6.1-sol" }), args: dispatch, want: "execution label"},
		{name: "missing metadata", setup: editJob(func(j, _ map[string]any) { j["metadataPath"] = fixture.RunDir + "/prompts/none.meta.json" }), args: dispatch, want: "none.meta.json does not exist"},
		{name: "same prompt twice", setup: func(t *testing.T, root string) {
			editJSON(t, filepath.Join(root, jobs), func(doc map[string]any) {
				js := doc["jobs"].([]any)
				js[1].(map[string]any)["promptPath"] = js[0].(map[string]any)["promptPath"]
			})
		}, args: dispatch, want: "is the same prompt as jobs[0]"},
		{name: "broken team-state", setup: writeFile(fixture.TeamState, `{"workerDispatches": [{"dispatchId": 7}]}`), args: dispatch, want: "workerDispatches[0].dispatchId: is a number; expected a string"},
		{name: "await on broken team-state", setup: writeFile(fixture.TeamState, `{"workerDispatches": "none"}`), args: run("team", "await"), want: "workerDispatches: is a string; expected an array"},
		{name: "unknown dispatch id", setup: writeFile(fixture.TeamState, `{"workerDispatches": []}`), args: run("worker-liveness", "--dispatch-id", "dispatch-042"), want: `--dispatch-id: "dispatch-042" is not a dispatch`},
		{name: "reclaim on cli-wrapper", args: run("team", "reclaim"), want: "holds no panes to reclaim"},
		{name: "await bad timeout", args: run("team", "await", "--timeout", "soon"), want: `invalid argument "soon"`},
		{name: "replay missing file", args: func(root string) []string { return []string{"replay", root + "/none.log"} }, want: "none.log"},
		{name: "replay bad size", args: func(root string) []string { return []string{"replay", "--size", "wide", root + "/none.log"} }, want: `--size "wide" must be COLSxROWS`},
		{name: "worker exec unknown provider", args: func(root string) []string {
			return []string{"worker", "exec", "copilot", root, "m", filepath.Join(root, fixture.CodexPrompt)}
		}, want: "copilot"},
		{name: "invocation metadata on a v1 run", setup: editManifest(func(m map[string]any) { m["executionIdentityVersion"] = 1 }), args: func(root string) []string {
			return []string{"worker", "exec", "codex", root, "gpt-6.1-sol", filepath.Join(root, fixture.CodexPrompt), "", "analyser", "", "--invocation-metadata", filepath.Join(root, fixture.RunDir, "prompts/codex-worker-feature-analysis-002.meta.json")}
		}, want: "v2"},
	}
	ledger := fixture.RunDir + "/state/approval-decisions.json"
	openRow := func(t *testing.T, root string) {
		r := cockpit(t, root, nil, "approval-decision", "open", "--project-root", root, "--ledger", ledger,
			"--task-key", "dev-10860", "--clarification-id", "C-007", "--ticket-id", "DEV-1", "--statement", "Which order?",
			"--expected-form", "one of the options", "--classification", "user-decision", "--origin", "worker-finding",
			"--user-confirmation", "yes", "--unblock-condition", "an answer", "--recommended-disposition", "select",
			"--option", `{"role":"recommended","answer":"A","rationale":"r","reach":"in-repo","scopeEffects":[],"addedWork":"w","directionChange":"none","disposition":"select"}`,
			"--option", `{"role":"alternative","answer":"B","rationale":"r","reach":"cross-repo","scopeEffects":[],"addedWork":"w","directionChange":"d","disposition":"select"}`)
		if r.code != 0 {
			t.Fatalf("approval-decision open: %s", r.stderr)
		}
	}
	// The seed's own open line: no options yet, so the row is incomplete.
	openBareRow := func(t *testing.T, root string) {
		r := cockpit(t, root, nil, "approval-decision", "open", "--project-root", root, "--ledger", ledger,
			"--task-key", "dev-10860", "--task-type", "feature-analysis", "--run-seq", "002", "--clarification-id", "C-008",
			"--ticket-id", "DEV-1", "--statement", "Which order?", "--expected-form", "one of the options",
			"--classification", "user-decision", "--origin", "worker-finding", "--user-confirmation", "yes",
			"--unblock-condition", "an answer", "--recommended-disposition", "select")
		if r.code != 0 {
			t.Fatalf("approval-decision open: %s", r.stderr)
		}
	}
	cases = append(cases,
		tc{name: "gate ask on an incomplete row", setup: openBareRow, args: run("gate", "ask", "--ledger", ledger, "--clarification-id", "C-008"), want: "C-008 is incomplete (has 0 option(s); a row needs at least 2: one recommended, the others alternative): there is nothing the user can choose yet"},
		tc{name: "gate ask without a cockpit", setup: openRow, args: run("gate", "ask", "--ledger", ledger, "--clarification-id", "C-007"), want: "no cockpit is serving this run"},
		tc{name: "gate ask on a missing row", setup: openRow, args: run("gate", "ask", "--ledger", ledger, "--clarification-id", "C-099"), want: "C-099 is not a row of the ledger"},
		tc{name: "gate ask without a ledger", args: run("gate", "ask", "--clarification-id", "C-001"), want: "approval-decisions-feature-analysis-002.json: does not exist; open a row first"},
		tc{name: "report authoring granted by the lead", setup: func(t *testing.T, root string) {
			os.MkdirAll(filepath.Join(root, fixture.RunDir, "reports"), 0o755)
			os.WriteFile(filepath.Join(root, fixture.RunDir, "reports/final-report-feature-analysis-002.md"), []byte("# report\n"), 0o644)
		}, args: func(root string) []string {
			return []string{"user-response", "write", "--project-root", root, "--report", fixture.RunDir + "/reports/final-report-feature-analysis-002.md", "--answers", "[]",
				"--report-authoring", `{"status":"approved","reason":"I say so"}`}
		}, want: "is the user's to grant"},
		// A row without a recommended option is recorded and reported
		// incomplete (issue 9); an option whose role is neither is refused.
		tc{name: "option with an unknown role", args: func(root string) []string {
			return []string{"approval-decision", "open", "--project-root", root, "--ledger", ledger, "--task-key", "dev-10860", "--clarification-id", "C-008",
				"--statement", "s", "--expected-form", "f", "--classification", "user-decision", "--origin", "worker-finding", "--user-confirmation", "u", "--unblock-condition", "c", "--recommended-disposition", "select",
				"--option", `{"role":"maybe","answer":"A","rationale":"r","reach":"in-repo","scopeEffects":[],"addedWork":"w","directionChange":"d","disposition":"select"}`,
				"--option", `{"role":"alternative","answer":"B","rationale":"r","reach":"in-repo","scopeEffects":[],"addedWork":"w","directionChange":"d","disposition":"select"}`}
		}, want: `"maybe"; expected recommended or alternative`},
	)
	if len(cases) < 25 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := fixture.Copy(t)
			if c.setup != nil {
				c.setup(t, root)
			}
			before := snapshotFiles(t, root)
			var env []string
			if c.name == "report authoring granted by the lead" {
				env = []string{"COCKPIT_SOCKET=/nonexistent/cockpit.sock"} // as in a lead pane
			}
			res := cockpit(t, root, env, c.args(root)...)
			if res.code == 0 {
				t.Fatalf("exit 0; stdout %q", res.stdout)
			}
			msg := strings.TrimRight(res.stderr, "\n")
			if msg == "" || strings.Contains(msg, "\n") {
				t.Fatalf("want one error line, got %q", res.stderr)
			}
			if !strings.HasPrefix(msg, "cockpit ") {
				t.Fatalf("error line does not name the command: %q", msg)
			}
			if !strings.Contains(msg, c.want) {
				t.Fatalf("error line %q does not say %q", msg, c.want)
			}
			t.Log(msg)
			if d := diffSnapshots(before, snapshotFiles(t, root)); len(d) > 0 {
				t.Fatalf("files changed: %v", d)
			}
		})
	}
}
