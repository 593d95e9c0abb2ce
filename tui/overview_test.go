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

// overviewFixture is a run of three batches: the first reclaimed (its
// panes closed: a completed worker with a result, a failed one with a log,
// one that never ran), the second with two live panes (one running, one
// done), the third a verifier still running in a live pane. Usage is known
// for some workers, priced or not.
type overviewFixture struct {
	hs               *harness
	root             string
	lead, live, done string // pane ids
	verifier         string
}

const failedLog = "starting gemini-3.1-pro\r\nreading the prompt…\r\n\x1b[31mError: quota exceeded for model gemini-3.1-pro\x1b[0m\r\nexit status 1\r\n"

const resultMD = "# Codex analysis\n\nThe **legacy order** must stay.\n\n- columns: `id`, `name`\n- risk: low\n\n```go\nfmt.Println(\"ok\")\n```\n"

func newOverviewFixture(t *testing.T, w, h int, opts ...func(*Config)) *overviewFixture {
	t.Helper()
	root := t.TempDir()
	for name, body := range map[string]string{
		"prompts/antigravity.md.log": failedLog,
		"results/codex.md":           resultMD,
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts = append(opts, func(c *Config) { c.ProjectRoot = root })
	hs := newHarness(t, w, h, opts...)
	f := &overviewFixture{hs: hs, root: root}
	f.lead = hs.open("lead", true, "static", "LEAD")
	f.live = hs.open("Claude analyser · sonnet", false, "static", "LIVE")
	f.done = hs.open("Codex reviewer · gpt-6.1-sol", false, "static", "DONE")
	f.verifier = hs.open("Codex verifier · gpt-6.1-sol", false, "static", "VERIFY")
	at := func(ago time.Duration) string { return testNow.Add(-ago).Format(time.RFC3339) }
	one := 1
	v := runView()
	v.Dispatches = []state.Dispatch{
		{DispatchID: "dispatch-001", DispatchKind: "initial", PaneID: "pane-90", ExecutionLabel: "Codex analyser · gpt-6.1-sol", Model: "gpt-6.1-sol", Status: state.StatusCompleted, DispatchedAt: at(20 * time.Minute), SettledAt: at(16 * time.Minute), PromptPath: "prompts/codex.md", LogPath: "prompts/codex.md.log", ResultPath: "results/codex.md"},
		{DispatchID: "dispatch-002", DispatchKind: "initial", PaneID: "pane-91", ExecutionLabel: "Antigravity analyser · gemini-3.1-pro", Model: "gemini-3.1-pro", Status: state.StatusError, Reason: "exited 1 without a result", ExitCode: &one, DispatchedAt: at(20 * time.Minute), SettledAt: at(19*time.Minute + 48*time.Second), PromptPath: "prompts/antigravity.md", LogPath: "prompts/antigravity.md.log", ResultPath: "results/antigravity.md"},
		{DispatchID: "dispatch-003", DispatchKind: "initial", ExecutionLabel: "Kimi analyser · kimi-k3", Model: "kimi-k3", Status: state.StatusNotRun, Reason: "kimi is not installed", DispatchedAt: at(20 * time.Minute), SettledAt: at(20 * time.Minute)},
		{DispatchID: "dispatch-004", DispatchKind: "reverify-r1", PaneID: f.live, ExecutionLabel: "Claude analyser · sonnet", Model: "sonnet", Status: state.StatusInProgress, DispatchedAt: at(8 * time.Minute), PromptPath: "prompts/claude.md", ResultPath: "results/claude.md"},
		{DispatchID: "dispatch-005", DispatchKind: "reverify-r1", PaneID: f.done, ExecutionLabel: "Codex reviewer · gpt-6.1-sol", Model: "gpt-6.1-sol", Status: state.StatusCompleted, DispatchedAt: at(8 * time.Minute), SettledAt: at(5 * time.Minute), PromptPath: "prompts/reviewer.md", ResultPath: "results/reviewer.md"},
		{DispatchID: "dispatch-006", DispatchKind: "reverify-r2", PaneID: f.verifier, ExecutionLabel: "Codex verifier · gpt-6.1-sol", Model: "gpt-6.1-sol", Status: state.StatusInProgress, DispatchedAt: at(2 * time.Minute), PromptPath: "prompts/verifier.md"},
	}
	v.BatchKind, v.Batch = "reverify-r2", view.Counts{Pending: 1}
	v.Usage = map[string]view.Usage{
		"dispatch-001": {Input: 182_400, Cached: 40_000, Output: 9_100, Model: "gpt-6.1-sol", CostUSD: 1.375, Priced: true},
		"dispatch-004": {Input: 51_000, Cached: 1_200_000, Output: 3_400, Model: "sonnet", CostUSD: 0.92, Priced: true},
		"dispatch-005": {Input: 8_000, Output: 700, Model: "gpt-6.1-sol"},
	}
	hs.send(view.ViewUpdated{View: v})
	hs.waitDrawn()
	return f
}

func TestOverviewGolden(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	for _, size := range [][2]int{{60, 20}, {80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			f := newOverviewFixture(t, size[0], size[1])
			f.hs.key("w")
			if overviewOf(f.hs.app) == nil {
				t.Fatal("w did not open the overview")
			}
			golden.RequireEqual(t, screen(f.hs))
		})
	}
	t.Run("nocolor", func(t *testing.T) {
		f := newOverviewFixture(t, 120, 30, func(c *Config) { c.NoColor = true })
		f.hs.key("w", "g")
		golden.RequireEqual(t, screen(f.hs))
	})
}

