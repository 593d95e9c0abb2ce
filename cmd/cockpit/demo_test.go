package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDemoHeadless runs `cockpit demo --headless` as a newcomer would and
// checks the story: four panes, counts moving to done=4, the reclaim, the
// results, and that the throwaway run is gone afterwards.
func TestDemoHeadless(t *testing.T) {
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
