package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// The screen's parts alone (issue 17: each overlay and region testable by
// itself): each is built on a bare screenEnv, with no App, no panes and no
// Manager, and drawn over an empty screen at 60×20, 80×24 and 160×48. The
// goldens are plain text (the styled screens are the other goldens').

var aloneSizes = [][2]int{{60, 20}, {80, 24}, {160, 48}}

// aloneEnv is the environment a part reads: fixed clock, no colour, a run
// with three batches of dispatches, two gates waiting, files under root.
func aloneEnv(t *testing.T, w, h int) *screenEnv {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "results", "codex.md"), []byte(resultMD), 0o644); err != nil {
		t.Fatal(err)
	}
	st := NewStyles(DefaultPalette(), true)
	e := &screenEnv{
		keys: NewKeyMap(""), st: st, now: func() time.Time { return testNow },
		width: w, height: h, areaTop: 1, areaBottom: h - 1, statusRow: h - 1,
		haveRun: true, attached: true,
		paneNumber: func(id string) int {
			if id == "dispatch-004" {
				return 2
			}
			return 0
		},
		resolve: func(rel string) (string, error) { return filepath.Join(root, rel), nil },
	}
	e.glyphs, e.attn = styleGlyphs(st)
	at := func(ago time.Duration) string { return testNow.Add(-ago).Format(time.RFC3339) }
	one := 1
	e.run = runView()
	e.run.Dispatches = []state.Dispatch{
		{DispatchID: "dispatch-001", DispatchKind: "initial", ExecutionLabel: "Codex analyser · gpt-6.1-sol", Model: "gpt-6.1-sol", Status: state.StatusCompleted, DispatchedAt: at(20 * time.Minute), SettledAt: at(16 * time.Minute), ResultPath: "results/codex.md"},
		{DispatchID: "dispatch-002", DispatchKind: "initial", ExecutionLabel: "Antigravity analyser · gemini-3.1-pro", Model: "gemini-3.1-pro", Status: state.StatusError, Reason: "✗ error: the model refused", ExitCode: &one, DispatchedAt: at(20 * time.Minute), SettledAt: at(19*time.Minute + 48*time.Second)},
		{DispatchID: "dispatch-003", DispatchKind: "initial", ExecutionLabel: "Kimi analyser · kimi-k3", Model: "kimi-k3", Status: state.StatusNotRun, Reason: "kimi is not installed", DispatchedAt: at(20 * time.Minute), SettledAt: at(20 * time.Minute)},
		{DispatchID: "dispatch-004", DispatchKind: "reverify-r1", ExecutionLabel: "Claude analyser · sonnet", Model: "sonnet", Status: state.StatusInProgress, DispatchedAt: at(8 * time.Minute)},
	}
	e.run.BatchKind, e.run.Batch = "reverify-r1", view.Counts{Pending: 1}
	e.run.Usage = map[string]view.Usage{
		"dispatch-001": {Input: 182_400, Cached: 40_000, Output: 9_100, CostUSD: 1.375, Priced: true},
		"dispatch-004": {Input: 51_000, Cached: 1_200_000, Output: 3_400, CostUSD: 0.92, Priced: true, CostSource: view.CostCLI},
	}
	e.run.Gates = []view.Gate{decisionGate, authoringGate}
	return e
}

// drawAlone draws o over an empty screen, as the root would, with the
// status line it takes or the keys it pins (if any) on the last row.
func drawAlone(e *screenEnv, o overlay) string {
	rows := make([]string, e.height)
	for i := range rows {
		rows[i] = strings.Repeat("·", e.width)
	}
	// The status line first, the overlay over it: the root's order.
	line := ""
	if s, ok := o.(statusTaker); ok {
		line = s.StatusLine(e.width)
	}
	if h, ok := o.(hinter); ok && line == "" && h.Hint() != "" {
		line = statusBar{env: e, badge: h.Badge(), hint: h.Hint()}.View()
	}
	if line != "" {
		rows[e.statusRow] = line
	}
	o.Draw(rows)
	out := ansi.Strip(strings.Join(rows, "\n"))
	for _, l := range strings.Split(out, "\n") {
		if ansi.StringWidth(l) != e.width {
			return fmt.Sprintf("a row is %d cells wide, not %d: %q", ansi.StringWidth(l), e.width, l)
		}
	}
	return out + "\n"
}

// runCmd runs cmd and hands its messages to o, as the root would.
func runCmd(o overlay, cmd tea.Cmd) {
	for _, m := range collect(cmd) {
		if act, ok := o.HandleMsg(m).(actCmd); ok {
			runCmd(o, act.cmd)
		}
	}
}