// TestOverviewOpensLogs: prefix w from a pane opens the overview on the
// focused pane's dispatch; enter on a live dispatch focuses its pane; on a
// reclaimed one it opens its log replayed in a read-only pane, failure
// output and the dispatch's record included, which scrolls, refuses
// typing, is focused again rather than opened twice, and x closes.
func TestOverviewOpensLogs(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	f := newOverviewFixture(t, 160, 48)
	hs, a := f.hs, f.hs.app
	hs.key("3", "enter") // typing into the Codex reviewer
	if a.mode != modeInput {
		t.Fatal("not typing into the pane")
	}
	hs.key("ctrl+b", "w")
	if overviewOf(a) == nil || overviewOf(a).sel != "dispatch-005" {
		t.Fatalf("prefix w: overview %+v, want dispatch-005 selected", overviewOf(a))
	}
	if got := ansi.Strip(a.statusLine()); !strings.Contains(got, "OVERVIEW") || !strings.Contains(got, "enter: open") {
		t.Fatalf("status line in the overview: %q", got)
	}
	// Up to the live Claude analyser: enter focuses its pane.
	hs.key("k", "enter")
	if overviewOf(a) != nil || a.focused().id != f.live {
		t.Fatalf("enter on a live dispatch: overview %v, focus %s, want %s", overviewOf(a) != nil, a.focused().id, f.live)
	}
	// The failed, reclaimed Antigravity analyser: enter opens its log.
	hs.key("ctrl+b", "w", "g", "j", "enter") // typing: the prefix first
	pv := a.focused()
	if overviewOf(a) != nil || pv == nil || pv.log == nil {
		t.Fatalf("enter on a reclaimed dispatch did not open its log; focus %+v", pv)
	}
	if pv.title != "Antigravity analyser · gemini-3.1-pro" || pv.state() != stateFailed {
		t.Fatalf("log pane title %q, state %v", pv.title, pv.state())
	}
	scr := hs.plain()
	for _, want := range []string{"Error: quota exceeded for model gemini-3.1-pro", "[cockpit: error (exit 1): exited 1 without a re", "━ ✗ 5 12s Antigravity analyser", "… [log]"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the log pane does not show %q:\n%s", want, scr)
		}
	}
	hs.key("enter")
	if a.mode != modeNav || !strings.Contains(a.notice, "read-only") {
		t.Fatalf("enter on a log pane: mode %v, notice %q", a.mode, a.notice)
	}
	hs.key("[", "k")
	if a.mode != modeScroll || !a.scroll.valid {
		t.Fatalf("scroll mode on the log pane: mode %v, scroll %+v", a.mode, a.scroll)
	}
	// Search and copy read the replay too.
	hs.key("/", "q", "u", "o", "t", "a", "enter")
	if f := a.scroll.find; f == nil || len(f.matches) != 1 {
		t.Fatalf("searching the log pane: %+v", a.scroll.find)
	}
	hs.key("q")
	n := len(a.panes)
	hs.key("w", "enter")
	if len(a.panes) != n || a.focused() != pv {
		t.Fatalf("enter again opened a second log pane (%d panes, was %d)", len(a.panes), n)
	}
	hs.key("x")
	if len(a.panes) != n-1 || a.byID[pv.id] != nil || confirmOf(a) != nil {
		t.Fatalf("x did not close the log pane at once: %d panes, confirm %+v", len(a.panes), confirmOf(a))
	}
	// A log that is missing says so, with the dispatch's record.
	hs.key("w", "g", "enter")
	if pv := a.focused(); pv.log == nil || !strings.Contains(hs.plain(), "[cockpit: no log at prompts/codex.md.log: no su") {
		t.Fatalf("missing log:\n%s", hs.plain())
	}
	// A worker whose pane this screen showed and that left no log (a
	// wrapper refusing its invocation writes none): its last screen.
	hs.send(view.PaneClosed{PaneID: f.done, Reason: "reclaim: worker finished"})
	hs.key("w", "G", "k", "enter")
	pv = a.focused()
	if pv.log == nil || pv.dispatchID != "dispatch-005" {
		t.Fatalf("the reclaimed reviewer's log pane: %+v", pv)
	}
	// The whole replay, scrollback included.
	scr = strings.Join(pv.log.View(0, 1000, false).Lines, "\n")
	for _, want := range []string{"[cockpit: no log at prompts/reviewer.md.log", "[cockpit: the pane's last screen:]", "DONE size=", "[cockpit: completed]"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the log pane of a worker without a log does not show %q:\n%s", want, scr)
		}
	}
}

