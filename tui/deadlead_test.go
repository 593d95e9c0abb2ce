package tui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/runtime/view"
)

// respawnTo is a Config option whose RespawnLead starts argv in the lead's
// pane, as the engine does with the lead's command; respawns counts calls.
func respawnTo(respawns *int, lead *string, argv ...string) func(*Config) {
	return func(c *Config) {
		mgr := c.Manager
		c.Actions.RespawnLead = func() error {
			*respawns++
			_, err := mgr.Respawn(*lead, panes.Config{Argv: argv, Cols: 40, Rows: 10, CloseGrace: 300 * time.Millisecond})
			return err
		}
	}
}

func typeIntoLead(c *Config) { c.TypeIntoLead = true }

// TestDeadLead: a new screen types into the lead; when the lead's program
// exits the screen stops typing (keys would go nowhere) and the pane says
// how it ended and that enter starts it again; enter does, and typing
// goes on into the new program. A read-only screen only says how it ended.
func TestDeadLead(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	var respawns int
	var lead string
	out := filepath.Join(t.TempDir(), "keys")
	hs := newHarness(t, 80, 24, attached, typeIntoLead, respawnTo(&respawns, &lead, paneprog(), "keys", out))
	p, err := hs.mgr.Open(panes.Config{Argv: []string{"/bin/sh", "-c", `printf 'the lead asks: '; read line; echo "got $line"; exit 4`}, Cols: 40, Rows: 10})
	if err != nil {
		t.Fatal(err)
	}
	lead = p.ID()
	hs.send(view.PaneOpened{PaneID: lead, Title: "lead", Lead: true})
	hs.open("codex-analyser-1", false, "static", "W1")
	if hs.app.mode != modeInput || hs.app.focused().id != lead {
		t.Fatalf("a new screen is in %v on %s, want typing into the lead %s", hs.app.mode, hs.app.focused().id, lead)
	}
	hs.waitFor("the lead's question", func() bool { return strings.Contains(hs.plain(), "the lead asks:") })
	hs.key("h", "i", "enter")
	hs.waitFor("the lead to exit", func() bool { return hs.app.byID[lead].snap.Exited })
	if hs.app.mode != modeNav {
		t.Fatalf("typing into a dead lead: mode %v, want navigation", hs.app.mode)
	}
	// A key or a paste that reaches a dead pane still in input mode (typed
	// before the frame that shows the exit) is dropped and typing stops.
	hs.app.mode, hs.app.notice = modeInput, ""
	hs.send(tea.PasteMsg{Content: "lost"})
	if hs.app.mode != modeNav || hs.app.notice != "" {
		t.Fatalf("a paste into the dead lead: mode %v, notice %q", hs.app.mode, hs.app.notice)
	}
	hs.app.mode = modeInput
	hs.key("x")
	if hs.app.mode != modeNav || hs.app.notice != "" {
		t.Fatalf("typing into a dead lead: mode %v, want navigation", hs.app.mode)
	}
	if !strings.Contains(hs.plain(), "lead exited (code 4) — enter restarts") || !strings.Contains(hs.plain(), "got hi") {
		t.Fatalf("the dead lead's pane:\n%s", hs.plain())
	}
	hs.waitDrawn()
	golden.RequireEqual(t, screen(hs))

	// A read-only screen on the same panes: no offer, enter refused.
	ro := newHarnessOn(t, hs.mgr, 80, 24, attached, readOnly, respawnTo(&respawns, &lead, paneprog(), "keys", out))
	ro.send(view.PaneOpened{PaneID: lead, Title: "lead", Lead: true})
	ro.waitFor("the dead lead", func() bool { return strings.Contains(ro.plain(), "lead exited (code 4)") })
	ro.key("enter")
	if strings.Contains(ro.plain(), "enter restarts") || respawns != 0 || !strings.Contains(ro.app.notice, "read-only") {
		t.Fatalf("read-only: respawns %d, notice %q:\n%s", respawns, ro.app.notice, ro.plain())
	}

	// Enter on the dead lead starts it again, typing into it.
	hs.key("enter")
	if respawns != 1 {
		t.Fatalf("enter on the dead lead: %d respawns", respawns)
	}
	if hs.app.mode != modeInput || hs.app.focused().id != lead {
		t.Fatalf("after the respawn: mode %v on %s, want typing into %s", hs.app.mode, hs.app.focused().id, lead)
	}
	hs.waitFor("the new lead", func() bool { return strings.Contains(hs.plain(), "keys ready") })
	if strings.Contains(hs.plain(), "lead exited") || strings.Contains(hs.plain(), "got hi") {
		t.Fatalf("the respawned lead still shows the dead one:\n%s", hs.plain())
	}
	hs.key("o", "k")
	waitFile(t, out, "ok")
	// Enter on a worker that exited only says so.
	w := hs.open("codex-analyser-2", false, "exit", "0")
	hs.waitFor("the worker to exit", func() bool { return hs.app.byID[w].snap.Exited })
	hs.key("ctrl+b", "3")
	hs.key("enter")
	if hs.app.mode != modeNav || respawns != 1 || hs.app.notice != "codex-analyser-2 has exited" {
		t.Fatalf("enter on an exited worker: mode %v, respawns %d, notice %q", hs.app.mode, respawns, hs.app.notice)
	}
}

// TestFirstKeyReachesLead: a key typed before the lead's pane reached the
// screen (its announcement is on its way) goes to the lead; then the
// screen types into it; the prefix still leaves it.
func TestFirstKeyReachesLead(t *testing.T) {
	mgr := panes.NewManager()
	out := filepath.Join(t.TempDir(), "keys")
	hs := newHarnessOn(t, mgr, 100, 30, attached, typeIntoLead, func(c *Config) { c.LeadPane = "pane-1" })
	p, err := mgr.Open(panes.Config{Argv: []string{paneprog(), "keys", out}, Cols: 40, Rows: 10, CloseGrace: 300 * time.Millisecond})
	if err != nil || p.ID() != "pane-1" {
		t.Fatalf("open the lead: %v %v", p, err)
	}
	deadline := time.Now().Add(testenv.Scale(10 * time.Second))
	for !strings.Contains(strings.Join(p.Capture(false), "\n"), "keys ready") {
		if time.Now().After(deadline) {
			t.Fatal("the keys program did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	hs.key("a") // before any frame or announcement brought the pane
	waitFile(t, out, "a")
	hs.waitFor("the lead's pane", func() bool { return hs.app.byID["pane-1"] != nil })
	if hs.app.mode != modeInput || hs.app.focused().id != "pane-1" {
		t.Fatalf("mode %v on %v, want typing into the lead", hs.app.mode, hs.app.focused())
	}
	hs.key("b")
	waitFile(t, out, "ab")
	hs.key("ctrl+b", "t")
	if hs.app.mode != modeInput || hs.app.showTimeline {
		t.Fatalf("prefix t: mode %v timeline %v", hs.app.mode, hs.app.showTimeline)
	}
	// A restored view state wins over typing into the lead.
	vs := ViewState{Focus: "pane-1"}
	hs2 := newHarnessOn(t, mgr, 100, 30, attached, typeIntoLead, func(c *Config) { c.LeadPane = "pane-1"; c.Restore = &vs })
	hs2.waitFor("the lead's pane", func() bool { return hs2.app.byID["pane-1"] != nil })
	if hs2.app.mode != modeNav {
		t.Fatalf("a restored navigating screen is in %v", hs2.app.mode)
	}
}