func TestPartsAlone(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	parts := []struct {
		name string
		make func(e *screenEnv) overlay
	}{
		{"help", func(e *screenEnv) overlay { return newHelp(e) }},
		{"help_scrolled", func(e *screenEnv) overlay {
			h := newHelp(e)
			h.box()
			h.HandleMsg(keyPress("pgdown"))
			return h
		}},
		{"gate_decision", func(e *screenEnv) overlay {
			d := newGateDialog(e, "C-003")
			d.HandleMsg(keyPress("down"))
			for _, r := range "importers first" {
				d.HandleMsg(keyPress(strings.ReplaceAll(string(r), " ", "space")))
			}
			return d
		}},
		{"gate_authoring_refused", func(e *screenEnv) overlay {
			d := newGateDialog(e, "report-authoring")
			d.HandleMsg(keyPress("enter"))
			return d
		}},
		{"gate_authoring_deny", func(e *screenEnv) overlay {
			// The trial's keys (finding 1): enter refused, a typed d is
			// text, down chooses deny; the dialog says what enter sends.
			d := newGateDialog(e, "report-authoring")
			d.HandleMsg(keyPress("enter"))
			d.HandleMsg(keyPress("d"))
			d.HandleMsg(keyPress("backspace"))
			d.HandleMsg(keyPress("down"))
			for _, r := range "the writer must retry first" {
				d.HandleMsg(keyPress(strings.ReplaceAll(string(r), " ", "space")))
			}
			return d
		}},
		{"gate_not_recorded", func(e *screenEnv) overlay {
			d := newGateDialog(e, "C-003")
			d.HandleMsg(keyPress("enter"))
			d.HandleMsg(gateAnsweredMsg{ans: view.GateAnswer{GateID: "C-003"}, err: fmt.Errorf("write /work/project/.okstra/dev-10860/reports/user-response-feature-analysis-002.md: no space left on device")})
			return d
		}},
		{"overview", func(e *screenEnv) overlay { return newOverview(e, "dispatch-002") }},
		{"result", func(e *screenEnv) overlay {
			ov := newOverview(e, "dispatch-001")
			rv := ov.openResult(0).(actPush).o.(*resultView)
			runCmd(rv, rv.Init())
			return rv
		}},
		{"end_dialog", func(e *screenEnv) overlay {
			return &confirmOverlay{env: e, kind: confirmEnd, waiting: []string{"⚑ 2 gates are waiting: C-003, report-authoring", "● 1 worker is still running"}}
		}},
		{"quit_question", func(e *screenEnv) overlay {
			return &confirmOverlay{env: e, kind: confirmQuit, text: "gate C-003 is waiting, 1 worker pane is still running — quit anyway?", keys: "q/y: quit, any other key: stay"}
		}},
		{"close_running", func(e *screenEnv) overlay {
			return &confirmOverlay{env: e, kind: confirmClose, paneID: "pane-4", keys: "y: close, any other key: keep",
				text: "Claude analyser · sonnet (pane-4) is still running: close it? That stops it, and the run records it failed"}
		}},
		{"search_prompt", func(e *screenEnv) overlay {
			p := newSearchPrompt(e, true, "")
			for _, r := range "the model refused" {
				p.HandleMsg(keyPress(strings.ReplaceAll(string(r), " ", "space")))
			}
			return p
		}},
	}
	for _, p := range parts {
		for _, sz := range aloneSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", p.name, sz[0], sz[1]), func(t *testing.T) {
				e := aloneEnv(t, sz[0], sz[1])
				golden.RequireEqual(t, drawAlone(e, p.make(e)))
			})
		}
	}
}

// TestRegionsAlone: the header, the status bar in each of its states and
// the timeline, each drawn from a bare screenEnv at the three sizes.
func TestRegionsAlone(t *testing.T) {
	for _, sz := range aloneSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			e := aloneEnv(t, sz[0], sz[1])
			var b strings.Builder
			line := func(name, s string) {
				s = ansi.Strip(s)
				if ansi.StringWidth(s) != e.width {
					t.Fatalf("%s is %d cells wide, not %d: %q", name, ansi.StringWidth(s), e.width, s)
				}
				fmt.Fprintf(&b, "%-14s|%s|\n", name, s)
			}
			line("header", headerBar{e}.View())
			nav := "?: help · enter: type · w: overview · d: detach · q: detach or end"
			input := "ctrl+b esc: navigation · ctrl+b ?: keys · ctrl+b d: detach · ctrl+b [: scroll"
			line("nav", statusBar{env: e, badge: "NAV", hint: nav, gateKey: "g"}.View())
			line("input", statusBar{env: e, badge: "INPUT", hint: input, gateKey: "ctrl+b g"}.View())
			line("input notice", statusBar{env: e, badge: "INPUT", hint: input, gateKey: "ctrl+b g",
				notice: "Antigravity analyser failed: exit 1: ✗ error: the model refused"}.View())
			line("prefix", statusBar{env: e, badge: "PREFIX", hint: "?: all keys · esc: navigation · z: zoom · ←↓↑→: focus · [: scroll · w: overview · d: detach", gateKey: "g"}.View())
			line("scroll", statusBar{env: e, badge: "SCROLL", hint: "q: leave · / ?: search · v: select", gateKey: "ctrl+b g", notice: "copied 42 chars"}.View())
			line("gate open", statusBar{env: e, badge: "GATE"}.View())
			rows := make([]string, 6)
			timelinePanel{e}.Draw(rows, rect{W: e.width, H: len(rows)})
			for i, r := range rows {
				if r == "" {
					r = blank(e.width)
				}
				line(fmt.Sprintf("timeline %d", i), r)
			}
			golden.RequireEqual(t, b.String())
		})
	}
}
