package tui

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// partsApp is an App without panes or manager, for drawing single parts.
func partsApp(w, h int, noColor bool) *App {
	a := New(Config{Now: func() time.Time { return testNow }, NoColor: noColor})
	a.width, a.height = w, h
	return a
}

func colorModes(t *testing.T, f func(t *testing.T, noColor bool)) {
	t.Run("color", func(t *testing.T) { f(t, false) })
	t.Run("nocolor", func(t *testing.T) { f(t, true) })
}

func TestTitleBarGolden(t *testing.T) {
	colorModes(t, func(t *testing.T, noColor bool) {
		a := partsApp(120, 40, noColor)
		run := runView(
			dispatchSpec{pane: "pane-2", label: "codex-analyser-1", status: "in-progress", ago: 65 * time.Second},
			dispatchSpec{pane: "pane-3", label: "claude-analyser-2", status: "completed", ago: 2 * time.Hour, ran: 75 * time.Minute},
			dispatchSpec{pane: "pane-4", label: "gemini-analyser-3", status: "error", ago: time.Minute, ran: 12 * time.Second},
			dispatchSpec{pane: "pane-5", label: "grok-critic-4", status: "timeout", ago: 40 * time.Minute, ran: 30 * time.Minute},
			dispatchSpec{pane: "pane-6", label: "kimi-critic-5", status: "not-run", ago: time.Minute},
			dispatchSpec{pane: "pane-10", label: "Codex analyser · gpt-6.1-sol", model: "gpt-6.1-sol", status: "in-progress", ago: 3 * time.Minute},
			dispatchSpec{pane: "pane-11", label: "claude-analyser-7", model: "opus", status: "completed", ago: 3 * time.Minute, ran: 2 * time.Minute},
			dispatchSpec{pane: "pane-12", label: "grok-analyser-8", model: "grok-5", status: "error", ago: 3 * time.Minute, ran: time.Minute},
		)
		run.Usage = map[string]view.Usage{
			"d-007": {Input: 2000, Output: 100, CostUSD: 0.4213, Priced: true},
			"d-008": {Input: 2000, Output: 100},
		}
		a.onRunView(run)
		type tc struct {
			name string
			pv   *paneView
			w    int
		}
		mk := func(id, title string) *paneView {
			pv := &paneView{id: id, title: title, hasSnap: true}
			a.applyDispatch(pv)
			return pv
		}
		lead := mk("pane-1", "lead")
		lead.lead = true
		exited := mk("pane-7", "")
		exited.snap.Exited, exited.snap.Status = true, panes.ExitStatus{Code: 3}
		killed := mk("pane-8", "shell")
		killed.snap.Exited, killed.snap.Status = true, panes.ExitStatus{Code: -1, Signal: syscall.SIGKILL}
		clean := mk("pane-9", "make")
		clean.snap.Exited = true
		attention := mk("pane-2", "")
		attention.attention = true
		costly := mk("pane-3", "")
		costly.cost, costly.costKnown = 12.5, true
		titled := mk("pane-2", "")
		titled.snap.Title = "vim README.md"
		cases := []tc{
			{name: "lead focused", pv: lead, w: 60},
			{name: "running", pv: mk("pane-2", ""), w: 60},
			{name: "done", pv: mk("pane-3", ""), w: 60},
			{name: "error", pv: mk("pane-4", ""), w: 60},
			{name: "timeout", pv: mk("pane-5", ""), w: 60},
			{name: "not run", pv: mk("pane-6", ""), w: 60},
			{name: "no dispatch exit 3", pv: exited, w: 60},
			{name: "no dispatch killed", pv: killed, w: 60},
			{name: "no dispatch exit 0", pv: clean, w: 60},
			{name: "attention", pv: attention, w: 60},
			{name: "cost", pv: costly, w: 60},
			{name: "program title", pv: titled, w: 60},
			{name: "narrow 24", pv: costly, w: 24},
			{name: "narrow 12", pv: costly, w: 12},
			{name: "tiny 4", pv: costly, w: 4},
		}
		a.panes = []*paneView{lead}
		a.focus = 0
		// Numbered panes (their 1-9 focus key), with a model and a cost
		// from the run view's usage, cut from the right when narrow.
		modelInLabel := mk("pane-10", "")
		priced := mk("pane-11", "")
		unpriced := mk("pane-12", "")
		a.panes = append(a.panes, modelInLabel, priced, unpriced)
		for _, w := range []int{70, 40, 28, 16} {
			cases = append(cases,
				tc{name: fmt.Sprintf("model in label %d", w), pv: modelInLabel, w: w},
				tc{name: fmt.Sprintf("priced %d", w), pv: priced, w: w},
				tc{name: fmt.Sprintf("unpriced %d", w), pv: unpriced, w: w},
			)
		}
		var b strings.Builder
		for _, c := range cases {
			c.pv.rect = rect{W: c.w, H: 5}
			fmt.Fprintf(&b, "%-20s|%s|\n", c.name, a.titleBar(c.pv))
		}
		// Tags: zoom, input, scroll.
		a.zoom = true
		fmt.Fprintf(&b, "%-20s|%s|\n", "zoomed", a.titleBar(lead))
		a.zoom = false
		a.mode = modeInput
		fmt.Fprintf(&b, "%-20s|%s|\n", "input", a.titleBar(lead))
		a.mode = modeScroll
		lead.snap.ScrollbackLen = 4000
		a.scroll = scrollState{id: lead.id, back: 120}
		fmt.Fprintf(&b, "%-20s|%s|\n", "scroll", a.titleBar(lead))
		golden.RequireEqual(t, b.String())
	})
}

