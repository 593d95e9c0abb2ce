package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
)

// The screen's key flows end to end, in real terminals (issue 17): the
// deny gate, the one-shot prefix, the demo's first key.

// navigate leaves typing for navigation (prefix esc) and waits for the
// status line to say so: a key sent right after ESC would reach the screen
// as alt+key.
func (s *tmuxSession) navigate() {
	s.t.Helper()
	s.keys("C-b", "Escape")
	s.waitScreen("navigation mode", 5*time.Second, func(scr string) bool {
		return strings.HasPrefix(strings.TrimSpace(statusRow(scr)), "NAV")
	})
}

// badge is the mode badge that starts the status line.
func badge(scr string) string {
	f := strings.Fields(statusRow(scr))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

const denyLead = `#!/bin/sh
set -u
cd %[1]s
cockpit gate report-authoring --reason-hint "the report writer timed out twice" > gate.out 2> gate.err
: > gate.done
exec cat > typed.txt
`

// TestDenyGateInTmux is the trial's report-authoring gate (issue 17,
// finding 1) typed as the human did: enter without a reason is refused and
// nothing moves; a typed d is the reason's text, and the dialog says it
// would send approve with it; down chooses deny; the dialog shows what
// enter sends, and the answer recorded is exactly that: denied, with the
// reason typed. Then the screen types into the lead again, as before
// ctrl+b g.
func TestDenyGateInTmux(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root, env := paneRun(t)
	l := openLead(t, root, env, fixture.PathWith(fixture.FakeBin(t)), 120, 40, func(work string) string {
		return fmt.Sprintf(denyLead, work)
	})
	s := l.s
	scr := s.waitFor("1 gate waiting (ctrl+b g)", 20*time.Second)
	if badge(scr) != "INPUT" {
		t.Fatalf("the gate took the keyboard from the lead:\n%s", scr)
	}
	s.keys("C-b", "g")
	s.waitFor("Gate report-authoring", 5*time.Second)
	s.keys("Enter")
	scr = s.waitFor("a reason is required", 5*time.Second)
	if !strings.Contains(scr, "enter sends: approve · no reason yet (required)") || !strings.Contains(scr, "▸ approve") {
		t.Fatalf("after the refusal the choice moved, or the dialog does not say what it sends:\n%s", scr)
	}
	s.typeText("d")
	s.waitFor("enter sends: approve · reason “d”", 5*time.Second)
	s.keys("BSpace", "Down")
	s.waitFor("▸ deny", 5*time.Second)
	s.typeText("the writer must retry first")
	shown := "enter sends: deny · reason “the writer must retry first”"
	s.waitFor(shown, 5*time.Second)
	s.keys("Enter")
	waitFor(t, "gate report-authoring to return", 20*time.Second, func() bool {
		_, err := os.Stat(filepath.Join(l.work, "gate.done"))
		return err == nil
	})
	out := strings.TrimSpace(l.file("gate.out"))
	var res struct{ GateID, Status, Note, Sidecar, AnsweredIn string }
	if err := json.Unmarshal([]byte(out[max(strings.Index(out, "{"), 0):]), &res); err != nil {
		t.Fatalf("gate report-authoring printed %q (stderr %q): %v", out, l.file("gate.err"), err)
	}
	if res.Status != "denied" || res.Note != "the writer must retry first" || res.AnsweredIn != "cockpit" {
		t.Fatalf("recorded %+v; the screen showed %q", res, shown)
	}
	sidecar, err := os.ReadFile(filepath.Join(root, res.Sidecar))
	if err != nil || !strings.Contains(string(sidecar), "denied") || !strings.Contains(string(sidecar), "the writer must retry first") {
		t.Fatalf("the user-response sidecar (%v):\n%s", err, sidecar)
	}
	scr = s.waitFor("gate report-authoring answered: deny", 10*time.Second)
	if badge(scr) != "INPUT" {
		t.Fatalf("after the answer the screen does not type into the lead again:\n%s", scr)
	}
	s.typeText("after")
	s.keys("Enter")
	waitFor(t, "the lead's input", 10*time.Second, func() bool { return strings.Contains(l.file("typed.txt"), "after") })
	s.keys("C-b", "q")
	s.waitFor("Detach, or end the run?", 5*time.Second)
	s.keys("e")
	if code := readExit(t, l.exit, 20*time.Second); code != "0" {
		t.Fatalf("cockpit open exited %s after q e", code)
	}
}

const typingLead = `#!/bin/sh
cd %[1]s
exec cat > typed.txt
`

// TestOneShotPrefixInTmux (issue 17, finding 3): the prefix is tmux's:
// ctrl+b z zooms and the keys typed next go to the program (d, x, q are
// not the screen's); navigation is entered on purpose (ctrl+b esc), where
// z alone unzooms; ctrl+b [ scrolls and q goes back to typing; ctrl+b
// ctrl+b types ctrl+b. The status line says how at every step.
func TestOneShotPrefixInTmux(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root, env := paneRun(t)
	l := openLead(t, root, env, fixture.PathWith(fixture.FakeBin(t)), 100, 30, func(work string) string {
		return fmt.Sprintf(typingLead, work)
	})
	s := l.s
	scr := s.waitScreen("typing into the lead", 20*time.Second, func(scr string) bool { return badge(scr) == "INPUT" && titleLine(scr, "1 lead") != "" })
	if !strings.Contains(statusRow(scr), "ctrl+b esc: navigation") {
		t.Fatalf("the status line does not say how to leave the pane:\n%s", statusRow(scr))
	}
	s.typeText("ab")
	s.keys("C-b")
	s.waitScreen("the prefix said", 5*time.Second, func(scr string) bool { return badge(scr) == "PREFIX" })
	s.keys("z")
	s.waitScreen("zoomed, still typing", 5*time.Second, func(scr string) bool {
		return strings.Contains(statusRow(scr), "INPUT ZOOM") && strings.Contains(titleLine(scr, "1 lead"), "[zoom]")
	})
	s.typeText("dxq")
	s.keys("Enter")
	waitFor(t, "the keys after prefix z in the lead", 10*time.Second, func() bool { return strings.Contains(l.file("typed.txt"), "abdxq\n") })
	if scr := s.screen(); !strings.Contains(statusRow(scr), "INPUT ZOOM") || strings.Contains(scr, "Detach, or end the run?") {
		t.Fatalf("d x q after prefix z acted on the screen:\n%s", scr)
	}
	// Navigation, on purpose: z alone unzooms; nothing reaches the lead.
	s.navigate()
	s.keys("z")
	s.waitScreen("unzoomed", 5*time.Second, func(scr string) bool { return !strings.Contains(titleLine(scr, "1 lead"), "[zoom]") })
	s.keys("i")
	s.waitScreen("typing again", 5*time.Second, func(scr string) bool { return badge(scr) == "INPUT" })
	// Scroll mode from typing comes back to typing.
	s.keys("C-b", "[")
	s.waitScreen("scroll mode", 5*time.Second, func(scr string) bool { return badge(scr) == "SCROLL" })
	s.keys("q")
	s.waitScreen("typing after scroll mode", 5*time.Second, func(scr string) bool { return badge(scr) == "INPUT" })
	s.keys("C-b", "C-b")
	s.typeText("ef")
	s.keys("Enter")
	waitFor(t, "ctrl+b ctrl+b and ef in the lead", 10*time.Second, func() bool { return strings.Contains(l.file("typed.txt"), "abdxq\n\x02ef\n") })
	s.keys("C-b", "q")
	s.waitFor("Detach, or end the run?", 5*time.Second)
	s.keys("e")
	if code := readExit(t, l.exit, 20*time.Second); code != "0" {
		t.Fatalf("cockpit open exited %s after q e", code)
	}
}

// TestDemoFirstKeyInTmux (issue 17, finding 4): the demo's lead is a
// script, so the demo starts in navigation and the keys its intro lists
// are true from the first one: the arrows move the focus, ? opens the help
// (nothing reaches the story), q closes it, and ctrl+b q asks detach or
// end.
func TestDemoFirstKeyInTmux(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	exit, reg := exitFile(t), engineRegistry(t)
	s := newTmux(t, 80, 24, nil, fmt.Sprintf("env COCKPIT_REGISTRY=%s %s demo; echo $? > %s; sleep 600", reg, cockpitBin, exit))
	// The first key, as soon as a worker pane is there to move to: the
	// arrows are the screen's.
	scr := s.waitScreen("a worker pane", 30*time.Second, func(scr string) bool {
		return titleLine(scr, "1 lead") != "" && titleLine(scr, " 2 ") != "" // pane 2's title bar
	})
	if badge(scr) != "NAV" || !focusedTitle(scr, "1 lead") {
		t.Fatalf("the demo does not start in navigation on the lead:\n%s", scr)
	}
	s.keys("Right")
	s.waitScreen("the focus on a worker", 5*time.Second, func(scr string) bool { return !focusedTitle(scr, "1 lead") })
	// ? is the help, not the story's input; q closes it and does nothing else.
	s.keys("?")
	s.waitFor("cockpit keys", 5*time.Second)
	s.keys("q")
	scr = s.waitScreen("the help closed", 5*time.Second, func(scr string) bool { return !strings.Contains(scr, "cockpit keys") })
	if strings.Contains(scr, "?q") || strings.Contains(scr, "Detach, or end the run?") {
		t.Fatalf("the keys reached the story, or q did more than close the help:\n%s", scr)
	}
	s.keys("C-b", "q") // over a gate dialog too, if the story got there
	s.waitFor("Detach, or end the run?", 5*time.Second)
	s.keys("e")
	if code := readExit(t, exit, 20*time.Second); code != "0" {
		t.Fatalf("cockpit demo exited %s after q e", code)
	}
	waitFor(t, "the demo's engine to exit", 30*time.Second, func() bool { return len(registeredPIDs(reg)) == 0 })
}

// TestPrefixRefused (issue 17, finding 2): a prefix no terminal can send
// is refused at flag parsing, exit 2 with one line naming the flag, before
// any engine or screen exists.
func TestPrefixRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"open", "--prefix", "ctrl+zz"}, `cockpit open: --prefix (or $COCKPIT_PREFIX): "ctrl+zz" is not a key`},
		{[]string{"COCKPIT_PREFIX=ctrl+zz"}, []string{"open"}, `cockpit open: --prefix (or $COCKPIT_PREFIX): "ctrl+zz" is not a key`},
		{nil, []string{"engine", "--prefix", "C-i", "--project-root", dir, "--run-manifest", "m.json"}, `"C-i" cannot be the prefix (a terminal sends it as tab)`},
		{[]string{"COCKPIT_PREFIX=hyper+a"}, []string{"demo"}, `cockpit demo: $COCKPIT_PREFIX: "hyper+a" is not a key`},
	} {
		res := cockpit(t, dir, c.env, c.args...)
		if res.code != 2 || strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 || !strings.Contains(res.stderr, c.want) {
			t.Errorf("%v %v: exit %d, stderr %q; want 2 and one line with %q", c.env, c.args, res.code, res.stderr, c.want)
		}
	}
}
