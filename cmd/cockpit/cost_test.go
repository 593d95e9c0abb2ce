package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/workers/usage"
)

// statusRow is the screen's last non-empty line: the status line.
func statusRow(scr string) string {
	lines := strings.Split(strings.TrimRight(scr, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestDemoShowsCost runs `cockpit demo` in a real terminal: the sim
// workers' usage (claude-shaped, beside their prompts) reaches the screen,
// a cost in every worker's pane title and the run's total on the status
// line, and the total grows while they work.
func TestDemoShowsCost(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	exit, reg := exitFile(t), engineRegistry(t)
	s := newTmux(t, 160, 48, nil, fmt.Sprintf("env COCKPIT_REGISTRY=%s %s demo --slow-work 10s; echo $? > %s; sleep 600", reg, cockpitBin, exit))
	total := regexp.MustCompile(` · \$(\d+\.\d\d)( |$)`)
	var first float64
	s.waitScreen("a run total on the status line", 20*time.Second, func(scr string) bool {
		m := total.FindStringSubmatch(statusRow(scr))
		if m != nil {
			first, _ = strconv.ParseFloat(m[1], 64)
		}
		return m != nil
	})
	// Zoomed, each worker's pane title has room for its model and its cost
	// (the demo's screen starts in navigation: its lead is a script).
	for _, p := range []struct{ key, title string }{
		{"2", "Codex analyser · sim · sim-ok-4s"}, {"3", "Antigravity analyser · sim · sim-fail-3s"},
		{"4", "Claude analyser · sim · sim-ok-10s"}, {"5", "Grok analyser · sim · sim-ok-6s"},
	} {
		label, _, _ := strings.Cut(p.title, " · ")
		s.keys(p.key, "z")
		// The cost right after the label, before the model (issue 17,
		// finding 13: it is cut last).
		title, model, _ := strings.Cut(strings.TrimPrefix(p.title, label+" · "), " · ")
		paneCost := regexp.MustCompile(regexp.QuoteMeta(label+" · "+title) + ` · \$\d+\.\d\d( cli)? · ` + regexp.QuoteMeta(model))
		s.waitScreen(label+"'s cost in its zoomed title", 10*time.Second, func(scr string) bool {
			return focusedTitle(scr, label) && paneCost.MatchString(titleLine(scr, label))
		})
		s.keys("z")
		s.waitScreen("the grid back", 5*time.Second, func(scr string) bool { return titleLine(scr, "● 1 lead") != "" })
	}
	// The workers go on spending: the total grows.
	s.waitScreen(fmt.Sprintf("the total to grow past $%.2f", first), 20*time.Second, func(scr string) bool {
		m := total.FindStringSubmatch(statusRow(scr))
		if m == nil {
			return false
		}
		now, _ := strconv.ParseFloat(m[1], 64)
		return now > first
	})
	s.keys("q")
	s.waitFor("Detach, or end the run?", 5*time.Second)
	s.keys("e")
	if code := readExit(t, exit, 30*time.Second); code != "0" {
		t.Fatalf("cockpit demo exited %s after q e", code)
	}
	waitFor(t, "the demo's engine to exit", 30*time.Second, func() bool { return len(registeredPIDs(reg)) == 0 })
}

// TestOpenShowsFakeProvidersCost runs `cockpit open` on the fixture run
// with the fake CLIs: the fake claude's stream-json in its pane log and the
// fake codex's rollout under $CODEX_HOME (tied to it by the session id its
// header printed) price each pane and add up on the status line; the fake
// gemini leaves no evidence, so its pane shows no cost.
func TestOpenShowsFakeProvidersCost(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root, env := paneRun(t)
	claudeHome := t.TempDir()
	env = append(env, "CODEX_HOME="+t.TempDir(), "CLAUDE_CONFIG_DIR="+claudeHome)
	fixture.Behaviours{Codex: "ok-2s", Antigravity: "ok-2s", Claude: "ok-2s"}.Set(t, root)
	l := openLead(t, root, env, fixture.PathWith(fixture.FakeBin(t)), 160, 48, func(work string) string {
		return fmt.Sprintf("#!/bin/sh\ncd %s\ncockpit team dispatch --jobs-file %s > d1.out 2>&1\nexec sleep 600\n", work, fixture.JobsInitial)
	})
	s := l.s
	s.waitScreen("three worker panes", 20*time.Second, func(scr string) bool {
		return titleLine(scr, "Codex analyser") != "" && titleLine(scr, "Antigravity analyser") != "" && titleLine(scr, "Claude analyser") != ""
	})
	total := regexp.MustCompile(` · \$(\d+\.\d\d)( |$)`)
	s.waitScreen("a run total on the status line", 20*time.Second, func(scr string) bool {
		return total.MatchString(statusRow(scr))
	})
	cost := regexp.MustCompile(`· \$\d+\.\d\d( |$)`)
	s.navigate() // the screen types into the lead at start
	for _, p := range []struct{ key, label string }{{"2", "Codex analyser"}, {"4", "Claude analyser"}} {
		s.keys(p.key)
		s.waitScreen("focus on "+p.label, 5*time.Second, func(scr string) bool { return focusedTitle(scr, p.label) })
		s.keys("z")
		s.waitScreen(p.label+"'s cost in its zoomed title", 20*time.Second, func(scr string) bool {
			return cost.MatchString(strings.TrimRight(titleLine(scr, p.label), "━─ "))
		})
		s.keys("z")
	}
	// cockpit ls tells the run's cost too.
	infos := engineList(t, l.registry)
	if len(infos) != 1 || !infos[0].CostKnown || infos[0].CostUSD <= 0 || infos[0].Unpriced != 0 {
		t.Errorf("ls --json: %+v, want a priced cost", infos)
	}
	if r := cockpit(t, root, []string{"COCKPIT_REGISTRY=" + l.registry}, "ls"); !regexp.MustCompile(`  \$\d+\.\d\d  `).MatchString(r.stdout) {
		t.Errorf("ls shows no cost:\n%s", r.stdout)
	}
	s.keys("3", "z")
	scr := s.waitScreen("the zoomed Antigravity pane", 5*time.Second, func(scr string) bool {
		return focusedTitle(scr, "Antigravity analyser") && titleLine(scr, "Codex analyser") == ""
	})
	if strings.Contains(titleLine(scr, "Antigravity analyser"), "$") {
		t.Errorf("the gemini pane shows a cost though gemini left no evidence:\n%s", titleLine(scr, "Antigravity analyser"))
	}
	// The fake claude also kept a session transcript, as claude -p does,
	// at the path the cockpit computes for its directory: once the worker
	// is done, it says what the stream-json in its log says.
	waitFor(t, "the claude worker to finish", 20*time.Second, func() bool {
		sc, _ := state.ReadSidecar(filepath.Join(root, state.SidecarPath(fixture.ClaudePrompt)), "sidecar")
		return sc != nil && sc.Status == state.StatusCompleted
	})
	dir := usage.Homes{Claude: claudeHome}.ClaudeProjectDir(root)
	transcripts, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(transcripts) != 1 {
		t.Fatalf("claude transcripts under %s: %v", dir, transcripts)
	}
	fromLog := usage.NewFollower(filepath.Join(root, state.LogPath(fixture.ClaudePrompt)), usage.StreamJSON)
	fromSession := usage.NewFollower(transcripts[0], usage.ClaudeSession)
	fromLog.Update()
	fromSession.Update()
	if a, b := fromLog.Totals().All(), fromSession.Totals().All(); a != b || a.Sum() == 0 {
		t.Errorf("stream-json says %+v, the session transcript %+v", a, b)
	}
}
