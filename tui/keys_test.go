package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/runtime/view"
)

// dryApp is an App with announced panes but no Manager: Update decides,
// nothing runs, and the queued ops show what would reach the panes.
func dryApp(t *testing.T, w, h, workers int) *App {
	t.Helper()
	a := New(Config{Now: func() time.Time { return testNow }})
	a.manual = true
	a.resizeDelay = 0
	send(a, tea.WindowSizeMsg{Width: w, Height: h})
	send(a, view.PaneOpened{PaneID: "pane-1", Title: "lead", Lead: true})
	for i := range workers {
		id := "pane-" + string(rune('2'+i))
		send(a, view.PaneOpened{PaneID: id, Title: "worker-" + id})
	}
	a.ops = nil
	return a
}

// send feeds one message to a, dropping the commands.
func send(a *App, msg tea.Msg) { a.Update(msg) }

func keys(a *App, names ...string) {
	for _, n := range names {
		send(a, keyPress(n))
	}
}

func focusedID(a *App) string {
	if pv := a.focused(); pv != nil {
		return pv.id
	}
	return ""
}

func TestFocusMoves(t *testing.T) {
	// Lead on the left, four workers in a 2×2 grid on the right.
	a := dryApp(t, 160, 48, 4)
	if got := focusedID(a); got != "pane-1" {
		t.Fatalf("first focus = %s, want the lead", got)
	}
	steps := []struct{ key, want string }{
		{"l", "pane-2"}, // right of the lead: the top-left worker
		{"right", "pane-3"},
		{"j", "pane-5"},
		{"left", "pane-4"},
		{"k", "pane-2"},
		{"h", "pane-1"},
		{"h", "pane-1"}, // nothing further left
		{"tab", "pane-2"},
		{"shift+tab", "pane-1"},
		{"shift+tab", "pane-5"}, // wraps
		{"3", "pane-3"},
		{"9", "pane-3"}, // no ninth pane
	}
	for _, s := range steps {
		keys(a, s.key)
		if got := focusedID(a); got != s.want {
			t.Fatalf("after %q focus = %s, want %s", s.key, got, s.want)
		}
	}
}

func TestZoomToggles(t *testing.T) {
	a := dryApp(t, 120, 40, 3)
	keys(a, "l")
	focus := a.focused()
	tiled := focus.rect
	keys(a, "z")
	if !a.zoom || focus.rect != a.geo.area {
		t.Fatalf("zoomed rect = %+v, want the whole area %+v", focus.rect, a.geo.area)
	}
	for _, pv := range a.panes {
		if pv != focus && !pv.rect.Empty() {
			t.Fatalf("pane %s shown while %s is zoomed", pv.id, focus.id)
		}
	}
	// Only the zoomed pane is resized; hidden ones keep their size.
	if len(a.ops) != 1 || a.ops[0].kind != opResize || a.ops[0].id != focus.id || a.ops[0].cols != a.geo.area.W || a.ops[0].rows != a.geo.area.H-1 {
		t.Fatalf("ops after zoom = %+v", a.ops)
	}
	// Navigation walks the panes one at a time while zoomed.
	keys(a, "l")
	if !a.zoom || focusedID(a) == focus.id || a.focused().rect != a.geo.area {
		t.Fatalf("moving while zoomed: zoom=%v focus=%s", a.zoom, focusedID(a))
	}
	keys(a, "h", "z")
	if a.zoom || focus.rect != tiled {
		t.Fatalf("unzoomed rect = %+v, want %+v", focus.rect, tiled)
	}
}