// TestOverviewResult: r renders the result file as markdown in a
// scrollable view; esc goes back; a missing file says so.
func TestOverviewResult(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	f := newOverviewFixture(t, 80, 24)
	hs, a := f.hs, f.hs.app
	hs.key("w", "g", "r")
	rv := resultOf(a)
	if rv == nil || rv.problem != "" || len(rv.lines) == 0 {
		t.Fatalf("r did not render the result: %+v", rv)
	}
	scr := hs.plain()
	for _, want := range []string{"result · Codex analyser · gpt-6.1-sol · results/codex.md", "Codex analysis", "The legacy order must stay.", "• columns:", `fmt.Println("ok")`} {
		if !strings.Contains(scr, want) {
			t.Errorf("the result view does not show %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "**") || strings.Contains(scr, "# Codex") {
		t.Errorf("the markdown is not rendered:\n%s", scr)
	}
	golden.RequireEqual(t, screen(hs))
	hs.key("esc")
	if overviewOf(a) == nil || resultOf(a) != nil {
		t.Fatal("esc did not go back to the overview")
	}
	hs.key("j", "r")
	if rv := resultOf(a); rv == nil || rv.problem != "no result yet: results/antigravity.md does not exist" {
		t.Fatalf("missing result: %+v", rv)
	}
	if !strings.Contains(hs.plain(), "no result yet: results/antigravity.md does not exist") {
		t.Fatalf("missing result not shown:\n%s", hs.plain())
	}
	hs.key("esc", "esc")
	if overviewOf(a) != nil {
		t.Fatal("esc did not close the overview")
	}
}

// TestOverviewKeepsGatesWaiting: a gate arriving while the overview is
// open does not open its dialog over it (enter would answer it): the
// status line names the key, and prefix g opens it from the overview.
func TestOverviewKeepsGatesWaiting(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	f := newOverviewFixture(t, 120, 30)
	hs, a := f.hs, f.hs.app
	hs.key("w")
	v := a.run
	v.Gates = []view.Gate{{ID: "C-007", Kind: state.GateDecision, Statement: "Which order?", Options: []view.GateOption{{Role: "recommended", Answer: "Keep it"}}}}
	hs.send(view.ViewUpdated{View: v})
	if gateOf(a) != nil || overviewOf(a) == nil {
		t.Fatalf("the gate dialog opened over the overview")
	}
	if s := ansi.Strip(a.statusLine()); !strings.Contains(s, "1 gate waiting (ctrl+b g)") || !strings.Contains(a.notice, "gate C-007 is waiting") {
		t.Fatalf("status line %q, notice %q", s, a.notice)
	}
	hs.key("enter") // opens the selected dispatch, answers nothing
	hs.key("ctrl+b", "w", "ctrl+b", "g")
	if gateOf(a) == nil || gateOf(a).id != "C-007" || overviewOf(a) != nil {
		t.Fatalf("prefix g from the overview: dialog %+v, overview open %v", gateOf(a), overviewOf(a) != nil)
	}
}

// TestOverviewScrollsAndClicks: a list taller than the screen follows the
// selection; a click selects a row and a click on the selected row opens
// it.
func TestOverviewScrollsAndClicks(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	f := newOverviewFixture(t, 80, 10)
	hs, a := f.hs, f.hs.app
	hs.key("w", "g")
	if !strings.Contains(hs.plain(), "batch 1 · initial") || strings.Contains(hs.plain(), "Codex verifier") {
		t.Fatalf("the top of the list:\n%s", hs.plain())
	}
	hs.key("G")
	if !strings.Contains(hs.plain(), "Codex verifier") || strings.Contains(hs.plain(), "Codex analyser") {
		t.Fatalf("the bottom of the list:\n%s", hs.plain())
	}
	y := -1
	for row, i := range overviewOf(a).rowAt {
		if a.run.Dispatches[i].DispatchID == "dispatch-005" {
			y = row
		}
	}
	if y < 0 {
		t.Fatalf("the Codex reviewer's row is not shown:\n%s", hs.plain())
	}
	hs.send(tea.MouseClickMsg{X: 10, Y: y, Button: tea.MouseLeft})
	if overviewOf(a) == nil || overviewOf(a).sel != "dispatch-005" {
		t.Fatalf("a click did not select the row: %+v", overviewOf(a))
	}
	hs.send(tea.MouseClickMsg{X: 10, Y: y, Button: tea.MouseLeft})
	if overviewOf(a) != nil || a.focused().id != f.done {
		t.Fatalf("a click on the selected row did not open its pane (focus %s)", a.focused().id)
	}
}

// TestOverviewFitsNarrow: at every width each overview row is exactly
// that wide, and a cut row ends with "…".
func TestOverviewFitsNarrow(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	f := newOverviewFixture(t, 120, 30)
	hs, a := f.hs, f.hs.app
	hs.key("w")
	for w := 24; w <= 120; w++ {
		hs.send(tea.WindowSizeMsg{Width: w, Height: 30})
		rows := strings.Split(hs.plain(), "\n")
		for y, i := range overviewOf(a).rowAt {
			row := rows[y]
			if ansi.StringWidth(row) != w {
				t.Fatalf("at %d: row %d is %d wide: %q", w, y, ansi.StringWidth(row), row)
			}
			d := a.run.Dispatches[i]
			if cost := usageCost(a.run.Usage[d.DispatchID], a.run.Usage[d.DispatchID] != (view.Usage{}), "?"); !strings.HasSuffix(strings.TrimRight(row, " "), cost) && !strings.HasSuffix(strings.TrimRight(row, " "), "…") {
				t.Errorf("at %d: a row neither ends with its cost %q nor with …: %q", w, cost, row)
			}
		}
	}
}
