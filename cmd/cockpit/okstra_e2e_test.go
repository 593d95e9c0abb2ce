package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/state"
)

// okstraLeadScript is the lead of TestOkstraLeadContractUnderTheCockpit.
// Every okstra line is copied from the seeds' lead contract (the
// placeholders <PROJECT_ROOT>, <RUN_MANIFEST_PATH>, <jobs-file>, ... are
// shell variables); each output and exit status goes to a file, and at two
// points the lead waits for the test (a go-N file).
const okstraLeadScript = `#!/bin/sh
set -u
PROJECT_ROOT=%[1]s
RUN_MANIFEST_PATH=%[2]s
JOBS_FILE=%[3]s
REVERIFY_JOBS_FILE=%[4]s
TEAM_STATE_PATH=%[5]s
cd %[6]s
step() { : > "$1.done"; while [ ! -f "$2" ]; do sleep 0.05; done; }
command -v okstra > shim.path
okstra team dispatch --project-root "$PROJECT_ROOT" --run-manifest "$RUN_MANIFEST_PATH" --jobs-file "$JOBS_FILE" > d1.out 2>&1; echo $? > d1.code
step s1 go1
okstra team await --project-root "$PROJECT_ROOT" --run-manifest "$RUN_MANIFEST_PATH" > a1.out 2>&1; echo $? > a1.code
okstra team await --project-root "$PROJECT_ROOT" --run-manifest "$RUN_MANIFEST_PATH" > a2.out 2>&1; echo $? > a2.code
okstra worker-liveness --team-state "$TEAM_STATE_PATH" --dispatch-id dispatch-001 > l1.out 2>&1; echo $? > l1.code
okstra team reclaim --project-root "$PROJECT_ROOT" --run-manifest "$RUN_MANIFEST_PATH" > r1.out 2>&1; echo $? > r1.code
okstra lead-progress append --project-root "$PROJECT_ROOT" --run-manifest "$RUN_MANIFEST_PATH" --phase phase-4-dispatch --worker "Codex verifier" --field model=gpt-6.1-sol > p1.out 2>&1; echo $? > p1.code
okstra team dispatch --project-root "$PROJECT_ROOT" --run-manifest "$RUN_MANIFEST_PATH" --dispatch-kind reverify-r1 --jobs-file "$REVERIFY_JOBS_FILE" > d2.out 2>&1; echo $? > d2.code
step s2 go2
okstra team teardown --project-root "$PROJECT_ROOT" --run-manifest "$RUN_MANIFEST_PATH" > t1.out 2>&1; echo $? > t1.code
okstra agent-prompt materialize --project-root "$PROJECT_ROOT" --run-manifest "$RUN_MANIFEST_PATH" --batch batch.json --jobs-out jobs.json > f1.out 2>&1; echo $? > f1.code
: > s3.done
exec sleep 600
`