func TestModesAndPrefix(t *testing.T) {
	a := dryApp(t, 100, 30, 1)
	keys(a, "l", "enter")
	if a.mode != modeInput {
		t.Fatalf("mode after enter = %v", a.mode)
	}
	a.ops = nil
	keys(a, "q", "z", "ctrl+c", "up", "enter")
	want := []panes.Key{{Code: 'q'}, {Code: 'z'}, {Code: 'c', Mod: panes.ModCtrl}, {Code: panes.KeyUp}, {Code: panes.KeyEnter}}
	if got := opKeys(a.ops, "pane-2"); !slices.Equal(got, want) {
		t.Fatalf("keys sent = %+v, want %+v", got, want)
	}
	if confirmOf(a) != nil || a.zoom {
		t.Fatal("keys typed into a pane acted on the screen")
	}
	a.ops = nil
	keys(a, "ctrl+b")
	if a.mode != modeInput || !a.prefixed || len(opKeys(a.ops, "pane-2")) != 0 {
		t.Fatalf("prefix: mode %v prefixed %v, sent %+v", a.mode, a.prefixed, a.ops)
	}
	if !strings.Contains(ansi.Strip(a.statusLine()), "PREFIX") {
		t.Fatalf("the status line does not say the prefix was pressed: %q", ansi.Strip(a.statusLine()))
	}
	keys(a, "ctrl+b")
	if a.mode != modeInput || a.prefixed {
		t.Fatalf("prefix twice: mode %v, want input", a.mode)
	}
	if got := opKeys(a.ops, "pane-2"); !slices.Equal(got, []panes.Key{{Code: 'b', Mod: panes.ModCtrl}}) {
		t.Fatalf("prefix twice sent %+v, want ctrl+b", got)
	}
	// Prefix then a navigation key acts on the screen once, as in tmux:
	// then typing goes on (issue 17, finding 3).
	a.ops = nil
	keys(a, "ctrl+b", "z", "d", "x", "q")
	if a.mode != modeInput || !a.zoom || a.top() != nil {
		t.Fatalf("prefix z: mode %v zoom %v overlay %v", a.mode, a.zoom, a.top())
	}
	if got := opKeys(a.ops, "pane-2"); !slices.Equal(got, []panes.Key{{Code: 'd'}, {Code: 'x'}, {Code: 'q'}}) {
		t.Fatalf("after prefix z the keys typed went %+v", got)
	}
	// Navigation is a mode entered on purpose: prefix esc.
	keys(a, "ctrl+b", "esc")
	if a.mode != modeNav {
		t.Fatalf("prefix esc: mode %v", a.mode)
	}
	keys(a, "z", "i")
	if a.mode != modeInput {
		t.Fatalf("i: mode %v", a.mode)
	}
	// Leaving and entering tells a program that asked (mode 1004).
	if !slices.ContainsFunc(a.ops, func(op paneOp) bool { return op.kind == opFocus && op.in }) {
		t.Fatal("no focus-in op on entering the pane")
	}
}

func TestConfiguredPrefix(t *testing.T) {
	a := New(Config{Prefix: "ctrl+a"})
	a.manual = true
	a.resizeDelay = 0
	send(a, tea.WindowSizeMsg{Width: 80, Height: 24})
	send(a, view.PaneOpened{PaneID: "pane-1", Title: "lead", Lead: true})
	keys(a, "enter", "ctrl+b")
	if a.mode != modeInput {
		t.Fatal("ctrl+b left the pane with ctrl+a as prefix")
	}
	keys(a, "ctrl+a", "esc")
	if a.mode != modeNav {
		t.Fatal("ctrl+a esc did not leave the pane")
	}
	if !strings.Contains(ansi.Strip(a.helpBoxText()), "ctrl+a") {
		t.Fatal("help does not name the configured prefix")
	}
}

func (a *App) helpBoxText() string { return strings.Join(newHelp(&a.screenEnv).box(), "\n") }

func opKeys(ops []paneOp, id string) []panes.Key {
	var out []panes.Key
	for _, op := range ops {
		if op.kind == opKey && op.id == id {
			out = append(out, op.key)
		}
	}
	return out
}

func TestHelpOverlay(t *testing.T) {
	a := dryApp(t, 100, 30, 1)
	keys(a, "?")
	if !helpOpen(a) || !strings.Contains(ansi.Strip(a.View().Content), "cockpit keys") {
		t.Fatal("? did not show the help")
	}
	keys(a, "q")
	if helpOpen(a) || confirmOf(a) != nil {
		t.Fatalf("the key closing help also acted: help=%v confirm=%v", helpOpen(a), confirmOf(a))
	}
}

