package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/demo"
)

// tmuxSession is a real terminal for screen tests: a detached tmux session
// on a private server, driven with send-keys and read with capture-pane.
type tmuxSession struct {
	t      *testing.T
	server string
}

// needTmux skips when tmux is missing, except under CI, where .ci/run
// installs it and a missing tmux is a failure.
func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux not found, and CI=true: .ci/run must install it")
		}
		t.Skip("tmux not found; install it to run the screen tests")
	}
}

// newTmux starts `shell` (one command line, run by tmux's shell) in a
// cols×rows session.
func newTmux(t *testing.T, cols, rows int, env []string, shell string) *tmuxSession {
	t.Helper()
	testenv.SkipShort(t, "tmux end to end")
	needTmux(t)
	s := &tmuxSession{t: t, server: fmt.Sprintf("cockpit-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	args := []string{"new-session", "-d", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows)}
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	args = append(args, shell)
	if out, err := s.cmd(args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := s.cmd("display-message", "-p", "#{socket_path}").Output(); err == nil {
			defer os.Remove(strings.TrimSpace(string(out)))
		}
		s.cmd("kill-server").Run()
	})
	return s
}

func (s *tmuxSession) cmd(args ...string) *exec.Cmd {
	return exec.Command("tmux", append([]string{"-L", s.server, "-f", "/dev/null"}, args...)...)
}

// keys sends tmux key names (e.g. "Right", "z", "Enter").
func (s *tmuxSession) keys(keys ...string) {
	s.t.Helper()
	if out, err := s.cmd(append([]string{"send-keys", "-t", "0"}, keys...)...).CombinedOutput(); err != nil {
		s.t.Fatalf("send-keys %v: %v: %s", keys, err, out)
	}
}

// typeText sends literal text.
func (s *tmuxSession) typeText(text string) {
	s.t.Helper()
	if out, err := s.cmd("send-keys", "-t", "0", "-l", text).CombinedOutput(); err != nil {
		s.t.Fatalf("send-keys -l: %v: %s", err, out)
	}
}

// screen is the visible text of the session's pane (flags: more
// capture-pane flags, "-J" to join wrapped lines).
func (s *tmuxSession) screen(flags ...string) string {
	s.t.Helper()
	out, err := s.cmd(append([]string{"capture-pane", "-p", "-t", "0"}, flags...)...).Output()
	if err != nil {
		s.t.Fatalf("capture-pane: %v", err)
	}
	return string(out)
}

// waitScreen waits until the screen satisfies cond, failing with the last
// screen after d.
func (s *tmuxSession) waitScreen(what string, d time.Duration, cond func(string) bool) string {
	s.t.Helper()
	var scr string
	if !poll(d, func() bool { scr = s.screen(); return cond(scr) }) {
		s.t.Fatalf("timed out after %s waiting for %s; screen:\n%s", d, what, scr)
	}
	return scr
}

func (s *tmuxSession) waitFor(text string, d time.Duration) string {
	s.t.Helper()
	return s.waitScreen(fmt.Sprintf("%q", text), d, func(scr string) bool { return strings.Contains(scr, text) })
}

// titleLine returns the title bar of the pane whose title contains label:
// the piece of a screen line between pane borders (│) that holds it.
func titleLine(scr, label string) string {
	for _, l := range strings.Split(scr, "\n") {
		for _, seg := range strings.Split(l, "│") {
			seg = strings.TrimSpace(seg)
			isTitle := strings.HasPrefix(seg, "─ ") || strings.HasPrefix(seg, "━ ")
			if isTitle && strings.Contains(seg, label) {
				return seg
			}
		}
	}
	return ""
}

// focusedTitle reports whether the pane titled label is drawn focused: a
// focused pane's title bar is a heavy line (━), the others light (─).
func focusedTitle(scr, label string) bool {
	return strings.HasPrefix(titleLine(scr, label), "━")
}

// exitFile is where the test shell writes the exit status of the command
// under test, so a test can check the program ended cleanly.
func exitFile(t *testing.T) string { return filepath.Join(t.TempDir(), "exit") }

func readExit(t *testing.T, path string, d time.Duration) string {
	t.Helper()
	var data []byte
	waitFor(t, "the program to exit", d, func() bool {
		var err error
		data, err = os.ReadFile(path)
		return err == nil && len(data) > 0
	})
	return strings.TrimSpace(string(data))
}

// TestDemoScreen runs `cockpit demo` in a real 160×48 terminal: every pane
// title shows, the counts go from pending=4 done=0 to done=4, focus and
// zoom keys work, ctrl+b d detaches and cockpit attach brings it back as it
// was, and q e ends the run, the program and the engine cleanly.
func TestDemoScreen(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	exit, reg := exitFile(t), engineRegistry(t)
	s := newTmux(t, 160, 48, nil, fmt.Sprintf("env COCKPIT_REGISTRY=%s %s demo --slow-work 8s; echo $? > %s; sleep 600", reg, cockpitBin, exit))
	labels := []string{"● 1 lead", "Codex analyser · sim", "Antigravity analyser · sim", "Claude analyser · sim", "Grok analyser · sim"}
	scr := s.waitScreen("every pane title", 20*time.Second, func(scr string) bool {
		for _, l := range labels {
			if titleLine(scr, l) == "" {
				return false
			}
		}
		return true
	})
	s.waitFor("pending=4 done=0", 10*time.Second)
	if !focusedTitle(scr, "● 1 lead") || focusedTitle(scr, "Codex analyser") {
		t.Errorf("the lead pane should start focused:\n%s", scr)
	}
	// Focus moves right, to the first worker (the screen types into the
	// lead at start: the prefix first).
	s.keys("C-b", "Right")
	scr = s.waitScreen("focus on the Codex pane", 5*time.Second, func(scr string) bool {
		return focusedTitle(scr, "Codex analyser")
	})
	if focusedTitle(scr, "● 1 lead") {
		t.Errorf("the lead still looks focused:\n%s", scr)
	}
	// Zoom shows the focused pane alone; z again restores the grid.
	s.keys("z")
	s.waitScreen("the zoomed Codex pane", 5*time.Second, func(scr string) bool {
		return strings.Contains(scr, "Codex analyser") && !strings.Contains(scr, "Grok analyser")
	})
	s.keys("z")
	s.waitScreen("the grid back", 5*time.Second, func(scr string) bool {
		return strings.Contains(scr, "Codex analyser") && strings.Contains(scr, "Grok analyser")
	})
	// The demo detaches (its engine and workers go on) and comes back on
	// another terminal, as it was: the Codex pane focused.
	s.keys("C-b", "d")
	if code := readExit(t, exit, 20*time.Second); code != "0" {
		t.Fatalf("cockpit demo exited %s after ctrl+b d", code)
	}
	// It says how to come back and how to end it, by the engine's name,
	// and when the demo ends by itself.
	scr = s.waitJoined("ends the run", 5*time.Second)
	if want := "detached from demo-1-001 (" + demo.RunManifest + "); `cockpit attach demo-1-001` comes back, `cockpit stop demo-1-001` ends the run; the demo ends once no screen has been attached for 1m"; !strings.Contains(strings.ReplaceAll(scr, "\n", ""), want) {
		t.Errorf("the demo's come-back line is not %q:\n%s", want, scr)
	}
	// attach NAME, as tmux attach -t: the name the line gave.
	s, exit = attachClient(t, reg, 160, 48, "demo-1-001")
	scr = s.waitScreen("the demo again", 10*time.Second, func(scr string) bool {
		return titleLine(scr, "Codex analyser") != "" && titleLine(scr, "Grok analyser") != ""
	})
	if !focusedTitle(scr, "Codex analyser") {
		t.Errorf("the Codex pane should still be focused after attaching again:\n%s", scr)
	}
	// The batch settles and the lead reclaims the finished panes.
	s.waitFor("pending=0 done=4", 40*time.Second)
	s.waitFor("phase-batch-cleanup panes=4", 20*time.Second)
	s.waitScreen("the worker panes to close", 10*time.Second, func(scr string) bool {
		return titleLine(scr, "Grok analyser") == ""
	})
	// The lead asks a gate; the human takes the recommended answer.
	scr = s.waitFor("Gate C-001", 20*time.Second)
	for _, want := range []string{"Keep the legacy order", "Sort the columns alphabetically"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the gate does not show %q:\n%s", want, scr)
		}
	}
	s.keys("Enter")
	s.waitFor("The demo is over", 20*time.Second)
	s.keys("q")
	s.waitFor("Detach, or end the run?", 5*time.Second)
	s.keys("e")
	if code := readExit(t, exit, 20*time.Second); code != "0" {
		t.Fatalf("cockpit attach (the demo) exited %s after q e", code)
	}
	waitFor(t, "the demo's engine to exit", 30*time.Second, func() bool { return len(registeredPIDs(reg)) == 0 })
}

// settle waits, after an action, for the screen to differ from before and
// then to hold still for a moment: the program has answered the action.
// An action that changes nothing gives up waiting for the change after 2s.
func (s *tmuxSession) settle(before string) {
	s.t.Helper()
	cur := s.screen()
	poll(2*time.Second, func() bool { cur = s.screen(); return cur != before })
	stable := 0
	poll(time.Minute, func() bool {
		next := s.screen()
		if next == cur {
			stable++
		} else {
			cur, stable = next, 0
		}
		return stable >= 6 // unchanged for about 120ms
	})
}
