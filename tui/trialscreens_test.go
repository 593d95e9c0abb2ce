package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/runtime/view"
)

// The screens of issue 17's findings, each as a golden at 60×20, 80×24 and
// 160×48 (the parts alone are alone_test.go's; these are whole screens
// with real programs in real panes).

var trialSizes = [][2]int{{60, 20}, {80, 24}, {160, 48}}

func sizeName(sz [2]int) string { return fmt.Sprintf("%dx%d", sz[0], sz[1]) }

// scripted is the demo's screen: its lead is a script (finding 4).
func scripted(c *Config) { c.ScriptedLead = true; c.LeadPane = "pane-1" }

// TestScriptedLeadGolden (finding 4): the demo's screen starts in
// navigation, its intro's keys true from the first one: the first screen
// says NAV and the navigation keys.
func TestScriptedLeadGolden(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	for _, sz := range trialSizes {
		t.Run(sizeName(sz), func(t *testing.T) {
			hs := newHarness(t, sz[0], sz[1], attached, typeIntoLead, scripted)
			hs.open("lead", true, "static", "LEAD")
			w1 := hs.open("codex-analyser-1", false, "static", "WORKER-1")
			hs.send(view.ViewUpdated{View: runView(dispatchSpec{pane: w1, label: "codex-analyser-1", status: "in-progress", ago: 42 * time.Second})})
			hs.waitDrawn()
			if hs.app.mode != modeNav || strings.Contains(hs.app.statusLine(), "enter: type") {
				t.Fatalf("the demo's screen starts in %v, saying %q", hs.app.mode, hs.app.statusLine())
			}
			golden.RequireEqual(t, screen(hs))
		})
	}
}

// TestScriptedLeadKeys (finding 4): on the demo's screen the keys its
// intro lists are the screen's: ? is the help, enter and i on the lead
// say it is a script, the arrows move the focus; nothing reaches the
// script's terminal.
func TestScriptedLeadKeys(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	mgr := panes.NewManager()
	out := filepath.Join(t.TempDir(), "keys")
	hs := newHarnessOn(t, mgr, 100, 30, attached, typeIntoLead, scripted)
	p, err := mgr.Open(panes.Config{Argv: []string{paneprog(), "keys", out}, Cols: 40, Rows: 10, CloseGrace: 300 * time.Millisecond})
	if err != nil || p.ID() != "pane-1" {
		t.Fatalf("open the lead: %v %v", p, err)
	}
	hs.send(view.PaneOpened{PaneID: "pane-1", Title: "lead", Lead: true})
	hs.open("codex-analyser-1", false, "static", "WORKER-1")
	hs.waitFor("the script's terminal", func() bool { return strings.Contains(strings.Join(p.Capture(false), "\n"), "keys ready") })
	hs.key("?")
	if !helpOpen(hs.app) {
		t.Fatal("? on the demo's first screen is not the help")
	}
	hs.key("esc", "enter")
	if hs.app.mode != modeNav || !strings.Contains(hs.app.notice, "the lead is a script") {
		t.Fatalf("enter on the script: mode %v, notice %q", hs.app.mode, hs.app.notice)
	}
	hs.key("i", "ctrl+b", "ctrl+b")
	if hs.app.mode != modeNav {
		t.Fatalf("i, prefix prefix on the script: mode %v", hs.app.mode)
	}
	hs.key("right")
	if f := hs.app.focused(); f == nil || f.lead {
		t.Fatalf("→ did not move the focus to the worker: %v", f)
	}
	hs.key("left", "x")
	if confirmOf(hs.app) != nil {
		t.Fatal("x on the lead asks to close it")
	}
	for hs.frame(50 * time.Millisecond) {
	}
	if b, _ := os.ReadFile(out); len(b) != 0 {
		t.Fatalf("keys reached the script: %q", b)
	}
}

// TestUnusedAreaGolden (finding 14): a screen larger than the one that
// sized the panes marks what the panes' own cells do not cover with dots,
// as tmux does, at each size (sized by a smaller screen).
func TestUnusedAreaGolden(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	for _, c := range []struct{ big, small [2]int }{
		{[2]int{60, 20}, [2]int{50, 16}},
		{[2]int{80, 24}, [2]int{60, 20}},
		{[2]int{160, 48}, [2]int{80, 24}},
	} {
		t.Run(sizeName(c.big), func(t *testing.T) {
			mgr := panes.NewManager()
			arb := &SizeArbiter{}
			big := newHarnessOn(t, mgr, c.big[0], c.big[1], attached, func(c *Config) { c.Sizes = arb })
			lead := big.open("lead", true, "static", "LEAD")
			w1 := big.open("codex-analyser-1", false, "static", "WORKER-1")
			big.waitDrawn()
			small := newHarnessOn(t, mgr, c.small[0], c.small[1], attached, func(c *Config) { c.Sizes = arb })
			small.send(view.PaneOpened{PaneID: lead, Title: "lead", Lead: true})
			small.send(view.PaneOpened{PaneID: w1, Title: "codex-analyser-1"})
			small.static[lead], small.static[w1] = true, true
			small.waitDrawn()
			checkDrawnAt(t, big, small)
			golden.RequireEqual(t, screen(big))
		})
	}
}