func TestScrollKeys(t *testing.T) {
	a := dryApp(t, 100, 30, 1)
	pv := a.focused()
	pv.snap.ScrollbackLen = 500
	page := pv.rect.Inner().H
	keys(a, "[")
	if a.mode != modeScroll || a.scroll.back != 0 {
		t.Fatalf("[: mode %v back %d", a.mode, a.scroll.back)
	}
	steps := []struct {
		key  string
		back int
	}{
		{"k", 1}, {"up", 2}, {"j", 1}, {"pgup", 1 + page}, {"pgdown", 1}, {"ctrl+u", 1 + page/2},
		{"ctrl+d", 1}, {"g", 500}, {"k", 500}, {"G", 0}, {"j", 0},
	}
	for _, s := range steps {
		keys(a, s.key)
		if a.scroll.back != s.back {
			t.Fatalf("after %q back = %d, want %d", s.key, a.scroll.back, s.back)
		}
	}
	keys(a, "q")
	if a.mode != modeNav {
		t.Fatalf("q in scroll mode: mode %v", a.mode)
	}
	keys(a, "pgup")
	if a.mode != modeScroll || a.scroll.back != page {
		t.Fatalf("pgup: mode %v back %d, want a page", a.mode, a.scroll.back)
	}
	keys(a, "esc")
	if a.mode != modeNav {
		t.Fatal("esc did not leave scroll mode")
	}
	// New output while scrolled keeps the view on the same lines.
	keys(a, "[", "k", "k")
	send(a, framesMsg{snaps: []paneSnap{{id: pv.id, snap: panes.Snapshot{ScrollbackLen: 510}}}})
	if a.scroll.back != 12 {
		t.Fatalf("back after 10 new lines = %d, want 12", a.scroll.back)
	}
	// A full history stops growing; the lines it let go of still move the
	// view up by as many.
	send(a, framesMsg{snaps: []paneSnap{{id: pv.id, snap: panes.Snapshot{ScrollbackLen: 510, ScrollbackDropped: 7}}}})
	if a.scroll.back != 19 {
		t.Fatalf("back after 7 lines through a full history = %d, want 19", a.scroll.back)
	}
}

func TestTimelineToggle(t *testing.T) {
	a := dryApp(t, 100, 30, 1)
	h := a.geo.area.H
	if a.geo.timeline.Empty() {
		t.Fatal("timeline hidden at start")
	}
	keys(a, "t")
	if !a.geo.timeline.Empty() || a.geo.area.H <= h {
		t.Fatalf("t: timeline %+v, area %d rows (was %d)", a.geo.timeline, a.geo.area.H, h)
	}
	keys(a, "t")
	if a.geo.timeline.Empty() {
		t.Fatal("t twice: timeline hidden")
	}
}

func TestAttentionClearsOnFocus(t *testing.T) {
	a := dryApp(t, 100, 30, 2)
	send(a, view.Notice{Text: "stuck?", PaneID: "pane-3"})
	if !a.byID["pane-3"].attention || !strings.Contains(a.notice, "stuck?") {
		t.Fatal("a notice about a pane did not flag it")
	}
	keys(a, "3")
	if a.byID["pane-3"].attention {
		t.Fatal("focusing the pane did not clear its flag")
	}
}