// TestOkstraLeadContractUnderTheCockpit is issue 9's end-to-end check: a
// lead pane under `cockpit open` in a real terminal runs okstra's lead
// contract as written — dispatch, await twice, a liveness probe, reclaim, a
// lead-progress append with a functional --worker, a reverify dispatch,
// teardown — and one command the cockpit does not own, with no real okstra
// installed. The commands reach the cockpit through the shim, the ledger
// holds exactly the seed's lines (the second await adds no phase-5-poll),
// and the foreign command fails with the documented line and 127.
func TestOkstraLeadContractUnderTheCockpit(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root, env := paneRun(t)
	fixture.Behaviours{Codex: "ok", Antigravity: "fail", Claude: "ok", Reverify: "hang"}.Set(t, root)
	// No okstra anywhere on this PATH: the foreign command has nowhere to go.
	l := openLead(t, root, env, fixture.PathWith(fixture.FakeBin(t)), 160, 48, func(work string) string {
		return fmt.Sprintf(okstraLeadScript, root, fixture.RunManifest, fixture.JobsInitial, fixture.JobsReverify, fixture.TeamState, work)
	})
	s, file, waitStep, proceed, progress, sidecarDone, ok, exit := l.s, l.file, l.waitStep, l.proceed, progressLines, l.sidecarDone, l.ok, l.exit
	// 1. okstra team dispatch opened three panes in this cockpit.
	waitStep("s1")
	ok("d1")
	shim := strings.TrimSpace(file("shim.path"))
	if filepath.Base(shim) != "okstra" || filepath.Dir(shim) != filepath.Join(root, fixture.RunDir, "state", shimDirName) {
		t.Fatalf("okstra in the lead pane is %q, not the cockpit's shim", shim)
	}
	s.waitScreen("three worker panes", 10*time.Second, func(scr string) bool {
		return titleLine(scr, "Codex analyser") != "" && titleLine(scr, "Antigravity analyser") != "" && titleLine(scr, "Claude analyser") != ""
	})
	waitFor(t, "the three workers to end", 30*time.Second, func() bool {
		return sidecarDone(fixture.CodexPrompt) && sidecarDone(fixture.AntigravityPrompt) && sidecarDone(fixture.ClaudePrompt)
	})
	proceed("go1")

	// 2. Await twice, probe, reclaim, record the verifier's dispatch, dispatch it.
	waitStep("s2")
	ok("a1", "a2", "l1", "r1", "p1", "d2")
	if got := progress(file("a2.out")); len(got) != 0 {
		t.Fatalf("the second await, with no worker state change, printed:\n%s", file("a2.out"))
	}
	if got := file("l1.out"); got != "dispatch-001 done (completed)\n" {
		t.Fatalf("worker-liveness printed %q", got)
	}
	if got := file("p1.out"); got != `{"progressLine":"PROGRESS: phase-4-dispatch worker=Codex worker model=gpt-6.1-sol"}`+"\n" {
		t.Fatalf("lead-progress append printed %q", got)
	}
	s.waitScreen("the verifier pane alone", 10*time.Second, func(scr string) bool {
		return titleLine(scr, "Codex verifier") != "" && titleLine(scr, "Claude analyser") == "" && titleLine(scr, "Codex analyser") == ""
	})
	proceed("go2")

	// 3. Teardown, and a command the cockpit does not own.
	waitStep("s3")
	ok("t1")
	if strings.TrimSpace(file("t1.out")) != "pane-5\tworker" {
		t.Fatalf("teardown printed %q", file("t1.out"))
	}
	wantForeign := "okstra: agent-prompt: not a cockpit command, and no okstra found on PATH after the cockpit's shim (" + filepath.Dir(shim) + "); install okstra or put it on PATH\n"
	if code := strings.TrimSpace(file("f1.code")); code != "127" || file("f1.out") != wantForeign {
		t.Fatalf("okstra agent-prompt materialize: exit %s, printed %q; want 127 and %q", code, file("f1.out"), wantForeign)
	}
	s.waitScreen("the verifier pane gone", 10*time.Second, func(scr string) bool {
		return titleLine(scr, "Codex verifier") == ""
	})

	wantLedger := []string{
		"PROGRESS: phase-3-team-create using implicit team",
		"PROGRESS: phase-4-dispatch worker=Codex worker model=gpt-6.1-sol",
		"PROGRESS: phase-4-dispatch worker=Antigravity worker model=gemini-3.1-pro",
		"PROGRESS: phase-4-dispatch worker=Claude worker model=sonnet",
		// The wait's entry poll (every worker had ended already), then one
		// collect per initial dispatch it settled, as in TestOpenLeadDrivesPanes.
		"PROGRESS: phase-5-poll pending=0 done=3",
		"PROGRESS: phase-5-collect worker=Codex worker status=completed",
		"PROGRESS: phase-5-collect worker=Antigravity worker status=error",
		"PROGRESS: phase-5-collect worker=Claude worker status=completed",
		"PROGRESS: phase-batch-cleanup panes=3",
		"PROGRESS: phase-4-dispatch worker=Codex worker model=gpt-6.1-sol",
	}
	got := ledgerLines(t, root)
	if !slices.Equal(got, wantLedger) {
		t.Fatalf("ledger:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantLedger, "\n"))
	}
	if got := progress(file("d1.out")); !slices.Equal(got, wantLedger[:4]) {
		t.Fatalf("team dispatch printed:\n%s", file("d1.out"))
	}
	if got := progress(file("a1.out")); !slices.Equal(got, wantLedger[4:8]) {
		t.Fatalf("the first await printed:\n%s", file("a1.out"))
	}
	if got := progress(file("r1.out")); !slices.Equal(got, wantLedger[8:9]) {
		t.Fatalf("reclaim printed:\n%s", file("r1.out"))
	}
	ts := readTeamState(t, root)
	wantStatus := []state.Status{state.StatusCompleted, state.StatusError, state.StatusCompleted, state.StatusError}
	if len(ts.WorkerDispatches) != len(wantStatus) {
		t.Fatalf("%d dispatches recorded, want %d", len(ts.WorkerDispatches), len(wantStatus))
	}
	for i, d := range ts.WorkerDispatches {
		if d.Status != wantStatus[i] {
			t.Errorf("%s: %s, want %s (%s)", d.DispatchID, d.Status, wantStatus[i], d.Reason)
		}
	}
	// The seed's teardown order closes the panes first, then writes off
	// what was running: the teardown's reason, whatever the cockpit settled
	// in between.
	if r := ts.WorkerDispatches[3].Reason; r != state.TeardownReason {
		t.Errorf("the torn-down verifier's reason: %q", r)
	}
	s.keys("C-b", "q") // the screen types into the lead: prefix first
	s.waitFor("Detach, or end the run?", 5*time.Second)
	s.keys("e")
	if code := readExit(t, exit, 20*time.Second); code != "0" {
		t.Fatalf("cockpit open exited %s after q e", code)
	}
	l.waitEngineGone()
	if _, err := os.Stat(filepath.Dir(shim)); !os.IsNotExist(err) {
		t.Fatalf("the shim directory %s outlived the cockpit (%v)", filepath.Dir(shim), err)
	}
}
