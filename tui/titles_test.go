package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/runtime/view"
)

// TestStatusLineFits: at every width the status line is exactly that wide,
// the key hint shows whole items only (never cut mid-word), the counts and
// gates keep their place, and cut text ends with "…".
func TestStatusLineFits(t *testing.T) {
	a := partsApp(160, 30, true)
	v := runView(
		dispatchSpec{pane: "pane-2", label: "codex-analyser-1", status: "in-progress", ago: time.Minute},
		dispatchSpec{pane: "pane-3", label: "claude-analyser-2", status: "completed", ago: time.Minute, ran: time.Second},
	)
	v.Gates = []view.Gate{{ID: "C-003"}}
	v.Usage = map[string]view.Usage{"d-001": {Input: 10, CostUSD: 0.5, Priced: true}}
	a.onRunView(v)
	a.closeOverlays()
	a.notice = "worker claude-analyser-2 settled: completed after a long and winding road"
	for _, fresh := range []bool{true, false} {
		a.noticeAt, a.noticeSeen = testNow, a.notice
		if !fresh {
			a.noticeAt = testNow.Add(-noticeTime)
		}
		for _, m := range []mode{modeNav, modeInput, modeScroll} {
			a.mode = m
			hint := a.hint()
			out := strings.Split(hint, " · ")[0] // the way out of the mode
			for w := 20; w <= 160; w++ {
				a.width = w
				line := ansi.Strip(a.statusLine())
				if got := ansi.StringWidth(line); got != w {
					t.Fatalf("%v at %d: width %d: %q", m, w, got, line)
				}
				if w >= 60 && !fresh && !strings.Contains(line, "1 gate waiting") {
					t.Errorf("%v at %d: the gates are gone: %q", m, w, line)
				}
				if w >= 50 && !strings.Contains(line, out) {
					t.Errorf("%v at %d: the way out (%q) is gone: %q", m, w, out, line)
				}
				// The hint ends the line: whole items of it; never a
				// piece of an item.
				trimmed := strings.TrimRight(line, " ")
				whole := false
				items := strings.Split(hint, " · ")
				for k := 1; k <= len(items); k++ {
					if strings.HasSuffix(trimmed, strings.Join(items[:k], " · ")) {
						whole = true
					}
				}
				if !whole && w >= 50 {
					t.Errorf("%v at %d: a cut hint: %q", m, w, line)
				}
				if fresh && w >= 60 && !strings.Contains(line, "worker cl") {
					t.Errorf("%v at %d: the fresh notice is gone: %q", m, w, line)
				}
				if !fresh && strings.Contains(line, "worker claude") {
					t.Errorf("%v at %d: the notice outlived its time: %q", m, w, line)
				}
				if strings.Contains(line, "worker claude") && !strings.Contains(line, "road") && !strings.Contains(line, "…") {
					t.Errorf("%v at %d: the notice is cut without …: %q", m, w, line)
				}
			}
		}
	}
}

// TestTitleBarFits: at every width a title bar is exactly that wide, keeps
// the glyph, and ends cut text with "…".
func TestTitleBarFits(t *testing.T) {
	a := partsApp(120, 40, true)
	v := runView(dispatchSpec{pane: "pane-2", label: "Codex analyser · gpt-6.1-sol", model: "gpt-6.1-sol", status: "completed", ago: 5 * time.Minute, ran: 4 * time.Minute})
	v.Usage = map[string]view.Usage{"d-001": {Input: 10, CostUSD: 1.375, Priced: true}}
	a.onRunView(v)
	lead := &paneView{id: "pane-1", title: "lead", lead: true, hasSnap: true}
	pv := &paneView{id: "pane-2", hasSnap: true}
	a.panes = []*paneView{lead, pv}
	a.applyDispatch(pv)
	full := "✓ 2 4m00s Codex analyser · gpt-6.1-sol · $1.38"
	for w := 1; w <= 80; w++ {
		pv.rect = rect{W: w, H: 5}
		pv.titleKey = ""
		title := ansi.Strip(a.titleBar(pv))
		if got := ansi.StringWidth(title); got != w {
			t.Fatalf("at %d: width %d: %q", w, got, title)
		}
		if w >= 3 && !strings.Contains(title, "✓") {
			t.Errorf("at %d: the glyph is gone: %q", w, title)
		}
		text := strings.TrimSpace(strings.Trim(title, "─ "))
		if w > 6 && !strings.Contains(title, full) && !strings.Contains(text, "…") {
			t.Errorf("at %d: cut without …: %q", w, title)
		}
		// The cost stays when the label is cut (issue 17, finding 13).
		if w >= 24 && !strings.Contains(title, "$1.38") {
			t.Errorf("at %d: the cost is gone: %q", w, title)
		}
		if strings.Contains(text, " ·…") || strings.Contains(text, "· …") {
			t.Errorf("at %d: a dangling separator: %q", w, title)
		}
	}
}

// TestStatusLineSays (issue 17, finding 5): at 80 columns the way out of
// the mode stays on the status line with a notice beside it: typing into a
// pane, scrolling, a copy; a read-only screen says why i did nothing at
// 100×30; a copy inside tmux says OSC 52 may not have reached the
// clipboard; a notice goes after its time and the counts come back.
func TestStatusLineSays(t *testing.T) {
	a := dryApp(t, 80, 24, 1)
	run(a, view.ViewUpdated{View: runView(dispatchSpec{pane: "pane-2", label: "codex-analyser-1", status: "in-progress", ago: time.Minute})})
	status := func() string { return ansi.Strip(a.statusLine()) }
	keys(a, "enter")
	if s := status(); !strings.Contains(s, "ctrl+b esc: navigation") {
		t.Errorf("typing at 80: %q", s)
	}
	keys(a, "ctrl+b", "esc", "[")
	run(a, copiedMsg{text: "hello"})
	if s := status(); !strings.Contains(s, "q: leave") || !strings.Contains(s, "copied 5 chars") {
		t.Errorf("scroll mode with a notice at 80: %q", s)
	}
	a.alerts.Tmux = true
	run(a, copiedMsg{text: "hello"})
	if s := ansi.Strip(a.View().Content); !strings.Contains(s, "copied 5 chars (inside tmux only with set -s") {
		t.Errorf("a copy inside tmux: %q", status())
	}
	// The notice had its time: the counts have the line again.
	a.now = func() time.Time { return testNow.Add(noticeTime) }
	run(a, noticeTickMsg{})
	if s := status(); strings.Contains(s, "copied") || !strings.Contains(s, "pending=1") {
		t.Errorf("after the notice's time: %q", s)
	}

	ro := dryApp(t, 100, 30, 1)
	ro.readOnly = true
	run(ro, view.ViewUpdated{View: runView(dispatchSpec{pane: "pane-2", label: "codex-analyser-1", status: "in-progress", ago: time.Minute})})
	keys(ro, "i")
	if s := ansi.Strip(ro.statusLine()); !strings.Contains(s, "read-only screen: cannot type into panes") || !strings.Contains(s, "?: help") {
		t.Errorf("i on a read-only screen at 100×30: %q", s)
	}
}