func TestPaneClosedGivesSpaceBack(t *testing.T) {
	a := dryApp(t, 120, 40, 2)
	keys(a, "l", "enter")
	send(a, view.PaneClosed{PaneID: "pane-2", Reason: "reclaimed"})
	send(a, view.PaneClosed{PaneID: "pane-3", Reason: "reclaimed"})
	lead := a.byID["pane-1"]
	if len(a.panes) != 1 || lead.rect != a.geo.area || focusedID(a) != "pane-1" || a.mode != modeNav {
		t.Fatalf("after reclaim: %d panes, lead %+v (area %+v), focus %s, mode %v", len(a.panes), lead.rect, a.geo.area, focusedID(a), a.mode)
	}
	last := a.ops[len(a.ops)-1]
	if last.kind != opResize || last.id != "pane-1" || last.cols != 120 {
		t.Fatalf("lead not resized to the full width: %+v", last)
	}
	// A frame for a closed pane arriving late does not bring it back.
	send(a, framesMsg{snaps: []paneSnap{{id: "pane-2"}}})
	if len(a.panes) != 1 {
		t.Fatal("a late frame re-added a closed pane")
	}
	if !strings.Contains(a.notice, "reclaimed") {
		t.Fatalf("notice = %q", a.notice)
	}
}

func TestCloseConfirmation(t *testing.T) {
	hs := newHarness(t, 100, 30)
	hs.open("lead", true, "static", "LEAD")
	w := hs.open("codex-analyser-1", false, "static", "W1")
	hs.key("x")
	if confirmOf(hs.app) != nil || !strings.Contains(hs.app.notice, "lead") {
		t.Fatal("x on the lead asked to close it")
	}
	hs.key("l", "x")
	if confirmOf(hs.app) == nil || !strings.Contains(hs.plain(), "codex-analyser-1 (pane-2) is still running: close it?") {
		t.Fatalf("x did not ask:\n%s", hs.plain())
	}
	hs.key("n")
	if confirmOf(hs.app) != nil || len(hs.closes) != 0 {
		t.Fatal("n did not cancel")
	}
	hs.key("x", "y")
	if !slices.Equal(hs.closes, []string{w}) {
		t.Fatalf("ClosePane calls = %v, want [%s]", hs.closes, w)
	}
}

func TestCloseWithoutEngine(t *testing.T) {
	hs := newHarness(t, 100, 30, func(c *Config) { c.Actions = Actions{} })
	hs.open("lead", true, "static", "LEAD")
	w := hs.open("codex-analyser-1", false, "static", "W1")
	hs.key("l", "x", "y")
	if _, ok := hs.mgr.Get(w); ok || hs.app.byID[w] != nil {
		t.Fatal("pane still open after closing it without an engine")
	}
}

func TestQuitConfirmation(t *testing.T) {
	hs := newHarness(t, 100, 30)
	hs.open("lead", true, "static", "LEAD")
	hs.open("codex-analyser-1", false, "static", "W1")
	hs.key("q")
	if confirmOf(hs.app) == nil || hs.quitted {
		t.Fatal("q with a running worker did not ask")
	}
	hs.key("n")
	if confirmOf(hs.app) != nil || hs.quitted || hs.quits != 0 {
		t.Fatal("n did not cancel the quit")
	}
	hs.key("q", "x")
	if hs.quitted {
		t.Fatal("another key confirmed the quit")
	}
	hs.key("q", "q")
	if !hs.quitted || hs.quits != 1 {
		t.Fatalf("q q: quitted=%v Quit calls=%d", hs.quitted, hs.quits)
	}
	if hs.app.ctx.Err() == nil {
		t.Fatal("quitting did not end the frame loop's context")
	}
}

func TestQuitWithoutRunningWorkers(t *testing.T) {
	hs := newHarness(t, 100, 30)
	hs.open("lead", true, "static", "LEAD")
	w := hs.open("codex-analyser-1", false, "exit", "0")
	hs.waitFor("the worker to exit", func() bool { return hs.app.byID[w].snap.Exited })
	hs.key("y") // not a quit key: nothing happens
	hs.key("q")
	if !hs.quitted || hs.quits != 1 {
		t.Fatalf("q without running workers: quitted=%v Quit calls=%d", hs.quitted, hs.quits)
	}
}

