package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/demo"
	"github.com/okstra/cockpit/runtime/watch"
)

// TestDemoHeadless runs `cockpit demo --headless` as a newcomer would and
// checks the story: four panes, counts moving to done=4, the reclaim, the
// results, and that the throwaway run is gone afterwards.
func TestDemoHeadless(t *testing.T) {
	// The story's sim workers are paced (sim-slow-10s): runtime/demo's
	// story tests cover the story's logic in the short tier.
	testenv.SkipShort(t, "the whole demo end to end, paced by its sim workers (~10 s)")
	t.Parallel() // waits on other processes most of its time
	res := cockpit(t, t.TempDir(), nil, "demo", "--headless")
	if res.code != 0 {
		t.Fatalf("demo exited %d: %s\n%s", res.code, res.stderr, res.stdout)
	}
	out := res.stdout
	for _, want := range []string{
		"PROGRESS: phase-3-team-create using implicit team",
		"PROGRESS: phase-5-poll pending=4 done=0",
		"PROGRESS: phase-5-collect worker=Antigravity worker status=error",
		"PROGRESS: phase-5-poll pending=0 done=4",
		"PROGRESS: phase-batch-cleanup panes=4",
		"pane-opened paneId=pane-1",
		"pane-closed paneId=pane-4",
		"dispatch-002 Antigravity analyser · sim   error",
		"# Simulated worker result",
		"PROGRESS: user-confirm C-001",
		"the human answers C-001 in the screen: option 1",
		`"answer": "Keep the legacy order"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("story lacks %q", want)
		}
	}
	m := regexp.MustCompile(`in (/\S+)/project`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("story does not say where the run is:\n%s", out)
	}
	if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Fatalf("demo left %s behind (err %v)", m[1], err)
	}
	if t.Failed() {
		t.Log(out)
	}
}

// TestDemoEndsUnwatched (issue 17 item 12): a demo whose terminal closes
// (its tmux server killed: the client gets its hang-up) does not run on
// forever. Its engine ends the run once no screen has been attached for
// --grace, and removes the temp dir with the copy of the binary it ran;
// with --keep it leaves the run's files but still removes the copy.
func TestDemoEndsUnwatched(t *testing.T) {
	t.Parallel()
	for _, keep := range []bool{false, true} {
		reg := engineRegistry(t)
		flags := "--grace 2s --slow-work 2s"
		if keep {
			flags += " --keep"
		}
		s := newTmux(t, 120, 40, nil, fmt.Sprintf("env COCKPIT_REGISTRY=%s %s demo %s; sleep 600", reg, cockpitBin, flags))
		s.waitFor("● 1 lead", 20*time.Second)
		infos := engineList(t, reg)
		if len(infos) != 1 || infos[0].Name != "demo-1-001" {
			t.Fatalf("the demo's engine: %+v", infos)
		}
		dir := filepath.Dir(infos[0].ProjectRoot)
		if _, err := os.Stat(filepath.Join(dir, "bin", "cockpit")); err != nil {
			t.Fatalf("the demo's copy of the binary: %v", err)
		}
		if out, err := s.cmd("kill-server").CombinedOutput(); err != nil {
			t.Fatalf("close the demo's terminal: %v: %s", err, out)
		}
		waitFor(t, "the unwatched demo's engine to end", 30*time.Second, func() bool { return len(registeredPIDs(reg)) == 0 })
		waitFor(t, "the demo's engine process to exit", 10*time.Second, func() bool { return !watch.ProcessAlive(infos[0].PID) })
		waitFor(t, "the demo's files to go", 10*time.Second, func() bool {
			_, err := os.Stat(filepath.Join(dir, "bin"))
			return os.IsNotExist(err)
		})
		_, err := os.Stat(dir)
		if !keep {
			if !os.IsNotExist(err) {
				t.Errorf("the demo left %s behind (%v)", dir, err)
			}
			continue
		}
		log := filepath.Join(infos[0].ProjectRoot, demo.RunDir, "state", engineLogName)
		if data, err := os.ReadFile(log); err != nil || !strings.Contains(string(data), "no screen was attached for 2s; closing the panes") {
			t.Errorf("the kept engine log does not say why the demo ended (%v):\n%s", err, data)
		}
		os.RemoveAll(dir)
	}
}

// TestReadmeStartsWithTheDemo (issue 17 item 20): the README's first block
// is its two commands, the demo first, and what it says the demo does
// holds: the slow worker works about a minute, an unwatched demo ends a
// minute after its last screen, and the first build's silence is said.
func TestReadmeStartsWithTheDemo(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	_, rest, ok := strings.Cut(readme, "```sh\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 || strings.Index(readme, "```") != strings.Index(readme, "```sh\n") {
		t.Fatalf("README.md has no first sh block:\n%s", readme)
	}
	var cmds []string
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		cmd, _, _ := strings.Cut(l, "#")
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	if len(cmds) != 2 || cmds[0] != "go run ./cmd/cockpit demo" || cmds[1] != "go test ./..." {
		t.Fatalf("README.md's first commands are %q, want go run ./cmd/cockpit demo, then go test ./...", cmds)
	}
	flat := strings.Join(strings.Fields(readme), " ")
	for _, c := range []struct {
		says  string
		holds bool
	}{
		{"The first `go run` compiles the cockpit and its dependencies before it prints anything", true},
		{"The demo opens in navigation: `?` lists the keys", true},
		{"works for about a minute", demo.SlowWork == time.Minute},
		{"a demo nobody watches ends itself a minute after its last screen goes, and removes its files", demoGrace == time.Minute},
		{"`ctrl+b d` detaches (the line it prints says how to come back and how to end the run)", true},
	} {
		if !strings.Contains(flat, c.says) {
			t.Errorf("README.md no longer says %q", c.says)
		} else if !c.holds {
			t.Errorf("README.md says %q, which the demo no longer does (demo.SlowWork %s, demoGrace %s)", c.says, demo.SlowWork, demoGrace)
		}
	}
}
