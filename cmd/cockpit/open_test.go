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

// leadScript is the lead pane's program in TestOpenLeadDrivesPanes: it runs
// the team commands a lead agent would, writing each command's output to a
// file, and waits at each step for the test (a go-N file) so the test can
// look at the screen in between.
const leadScript = `#!/bin/sh
set -u
M=%[1]s
J=%[2]s
R=%[3]s
cd %[4]s
step() { : > "$1.done"; while [ ! -f "$2" ]; do sleep 0.05; done; }
cockpit team dispatch --jobs-file "$J" > d1.out 2>&1
step s1 go1
cockpit team reclaim > r1.out 2>&1
step s2 go2
cockpit team await > a1.out 2>&1
cockpit team reclaim > r2.out 2>&1
cockpit team dispatch --dispatch-kind reverify-r1 --jobs-file "$R" > d2.out 2>&1
step s3 go3
cockpit team reclaim --gate > g1.out 2>&1
cockpit team teardown > t1.out 2>&1
: > s4.done
exec sleep 600
`

// TestOpenLeadDrivesPanes starts `cockpit open` in a real terminal on the
// fixture run with a lead that dispatches three workers (one completes, one
// fails, one is slow), reclaims at a batch boundary while the slow one still
// runs, awaits, dispatches a reverify round, reclaims before a gate and
// tears down; the panes must appear and disappear on the screen, and
// team-state, the ledger and the printed lines must follow the seed.
func TestOpenLeadDrivesPanes(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root, env := paneRun(t)
	// The slow worker works until the test releases it, once the
	// mid-batch reclaim has kept its pane and the await has begun.
	fixture.Behaviours{Codex: "ok", Antigravity: "fail", Claude: "until-claude.release", Reverify: "hang"}.Set(t, root)
	releaseClaude := func() {
		if err := os.WriteFile(filepath.Join(root, "claude.release"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.WriteFile(filepath.Join(root, "claude.release"), nil, 0o644) })
	l := openLead(t, root, env, fixture.PathWith(fixture.FakeBin(t)), 160, 48, func(work string) string {
		return fmt.Sprintf(leadScript, fixture.RunManifest, fixture.JobsInitial, fixture.JobsReverify, work)
	})
	s, file, waitStep, proceed, progress, sidecarDone, exit := l.s, l.file, l.waitStep, l.proceed, progressLines, l.sidecarDone, l.exit
	// 1. Three worker panes appear.
	waitStep("s1")
	s.waitScreen("three worker panes", 10*time.Second, func(scr string) bool {
		return titleLine(scr, "Codex analyser") != "" && titleLine(scr, "Antigravity analyser") != "" && titleLine(scr, "Claude analyser") != ""
	})
	if got := progress(file("d1.out")); !slices.Equal(got, []string{
		"PROGRESS: phase-3-team-create using implicit team",
		"PROGRESS: phase-4-dispatch worker=Codex worker model=gpt-6.1-sol",
		"PROGRESS: phase-4-dispatch worker=Antigravity worker model=gemini-3.1-pro",
		"PROGRESS: phase-4-dispatch worker=Claude worker model=sonnet",
	}) {
		t.Fatalf("team dispatch printed:\n%s", file("d1.out"))
	}
	waitFor(t, "the quick workers to settle", 20*time.Second, func() bool {
		return sidecarDone(fixture.CodexPrompt) && sidecarDone(fixture.AntigravityPrompt)
	})
	if sidecarDone(fixture.ClaudePrompt) {
		t.Fatal("the slow worker finished before the mid-batch reclaim; the test cannot check it keeps its pane")
	}
	proceed("go1")

	// 2. The reclaim closes the two finished panes; the slow worker keeps its own.
	waitStep("s2")
	if got := progress(file("r1.out")); !slices.Equal(got, []string{"PROGRESS: phase-batch-cleanup panes=2"}) {
		t.Fatalf("reclaim printed:\n%s", file("r1.out"))
	}
	s.waitScreen("the finished panes gone, the slow one kept", 10*time.Second, func(scr string) bool {
		return titleLine(scr, "Codex analyser") == "" && titleLine(scr, "Antigravity analyser") == "" && titleLine(scr, "Claude analyser") != ""
	})
	proceed("go2")
	// The await of step 3 finds the slow worker running (its entry poll is
	// in the ledger), then sees it end once released.
	waitFor(t, "the await's entry poll", 20*time.Second, func() bool {
		return slices.Contains(ledgerLines(t, root), "PROGRESS: phase-5-poll pending=1 done=2")
	})
	releaseClaude()

	// 3. Await, reclaim, and a reverify round in a new pane.
	waitStep("s3")
	if got := progress(file("a1.out")); len(got) == 0 || got[len(got)-1] != "PROGRESS: phase-5-poll pending=0 done=3" {
		t.Fatalf("await printed:\n%s", file("a1.out"))
	}
	if got := progress(file("r2.out")); !slices.Equal(got, []string{"PROGRESS: phase-batch-cleanup panes=1"}) {
		t.Fatalf("second reclaim printed:\n%s", file("r2.out"))
	}
	if got := progress(file("d2.out")); len(got) != 0 {
		t.Fatalf("a reverify dispatch records no checkpoint, printed:\n%s", file("d2.out"))
	}
	s.waitScreen("the verifier pane", 10*time.Second, func(scr string) bool {
		return titleLine(scr, "Codex verifier") != "" && titleLine(scr, "Claude analyser") == ""
	})
	proceed("go3")

	// 4. A gate reclaim keeps the running verifier and records nothing;
	// teardown closes it and writes it off.
	waitStep("s4")
	if got := progress(file("g1.out")); !slices.Equal(got, []string{"PROGRESS: phase-gate-cleanup panes=0"}) {
		t.Fatalf("gate reclaim printed:\n%s", file("g1.out"))
	}
	if strings.TrimSpace(file("t1.out")) != "pane-5\tworker" {
		t.Fatalf("teardown printed %q", file("t1.out"))
	}
	s.waitScreen("the verifier pane gone", 10*time.Second, func(scr string) bool {
		return titleLine(scr, "Codex verifier") == ""
	})
	wantLedger := []string{
		"PROGRESS: phase-3-team-create using implicit team",
		"PROGRESS: phase-4-dispatch worker=Codex worker model=gpt-6.1-sol",
		"PROGRESS: phase-4-dispatch worker=Antigravity worker model=gemini-3.1-pro",
		"PROGRESS: phase-4-dispatch worker=Claude worker model=sonnet",
		"PROGRESS: phase-batch-cleanup panes=2",
		"PROGRESS: phase-5-poll pending=1 done=2",
		"PROGRESS: phase-5-collect worker=Codex worker status=completed",
		"PROGRESS: phase-5-collect worker=Antigravity worker status=error",
		"PROGRESS: phase-5-collect worker=Claude worker status=completed",
		"PROGRESS: phase-5-poll pending=0 done=3",
		"PROGRESS: phase-batch-cleanup panes=1",
	}
	if got := ledgerLines(t, root); !slices.Equal(got, wantLedger) {
		t.Fatalf("ledger:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantLedger, "\n"))
	}
	if got := progress(file("a1.out")); !slices.Equal(got, wantLedger[5:10]) {
		t.Fatalf("await printed:\n%s", strings.Join(got, "\n"))
	}
	ts := readTeamState(t, root)
	wantStatus := []state.Status{state.StatusCompleted, state.StatusError, state.StatusCompleted, state.StatusError}
	for i, d := range ts.WorkerDispatches {
		if d.Status != wantStatus[i] || d.PaneID != fmt.Sprintf("pane-%d", i+2) {
			t.Errorf("%s: %s in %s, want %s in pane-%d", d.DispatchID, d.Status, d.PaneID, wantStatus[i], i+2)
		}
	}
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
}