func TestHeaderGolden(t *testing.T) {
	colorModes(t, func(t *testing.T, noColor bool) {
		var b strings.Builder
		a := partsApp(100, 30, noColor)
		fmt.Fprintf(&b, "%-18s|%s|\n", "no run yet", a.headerLine())
		cases := []struct {
			name string
			next *state.NextPhase
			err  string
		}{
			{"ready", &state.NextPhase{Phase: "phase-6-synthesis", Status: "ready", Rationale: "every analyser settled"}, ""},
			// A phase with a pending status is not ready: status decides.
			{"pending with phase", &state.NextPhase{Phase: "phase-7-persist", Status: "pending", Rationale: "waiting on the gate"}, ""},
			{"blocked", &state.NextPhase{Status: "blocked", Rationale: "a worker failed"}, ""},
			{"terminal", &state.NextPhase{Status: "terminal"}, ""},
			{"no pointer", nil, ""},
			{"read error", nil, "read team-state: unexpected end of JSON input"},
		}
		for _, c := range cases {
			v := runView()
			v.Next, v.Err = c.next, c.err
			a.onRunView(v)
			fmt.Fprintf(&b, "%-18s|%s|\n", c.name, a.headerLine())
		}
		a.width = 50
		v := runView()
		a.onRunView(v)
		fmt.Fprintf(&b, "%-18s|%s|\n", "narrow", a.headerLine())
		golden.RequireEqual(t, b.String())
	})
}

func TestStatusLineGolden(t *testing.T) {
	colorModes(t, func(t *testing.T, noColor bool) {
		var b strings.Builder
		a := partsApp(110, 30, noColor)
		line := func(name string) { fmt.Fprintf(&b, "%-16s|%s|\n", name, a.statusLine()) }
		line("no run yet")
		a.onRunView(runView())
		line("no dispatch yet")
		v := runView(
			dispatchSpec{pane: "pane-2", label: "codex-analyser-1", status: "in-progress", ago: time.Minute},
			dispatchSpec{pane: "pane-3", label: "claude-analyser-2", status: "completed", ago: time.Minute, ran: time.Second},
			dispatchSpec{pane: "pane-4", label: "gemini-analyser-3", status: "in-progress", ago: time.Minute},
		)
		a.onRunView(v)
		line("navigation")
		a.mode = modeInput
		line("input")
		a.mode = modeScroll
		line("scroll")
		a.mode = modeNav
		a.zoom = true
		line("zoom")
		a.zoom = false
		v.Gates = []view.Gate{{ID: "C-003"}}
		a.onRunView(v)
		line("one gate")
		v.Gates = append(v.Gates, view.Gate{ID: "report-authoring"})
		v.BatchKind = "reverify-r2"
		a.onRunView(v)
		line("two gates")
		// The key that opens the gate dialog from each mode: g only
		// while navigating.
		a.closeOverlays()
		a.mode = modeInput
		line("gates input")
		a.mode = modeScroll
		line("gates scroll")
		a.mode = modeNav
		a.notice = "" // the gate's notice had its time
		v.Usage = map[string]view.Usage{
			"d-001": {Input: 12000, Output: 800, CostUSD: 1.375, Priced: true},
			"d-002": {Input: 5000, Output: 300, CostUSD: 0.25, Priced: true},
		}
		a.onRunView(v)
		line("cost")
		v.Usage["d-003"] = view.Usage{Input: 100, Output: 10}
		a.onRunView(v)
		line("cost unpriced")
		a.onNotice(view.Notice{Text: "worker claude-analyser-2 settled: completed"})
		line("notice")
		a.width = 80
		line("80")
		a.width = 60
		line("narrow")
		a.width = 40
		line("narrow 40")
		a.width = 110
		a.push(&confirmOverlay{env: &a.screenEnv, kind: confirmQuit, text: "2 worker panes are still running — quit anyway?", keys: "q/y: quit, any other key: stay"})
		line("confirm quit")
		a.width = 60
		line("confirm narrow")
		golden.RequireEqual(t, b.String())
	})
}

func TestTimelineGolden(t *testing.T) {
	var b strings.Builder
	a := partsApp(70, 30, false)
	rows := make([]string, 5)
	a.renderTimeline(rows, rect{W: 70, H: 5})
	b.WriteString(strings.Join(rows, "\n") + "\n")
	v := runView()
	// A line longer than the panel ends with "…".
	v.Timeline = append(v.Timeline, view.TimelineEntry{At: testNow, Line: "PROGRESS: user-confirm C-001 The analysers disagree: should the CSV export keep its legacy column order?"})
	a.onRunView(v)
	a.renderTimeline(rows, rect{W: 70, H: 5})
	b.WriteString(strings.Join(rows, "\n") + "\n")
	golden.RequireEqual(t, b.String())
}
