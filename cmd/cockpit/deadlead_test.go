package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
)

// deadLeadScript asks for a line, keeps it, and exits 7: a lead that dies.
const deadLeadScript = `#!/bin/sh
cd %[1]s
echo run >> runs.txt
printf 'lead ready> '
read line
echo "$line" >> typed.txt
exit 7
`

// TestDeadLeadRespawn runs `cockpit open` in a real terminal: the first
// key typed once the screen shows reaches the lead (a new screen types
// into it); when the lead exits the screen stops typing and the pane says
// "lead exited (code 7) — enter restarts"; enter starts the lead's command
// again in the same pane, typing into it; q e still ends the run.
func TestDeadLeadRespawn(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root, env := paneRun(t)
	l := openLead(t, root, env, fixture.PathWith(fixture.FakeBin(t)), 100, 30, func(work string) string {
		return fmt.Sprintf(deadLeadScript, work)
	})
	s := l.s
	s.waitFor("lead ready>", 20*time.Second)
	// The first key: no enter or prefix before it.
	s.typeText("first-key")
	s.keys("Enter")
	waitFor(t, "the first line to reach the lead", 10*time.Second, func() bool { return l.file("typed.txt") == "first-key\n" })
	scr := s.waitFor("lead exited (code 7) — enter restarts", 10*time.Second)
	if !strings.Contains(scr, " NAV ") {
		t.Errorf("the screen still types into the dead lead:\n%s", scr)
	}
	// A key now is the screen's, not swallowed by the dead pane: t hides
	// the timeline.
	s.keys("t")
	s.waitScreen("the timeline hidden", 5*time.Second, func(scr string) bool { return !strings.Contains(scr, "─ timeline ─") })
	// Enter starts the lead again, in the same pane, typing into it.
	s.keys("Enter")
	s.waitScreen("the lead again", 10*time.Second, func(scr string) bool {
		return strings.Contains(scr, "lead ready>") && !strings.Contains(scr, "lead exited")
	})
	if got := l.file("runs.txt"); got != "run\nrun\n" {
		t.Fatalf("the lead ran %q, want twice", got)
	}
	s.typeText("second")
	s.keys("Enter")
	waitFor(t, "the second line to reach the respawned lead", 10*time.Second, func() bool { return l.file("typed.txt") == "first-key\nsecond\n" })
	s.waitFor("lead exited (code 7) — enter restarts", 10*time.Second)
	s.keys("q")
	s.waitFor("Detach, or end the run?", 5*time.Second)
	s.keys("e")
	if code := readExit(t, l.exit, 20*time.Second); code != "0" {
		t.Fatalf("cockpit open exited %s after q e", code)
	}
	l.waitEngineGone()
}
