package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
)

// reclaimScript is the lead of the overview and alert tests: it dispatches
// the fixture's three workers, waits for the test (go1), reclaims the
// finished panes, and stays.
const reclaimScript = `#!/bin/sh
set -u
cd %[2]s
cockpit team dispatch --jobs-file %[1]s > d1.out 2>&1
: > s1.done
while [ ! -f go1 ]; do sleep 0.05; done
cockpit team reclaim > r1.out 2>&1
: > s2.done
exec sleep 600
`

// TestOverviewShowsReclaimedLog: in a real terminal, after the lead
// reclaimed every pane (one worker failed), prefix w lists the reclaimed
// workers, enter on the failed one opens its log with its failure output,
// and r on a completed one shows its result rendered as markdown.
func TestOverviewShowsReclaimedLog(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root, env := paneRun(t)
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, "ok")
	fixture.SetBehaviour(t, root, fixture.AntigravityPrompt, "fail")
	fixture.SetBehaviour(t, root, fixture.ClaudePrompt, "ok")
	l := openLead(t, root, env, fixture.PathWith(fixture.FakeBin(t)), 160, 48, func(work string) string {
		return fmt.Sprintf(reclaimScript, fixture.JobsInitial, work)
	})
	s := l.s
	l.waitStep("s1")
	waitFor(t, "the workers to settle", 20*time.Second, func() bool {
		return l.sidecarDone(fixture.CodexPrompt) && l.sidecarDone(fixture.AntigravityPrompt) && l.sidecarDone(fixture.ClaudePrompt)
	})
	l.proceed("go1")
	l.waitStep("s2")
	s.waitScreen("every worker pane reclaimed", 10*time.Second, func(scr string) bool {
		return titleLine(scr, "Codex analyser") == "" && titleLine(scr, "Antigravity analyser") == "" && titleLine(scr, "Claude analyser") == ""
	})
	// The screen types into the lead: the prefix, then w.
	s.keys("C-b", "w")
	scr := s.waitFor("run overview · 3 dispatches in 1 batch", 5*time.Second)
	row := ""
	for _, line := range strings.Split(scr, "\n") {
		if strings.Contains(line, "Antigravity analyser") {
			row = line // the overview's row comes before the status line
			break
		}
	}
	if !strings.Contains(row, "✗") || !strings.Contains(row, "exit 1") || !strings.Contains(row, "gemini-3.1-pro") {
		t.Fatalf("the reclaimed, failed worker's row: %q\n%s", row, scr)
	}
	if !strings.Contains(scr, "1 failed") || !strings.Contains(scr, "2 done") {
		t.Errorf("the batch heading does not count 2 done, 1 failed:\n%s", scr)
	}
	// Dispatch order: Codex, Antigravity, Claude; the last is selected.
	s.keys("g", "j", "Enter")
	scr = s.waitScreen("the failed worker's log", 10*time.Second, func(scr string) bool {
		return strings.Contains(titleLine(scr, "Antigravity analyser"), "[log]") && strings.Contains(scr, "the model refused (fake exit 1)")
	})
	if !strings.Contains(scr, "[cockpit: error") || !strings.HasPrefix(titleLine(scr, "Antigravity analyser"), "━ ✗") {
		t.Errorf("the log pane should end with the dispatch's record and be focused, failed:\n%s", scr)
	}
	// r on the completed Codex analyser: its result, rendered.
	s.keys("w", "g", "r")
	s.waitFor("result · Codex analyser", 10*time.Second)
	scr = s.waitScreen("the rendered result", 10*time.Second, func(scr string) bool { return strings.Contains(scr, "Fake result") })
	if strings.Contains(scr, "# Fake result") || !strings.Contains(scr, "provider: codex") {
		t.Errorf("the result is not rendered as markdown:\n%s", scr)
	}
	s.keys("Escape", "Escape")
	s.waitScreen("the overview closed", 5*time.Second, func(scr string) bool { return !strings.Contains(scr, "run overview") })
}

// TestFailingWorkerRingsBell: with --alerts fail, a worker failing rings
// the terminal's bell (tmux flags the window) and shows on the status line
// and in the worker pane's title; nothing rang before the run started.
func TestFailingWorkerRingsBell(t *testing.T) {
	t.Parallel()
	root, env := paneRun(t)
	// The others keep running: the batch does not settle, so the status
	// line keeps the failure (the latest alert).
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, "hang")
	fixture.SetBehaviour(t, root, fixture.AntigravityPrompt, "fail-3")
	fixture.SetBehaviour(t, root, fixture.ClaudePrompt, "hang")
	// Failures only (the unit tests check each kind); the choice travels
	// from the client's environment.
	env = append(env, "COCKPIT_ALERTS=fail")
	l := openLead(t, root, env, fixture.PathWith(fixture.FakeBin(t)), 160, 48, func(work string) string {
		return fmt.Sprintf(reclaimScript, fixture.JobsInitial, work)
	})
	s := l.s
	bellFlag := func() string {
		out, err := s.cmd("display-message", "-p", "-t", "0", "#{window_bell_flag}").Output()
		if err != nil {
			t.Fatalf("tmux display-message: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	s.waitFor("● 1 lead", 20*time.Second)
	if f := bellFlag(); f != "0" {
		t.Fatalf("the window's bell flag is %q before any worker ran", f)
	}
	l.waitStep("s1")
	waitFor(t, "the failing worker to settle", 20*time.Second, func() bool { return l.sidecarDone(fixture.AntigravityPrompt) })
	waitFor(t, "the bell", 10*time.Second, func() bool { return bellFlag() == "1" })
	s.waitScreen("the failure on the status line and the pane's flag", 10*time.Second, func(scr string) bool {
		return strings.Contains(scr, "Antigravity analyser failed: exit 3") && strings.Contains(titleLine(scr, "Antigravity analyser"), "✗⚑")
	})
}