// readFile polls path until it holds want, failing after a deadline.
func waitFile(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(testenv.Scale(10 * time.Second))
	for {
		got, _ := os.ReadFile(path)
		if string(got) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("program received %q, want %q", got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestKeysReachProgram(t *testing.T) {
	hs := newHarness(t, 100, 30)
	hs.open("lead", true, "static", "LEAD")
	out := filepath.Join(t.TempDir(), "keys")
	id := hs.open("codex-analyser-1", false, "keys", out)
	hs.waitFor("the keys program", func() bool {
		return strings.Contains(strings.Join(hs.app.byID[id].snap.Lines, ""), "keys ready")
	})
	hs.key("l", "enter")
	hs.key("h", "i", "enter", "ctrl+c", "up", "alt+x", "q", "tab", "backspace")
	hs.key("ctrl+b", "ctrl+b") // the prefix twice: sent
	hs.send(tea.PasteMsg{Content: "one\ntwo"})
	hs.key("ctrl+b", "z") // the prefix then z: zoom, nothing sent
	waitFile(t, out, "hi\r\x03\x1b[A\x1bxq\t\x7f\x02one\rtwo")
	if !hs.app.zoom {
		t.Fatal("prefix z did not zoom")
	}
	// What the program echoes shows up on the screen.
	hs.waitFor("the echo", func() bool { return strings.Contains(hs.plain(), `recv "hi\r\x03`) })
}

func TestMouse(t *testing.T) {
	hs := newHarness(t, 100, 30)
	hs.open("lead", true, "history", "300")
	out := filepath.Join(t.TempDir(), "mouse")
	id := hs.open("codex-analyser-1", false, "keys", out, "mouse")
	hs.waitFor("mouse mode", func() bool { return hs.app.byID[id].snap.Modes.Mouse != 0 })
	lead, worker := hs.app.byID["pane-1"], hs.app.byID[id]
	hs.waitFor("the lead's history", func() bool { return lead.snap.ScrollbackLen > 100 })

	// Navigation: a click focuses and is not sent.
	in := worker.rect.Inner()
	hs.send(tea.MouseClickMsg{X: in.X + 4, Y: in.Y + 2, Button: tea.MouseLeft})
	if focusedID(hs.app) != id {
		t.Fatal("click did not focus the pane")
	}
	// Typing into it: clicks and the wheel go to the program, in its cells.
	hs.key("enter")
	hs.send(tea.MouseClickMsg{X: in.X + 4, Y: in.Y + 2, Button: tea.MouseLeft})
	hs.send(tea.MouseReleaseMsg{X: in.X + 4, Y: in.Y + 2, Button: tea.MouseLeft})
	// A drag released outside the pane (over the lead) still ends in the
	// program, at its nearest cell, as xterm reports it.
	if in.X < 5 {
		t.Fatalf("the worker pane starts at column %d: no room to its left", in.X)
	}
	hs.send(tea.MouseClickMsg{X: in.X + 4, Y: in.Y + 2, Button: tea.MouseLeft})
	hs.send(tea.MouseReleaseMsg{X: in.X - 5, Y: in.Y + 2, Button: tea.MouseLeft})
	if focusedID(hs.app) != id || hs.app.mouseGrab != "" {
		t.Fatalf("after the release: focus %s grab %q", focusedID(hs.app), hs.app.mouseGrab)
	}
	hs.send(tea.MouseWheelMsg{X: in.X, Y: in.Y, Button: tea.MouseWheelUp})
	// A click on its title bar is the screen's, not the program's.
	hs.send(tea.MouseClickMsg{X: in.X + 4, Y: worker.rect.Y, Button: tea.MouseLeft})
	waitFile(t, out, "\x1b[<0;5;3M\x1b[<0;5;3m\x1b[<0;5;3M\x1b[<0;1;3m\x1b[<64;1;1M")

	// The wheel over a program that did not ask scrolls its history, and
	// scrolling back down leaves scroll mode.
	lin := lead.rect.Inner()
	hs.send(tea.MouseWheelMsg{X: lin.X + 1, Y: lin.Y + 1, Button: tea.MouseWheelUp})
	if focusedID(hs.app) != "pane-1" || hs.app.mode != modeScroll || hs.app.scroll.back != wheelLines {
		t.Fatalf("wheel up: focus %s mode %v back %d", focusedID(hs.app), hs.app.mode, hs.app.scroll.back)
	}
	hs.waitFor("the scrolled view", func() bool { return hs.app.scroll.valid })
	hs.send(tea.MouseWheelMsg{X: lin.X + 1, Y: lin.Y + 1, Button: tea.MouseWheelDown})
	if hs.app.mode != modeInput {
		t.Fatalf("wheel back to the bottom: mode %v, want typing as before the wheel", hs.app.mode)
	}
}

func TestTabClick(t *testing.T) {
	a := dryApp(t, 30, 8, 2)
	if !a.geo.tabs {
		t.Fatal("no tab strip at 30×8")
	}
	_, spans := a.tabLayout(a.geo.tabRow.W)
	last := spans[len(spans)-1]
	send(a, tea.MouseClickMsg{X: last.x0 + 1, Y: a.geo.tabRow.Y, Button: tea.MouseLeft})
	if a.focus != last.i {
		t.Fatalf("clicking tab %d focused %d", last.i, a.focus)
	}
}

// TestOnlyDirtyPanesSnapshotted checks the frame rules: a pane that prints
// nothing is never in a frame, and a flood of output costs few frames.
func TestOnlyDirtyPanesSnapshotted(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	hs := newHarness(t, 120, 40)
	idle := hs.open("lead", true, "static", "LEAD")
	// The flood starts a second after the layout settled: opening the
	// busy pane resizes the idle one, which then redraws once.
	hs.open("codex-analyser-1", false, "history", "5000", "1000")
	hs.waitDrawn()
	frames, idleFrames := 0, 0
	deadline := time.Now().Add(20 * time.Second)
	ended := false
	for time.Now().Before(deadline) {
		// Quiet for 2 s while the flood's end is not on screen, or for
		// 300 ms once it is: the flood is over (the idle pane gets no late
		// frame either).
		quiet := 2 * time.Second
		if ended = ended || strings.Contains(hs.plain(), "history line 5000"); ended {
			quiet = 300 * time.Millisecond
		}
		ctx, cancel := context.WithTimeout(context.Background(), quiet)
		ids, err := hs.waitDirty(ctx, DefaultFrame)
		cancel()
		if err != nil {
			break
		}
		frames++
		if slices.Contains(ids, idle) {
			idleFrames++
		}
		hs.send(framesMsg{snaps: takeSnaps(hs.mgr, hs.app.sub, ids)})
	}
	if idleFrames != 0 {
		t.Fatalf("the idle pane was in %d frames", idleFrames)
	}
	if !strings.Contains(hs.plain(), "history line 5000") {
		t.Fatalf("the flood's end is not on screen:\n%s", hs.plain())
	}
	t.Logf("5000 lines (%d bytes) took %d frames", 5000*len("history line 0000\r\n"), frames)
	if frames > 2000 {
		t.Fatalf("%d frames for one flood: not coalesced", frames)
	}
}

// TestViewCached checks that View does not draw again without an Update.
func TestViewCached(t *testing.T) {
	a := dryApp(t, 100, 30, 2)
	v1 := a.View().Content
	if !a.viewValid {
		t.Fatal("view not cached")
	}
	a.view = "sentinel"
	if a.View().Content != "sentinel" {
		t.Fatal("View drew again without an Update")
	}
	keys(a, "l")
	if v2 := a.View().Content; v2 == "sentinel" || v2 == v1 {
		t.Fatal("an Update that moved the focus did not redraw")
	}
}

// viewSpy keeps the last view the program drew.
type viewSpy struct {
	*App
	last *atomic.Value
}

func (v viewSpy) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := v.App.Update(msg)
	return v, cmd
}

func (v viewSpy) View() tea.View {
	view := v.App.View()
	v.last.Store(view.Content)
	return view
}

// lockedBuffer is a bytes.Buffer the renderer writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b = append(l.b, p...)
	return len(p), nil
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}

// TestProgramQuit runs the App in a real bubbletea program: pane output is
// drawn through the frame loop, q then y quits, the engine's Quit is
// called once, and once the owner closed the panes no goroutine of the
// screen or the panes is left.
func TestProgramQuit(t *testing.T) {
	mgr := panes.NewManager()
	var quits atomic.Int32
	app := New(Config{
		Manager: mgr,
		Now:     func() time.Time { return testNow },
		Actions: Actions{Quit: func() { quits.Add(1) }},
	})
	out := &lockedBuffer{}
	var screenNow atomic.Value
	screenNow.Store("")
	prog := tea.NewProgram(viewSpy{app, &screenNow},
		tea.WithInput(nil), tea.WithOutput(out), tea.WithWindowSize(100, 30),
		tea.WithoutSignalHandler(), tea.WithColorProfile(colorprofile.TrueColor))
	done := make(chan error, 1)
	go func() {
		_, err := prog.Run()
		done <- err
	}()
	for i, marker := range []string{"LEAD", "WORKER"} {
		p, err := mgr.Open(panes.Config{Argv: []string{paneprog(), "static", marker}, Cols: 10, Rows: 5, CloseGrace: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		prog.Send(view.PaneOpened{PaneID: p.ID(), Title: marker, Lead: i == 0})
	}
	prog.Send(view.ViewUpdated{View: runView(dispatchSpec{pane: "pane-2", label: "WORKER", status: "in-progress", ago: time.Minute})})
	deadline := time.Now().Add(testenv.Scale(10 * time.Second))
	// The renderer writes differences, so the screen is read from the
	// views it was given.
	for !strings.Contains(ansi.Strip(screenNow.Load().(string)), "WORKER size=49x") {
		if time.Now().After(deadline) {
			t.Fatalf("the worker's frame was never drawn; screen:\n%s", ansi.Strip(screenNow.Load().(string)))
		}
		time.Sleep(20 * time.Millisecond)
	}
	prog.Send(keyPress("q"))
	prog.Send(keyPress("y"))
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		prog.Kill()
		t.Fatal("the program did not quit")
	}
	if n := quits.Load(); n != 1 {
		t.Fatalf("Actions.Quit called %d times", n)
	}
	// The frame loop ends with the program, while the panes still run.
	waitNoGoroutines(t, func() string {
		return filterStacks(leakedGoroutines(), "okstra/cockpit/tui.", "WaitDirty")
	})
	if err := mgr.CloseAll(); err != nil {
		t.Fatal(err)
	}
	waitNoGoroutines(t, leakedGoroutines)
}

// filterStacks keeps the goroutine stacks that mention any of subs.
func filterStacks(stacks string, subs ...string) string {
	var out []string
	for _, g := range strings.Split(stacks, "\n\n") {
		for _, s := range subs {
			if strings.Contains(g, s) {
				out = append(out, g)
				break
			}
		}
	}
	return strings.Join(out, "\n\n")
}

// waitNoGoroutines waits until stacks reports none, failing after 5 s.
func waitNoGoroutines(t *testing.T, stacks func() string) {
	t.Helper()
	deadline := time.Now().Add(testenv.Scale(5 * time.Second))
	for {
		leaked := stacks()
		if leaked == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines left after quit:\n%s", leaked)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestResizeDebounced checks that a burst of layouts (a window being
// dragged, panes announced one by one) resizes each pane once, to the
// last layout, after the layout settled.
func TestResizeDebounced(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	a := New(Config{Now: func() time.Time { return testNow }})
	a.manual = true
	// Run each step's commands (the resize timers sleep their delay) but
	// deliver the timer messages only after the burst, as if it had been
	// faster than the delay.
	var fired []resizeMsg
	var collect func(tea.Cmd)
	collect = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch m := c().(type) {
		case tea.BatchMsg:
			for _, sub := range m {
				collect(sub)
			}
		case resizeMsg:
			fired = append(fired, m)
		}
	}
	step := func(msg tea.Msg) {
		_, cmd := a.Update(msg)
		collect(cmd)
	}
	step(tea.WindowSizeMsg{Width: 100, Height: 30})
	for i := range 4 {
		step(view.PaneOpened{PaneID: fmt.Sprintf("pane-%d", i+1), Title: "p", Lead: i == 0})
	}
	for w := 101; w <= 110; w++ {
		step(tea.WindowSizeMsg{Width: w, Height: 30})
	}
	if len(a.ops) != 0 {
		t.Fatalf("resized during the burst: %+v", a.ops)
	}
	if len(fired) == 0 {
		t.Fatal("no resize timer armed")
	}
	// Only the timer armed by the last layout resizes.
	for _, m := range fired {
		a.Update(m)
	}
	resized := map[string]int{}
	for _, op := range a.ops {
		if op.kind == opResize {
			resized[op.id]++
			if pv := a.byID[op.id]; op.cols != pv.rect.W || op.rows != pv.rect.H-1 {
				t.Fatalf("%s resized to %dx%d, shown at %+v", op.id, op.cols, op.rows, pv.rect)
			}
		}
	}
	if len(resized) != 4 {
		t.Fatalf("resized panes: %v, want all 4 once", resized)
	}
	for id, n := range resized {
		if n != 1 {
			t.Fatalf("%s resized %d times", id, n)
		}
	}
}

func TestTypedTextReachesThePaneWhole(t *testing.T) {
	a := dryApp(t, 100, 30, 1)
	keys(a, "l", "enter")
	a.ops = nil
	for _, k := range []tea.Key{
		{Code: tea.KeyExtended, Text: "👍🏽"},
		{Code: 'e', Text: "e\u0301"},
		{Code: tea.KeyExtended, Text: "한글", Mod: tea.ModAlt},
		{Code: 'x', Text: "x"},
	} {
		send(a, tea.KeyPressMsg(k))
	}
	var got []string
	for _, op := range a.ops {
		switch op.kind {
		case opText:
			got = append(got, op.text)
		case opKey:
			got = append(got, string(rune(op.key.Code)))
		}
	}
	want := []string{"👍🏽", "e\u0301", "\x1b한글", "x"}
	if !slices.Equal(got, want) {
		t.Fatalf("sent %q, want %q", got, want)
	}
}

// TestCloseRunningWorker (issue 17, finding 15): x on a worker whose
// dispatch still runs says so, and that the run records it failed.
func TestCloseRunningWorker(t *testing.T) {
	const question = "worker-pane-2 (pane-2) is still running: close it? That stops it, and the run records it failed"
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {120, 30}, {160, 48}} {
		a := dryApp(t, sz[0], sz[1], 1)
		run(a, view.ViewUpdated{View: runView(dispatchSpec{pane: "pane-2", label: "codex-analyser-1", status: "in-progress", ago: time.Minute})})
		keys(a, "l", "x")
		c := confirmOf(a)
		if c == nil || c.line() != question+" (y: close, any other key: keep)" {
			t.Fatalf("%v: x on a running worker asks %+v", sz, c)
		}
		// The question and its answers are never cut (finding 5): on the
		// status line when they fit, else in a box, the answers pinned.
		scr := ansi.Strip(a.View().Content)
		status := ansi.Strip(a.statusLine())
		flat := strings.Join(strings.Fields(strings.NewReplacer("│", " ", "╭", " ", "╰", " ", "─", " ", "╮", " ", "╯", " ").Replace(scr)), " ")
		if !strings.Contains(flat, question) || !strings.Contains(status, "y: close, any other key: keep") || strings.Contains(status, "…") {
			t.Errorf("%v: the question is cut:\n%s", sz, scr)
		}
		keys(a, "n")
		if confirmOf(a) != nil || len(a.ops) != 0 {
			t.Errorf("%v: n did not keep the pane: ops %v", sz, a.ops)
		}
	}
}
