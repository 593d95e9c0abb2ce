package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/panes/term"
	"github.com/okstra/cockpit/runtime/view"
)

// dryScreen is a screen with announced panes and no Manager, sharing arb.
func dryScreen(t *testing.T, arb *SizeArbiter, w, h int, told *[]ScreenSize) *App {
	t.Helper()
	a := New(Config{Now: func() time.Time { return testNow }, Sizes: arb, Actions: Actions{
		Screen: func(s ScreenSize) { *told = append(*told, s) },
	}})
	t.Cleanup(a.Stop)
	a.manual = true
	a.resizeDelay = 0
	step(a, tea.WindowSizeMsg{Width: w, Height: h})
	step(a, view.PaneOpened{PaneID: "pane-1", Title: "lead", Lead: true})
	step(a, view.PaneOpened{PaneID: "pane-2", Title: "worker"})
	return a
}

// step is Update running the commands that do not block (Actions.Screen).
func step(a *App, msg tea.Msg) {
	_, cmd := a.Update(msg)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		if b, ok := c().(tea.BatchMsg); ok {
			for _, s := range b {
				run(s)
			}
		}
	}
	run(cmd)
}

// resizes are the pane sizes a queued, by pane.
func resizes(a *App) map[string][2]int {
	out := map[string][2]int{}
	for _, op := range a.ops {
		if op.kind == opResize {
			out[op.id] = [2]int{op.cols, op.rows}
		}
	}
	return out
}

// shownSizes are the content sizes of a's shown panes.
func shownSizes(a *App) map[string][2]int {
	out := map[string][2]int{}
	for _, pv := range a.panes {
		if in := pv.rect.Inner(); in.W > 0 && in.H > 0 {
			out[pv.id] = [2]int{in.W, in.H}
		}
	}
	return out
}

func equalSizes(a, b map[string][2]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestSizeArbiter checks window-size latest on two screens: only the
// screen active last resizes the panes and tells the engine its size;
// one becoming the latest asks its sizes again even if it asked them
// before; the latest one leaving hands over to the other. The panes are
// simulated: each screen's queued resizes are applied to one map.
func TestSizeArbiter(t *testing.T) {
	arb := &SizeArbiter{}
	panesAt := map[string][2]int{}
	apply := func(screens ...*App) {
		for _, a := range screens {
			for id, sz := range resizes(a) {
				panesAt[id] = sz
			}
			a.ops = nil
		}
	}
	sizedBy := func(a *App, when string) {
		t.Helper()
		if !equalSizes(panesAt, shownSizes(a)) {
			t.Fatalf("%s: panes at %v, want the latest screen's %v", when, panesAt, shownSizes(a))
		}
	}
	var toldA, toldB []ScreenSize
	a := dryScreen(t, arb, 160, 48, &toldA)
	apply(a)
	sizedBy(a, "one screen")
	b := dryScreen(t, arb, 80, 24, &toldB) // its size makes it the latest
	apply(a, b)
	sizedBy(b, "a second screen came")
	// A's layout changes (a pane opens) but it is not the latest.
	step(a, view.PaneOpened{PaneID: "pane-3", Title: "worker-3"})
	if len(a.ops) != 0 {
		t.Fatalf("a screen that is not the latest resized: %+v", a.ops)
	}
	step(b, view.PaneOpened{PaneID: "pane-3", Title: "worker-3"})
	apply(a, b)
	sizedBy(b, "a pane opened")
	// Any key on A: it takes the panes back to its sizes, all of them,
	// including those it had asked before.
	step(a, keyPress("t"))
	step(a, keyPress("t"))
	apply(a, b)
	sizedBy(a, "a key on A")
	step(b, view.PaneOpened{PaneID: "pane-4", Title: "worker-4"})
	if len(b.ops) != 0 {
		t.Fatalf("B resized while A is the latest: %+v", b.ops)
	}
	step(a, view.PaneOpened{PaneID: "pane-4", Title: "worker-4"})
	apply(a, b)
	sizedBy(a, "a pane opened on A")
	// The mouse counts too.
	step(b, tea.MouseClickMsg{X: 1, Y: 3, Button: tea.MouseLeft})
	apply(a, b)
	sizedBy(b, "a click on B")
	// The engine heard each screen when it became the latest, and not A's
	// timeline toggles while B was.
	wantA := []ScreenSize{{160, 48, true}, {160, 48, false}, {160, 48, true}}
	wantB := []ScreenSize{{80, 24, true}, {80, 24, true}}
	if !slices.Equal(toldA, wantA) || !slices.Equal(toldB, wantB) {
		t.Fatalf("told A %v B %v, want %v and %v", toldA, toldB, wantA, wantB)
	}
	// B leaves: A is woken and sizes the panes again.
	wake := arb.wake(a)
	b.Stop()
	select {
	case <-wake:
	case <-time.After(5 * time.Second):
		t.Fatal("A was not woken when B left")
	}
	step(a, latestMsg{})
	apply(a)
	sizedBy(a, "B left")
	if !arb.isLatest(a) {
		t.Fatal("A is not the latest")
	}
}

// TestTwoScreensOneManager runs two screens of different sizes on the same
// panes: the one active last sets the panes' size, the other draws them as
// they are, cut or padded to its own layout, every row exactly its width.
func TestTwoScreensOneManager(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	mgr := panes.NewManager()
	arb := &SizeArbiter{}
	big := newHarnessOn(t, mgr, 160, 48, attached, func(c *Config) { c.Sizes = arb })
	lead := big.open("lead", true, "static", "LEAD")
	w1 := big.open("codex-analyser-1", false, "static", "WORKER-1", "color")
	w2 := big.open("claude-analyser-2", false, "static", "WORKER-2")
	big.waitDrawn()

	small := newHarnessOn(t, mgr, 80, 24, attached, func(c *Config) { c.Sizes = arb })
	for _, p := range []struct {
		id, title string
		lead      bool
	}{{lead, "lead", true}, {w1, "codex-analyser-1", false}, {w2, "claude-analyser-2", false}} {
		small.send(view.PaneOpened{PaneID: p.id, Title: p.title, Lead: p.lead})
	}
	for _, id := range []string{lead, w1, w2} {
		small.static[id] = true
	}
	small.waitDrawn() // the newest screen (its size came last) sized the panes
	checkDrawnAt(t, big, small)
	checkDrawnAt(t, small, small)

	// A key on the big screen: the panes take its sizes back.
	big.key("tab")
	big.waitDrawn()
	checkDrawnAt(t, small, big)
	checkDrawnAt(t, big, big)

	// The small screen, in a layout of its own (zoomed), draws the big
	// screen's panes cut; then it takes the size.
	small.key("z")
	small.waitDrawn()
	checkDrawnAt(t, big, small)
}

// checkDrawnAt waits until on's screen shows each pane with the content
// the pane drew for sizer's layout, and checks on's view is not corrupted:
// exactly its size, each shown pane's rows cut or padded to its place.
func checkDrawnAt(t *testing.T, on, sizer *harness) {
	t.Helper()
	want := map[string]string{}
	for _, pv := range sizer.app.panes {
		if in := pv.rect.Inner(); in.W > 0 && in.H > 0 {
			want[pv.id] = fmt.Sprintf("size=%dx%d", in.W, in.H)
		}
	}
	on.waitFor("the panes at the other screen's size", func() bool {
		for _, pv := range on.app.panes {
			w, ok := want[pv.id]
			if !ok || pv.rect.Empty() {
				continue
			}
			if !pv.hasSnap || len(pv.snap.Lines) == 0 || !strings.Contains(pv.snap.Lines[0], w) {
				return false
			}
		}
		return true
	})
	for on.frame(50 * time.Millisecond) {
	}
	view := on.view()
	rows := strings.Split(view, "\n")
	if len(rows) != on.app.height {
		t.Fatalf("%d rows on a %d-row screen", len(rows), on.app.height)
	}
	for i, r := range rows {
		if w := ansi.StringWidth(r); w != on.app.width {
			t.Fatalf("row %d is %d cells wide on a %d-cell screen:\n%s", i, w, on.app.width, ansi.Strip(view))
		}
	}
	plain := strings.Split(ansi.Strip(view), "\n")
	for _, pv := range on.app.panes {
		r := pv.rect
		if r.Empty() {
			continue
		}
		// The title bar is where the layout puts it, and the pane's first
		// row shows what it drew, cut to its place.
		title := ansi.Cut(plain[r.Y], r.X, r.X+r.W)
		if !strings.Contains(title, pv.label()) && !strings.Contains(title, "…") {
			t.Fatalf("title of %s at row %d is %q", pv.id, r.Y, title)
		}
		first := ansi.Cut(plain[r.Y+1], r.X, r.X+r.W)
		drawn := ansi.Strip(pv.snap.Lines[0])
		want := fit(drawn, r.W)
		if on != sizer && pv.snap.Cols < r.W {
			// The part of the place the pane does not cover is marked.
			want = fit(drawn, pv.snap.Cols) + strings.Repeat("·", r.W-pv.snap.Cols)
		}
		if first != want {
			t.Fatalf("%s's first row is %q, want %q (drawn at %dx%d, shown at %dx%d)", pv.id, first, want, pv.snap.Cols, pv.snap.Rows, r.W, r.H-1)
		}
		// Rows below what the pane has are marked unused (blank on the
		// screen that sized it); rows it has beyond its place are not drawn.
		for y := 1; y < r.H; y++ {
			cell := ansi.Cut(plain[r.Y+y], r.X, r.X+r.W)
			if y-1 >= pv.snap.Rows && strings.Trim(cell, "· ") != "" {
				t.Fatalf("%s: row %d beyond the pane's %d rows shows %q", pv.id, y-1, pv.snap.Rows, cell)
			}
			if y-1 >= pv.snap.Rows && on != sizer && cell != strings.Repeat("·", r.W) {
				t.Fatalf("%s: row %d beyond the pane's %d rows is not marked unused: %q", pv.id, y-1, pv.snap.Rows, cell)
			}
		}
		// The separator column left of a pane that does not start at the
		// left edge is intact on every row.
		if r.X > 0 {
			for y := r.Y; y < r.Y+r.H; y++ {
				if c := ansi.Cut(plain[y], r.X-1, r.X); c != "│" {
					t.Fatalf("row %d: %q left of %s, want the separator", y, c, pv.id)
				}
			}
		}
	}
}

// TestDrawAtAnotherSize feeds a screen snapshots bigger and smaller than
// the panes' places, with styles and wide characters at the cut: every
// row stays exactly the screen's width, the cut closes its style.
func TestDrawAtAnotherSize(t *testing.T) {
	a := dryApp(t, 60, 20, 1)
	in := a.byID["pane-2"].rect.Inner()
	wide := strings.Repeat("\x1b[31m漢字\x1b[m", in.W) // 4 cells a repeat: far wider than the place
	big := panes.Snapshot{Cols: in.W * 4, Rows: in.H + 9}
	for range big.Rows {
		big.Lines = append(big.Lines, "\x1b[1;44m"+wide)
	}
	small := panes.Snapshot{Cols: 3, Rows: 2, Lines: []string{"\x1b[32mab\x1b[m", "漢"}, Cursor: term.Cursor{X: 2, Y: 1, Visible: true}}
	for _, s := range []panes.Snapshot{big, small, big} {
		send(a, framesMsg{snaps: []paneSnap{{id: "pane-1", snap: s}, {id: "pane-2", snap: s}}})
		view := a.View().Content
		rows := strings.Split(view, "\n")
		if len(rows) != 20 {
			t.Fatalf("%d rows", len(rows))
		}
		for i, r := range rows {
			if w := ansi.StringWidth(r); w != 60 {
				t.Fatalf("row %d is %d cells:\n%s", i, w, ansi.Strip(view))
			}
		}
		for _, pv := range a.panes {
			for i := range pv.rect.H - 1 {
				row := a.paneRow(pv, i)
				if strings.Contains(row, "\x1b[") && !strings.HasSuffix(strings.TrimRight(row, " "), "\x1b[m") {
					t.Fatalf("%s row %d leaves a style open: %q", pv.id, i, row)
				}
			}
		}
	}
	// A cursor beyond the place is not shown; inside it is.
	keys(a, "enter")
	send(a, framesMsg{snaps: []paneSnap{{id: "pane-1", snap: panes.Snapshot{Cols: 200, Rows: 100, Lines: make([]string, 100), Cursor: term.Cursor{X: 150, Y: 1, Visible: true}}}}})
	if c := a.View().Cursor; c != nil {
		t.Fatalf("cursor beyond the pane's place shown at %+v", c)
	}
	send(a, framesMsg{snaps: []paneSnap{{id: "pane-1", snap: small}}})
	if c := a.View().Cursor; c == nil {
		t.Fatal("cursor inside the pane's place not shown")
	}
	// A click in the padding beyond a smaller pane's cells is not the
	// program's; inside its cells it is.
	small.Modes.Mouse = term.MouseNormal
	send(a, framesMsg{snaps: []paneSnap{{id: "pane-1", snap: small}}})
	a.ops = nil
	pin := a.byID["pane-1"].rect.Inner()
	send(a, tea.MouseClickMsg{X: pin.X + 10, Y: pin.Y + 5, Button: tea.MouseLeft})
	if len(a.ops) != 0 {
		t.Fatalf("a click outside the pane's cells was sent: %+v", a.ops)
	}
	send(a, tea.MouseClickMsg{X: pin.X + 1, Y: pin.Y + 1, Button: tea.MouseLeft})
	if len(a.ops) != 1 || a.ops[0].kind != opMouse || a.ops[0].mouse.X != 1 || a.ops[0].mouse.Y != 1 {
		t.Fatalf("a click in the pane's cells: %+v", a.ops)
	}
}

// TestRestoreViewState: a screen given the view state another left comes
// back with the same focus, zoom, timeline and input mode, and draws the
// same screen.
func TestRestoreViewState(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	mgr := panes.NewManager()
	first := newHarnessOn(t, mgr, 100, 30, attached)
	first.open("lead", true, "static", "LEAD")
	first.open("codex-analyser-1", false, "static", "W1")
	w2 := first.open("claude-analyser-2", false, "static", "W2")
	first.key("3", "z", "t", "enter")
	first.waitDrawn()
	before := first.plain()
	first.key("ctrl+b", "d")
	if first.ended == nil {
		t.Fatal("did not detach")
	}
	vs := first.app.ViewState()
	if want := (ViewState{Focus: w2, Zoom: true, HideTimeline: true, Input: true}); vs != want {
		t.Fatalf("view state = %+v, want %+v", vs, want)
	}

	next := newHarnessOn(t, mgr, 100, 30, attached, func(c *Config) { c.Restore = &vs })
	for i, title := range []string{"lead", "codex-analyser-1", "claude-analyser-2"} {
		next.send(view.PaneOpened{PaneID: fmt.Sprintf("pane-%d", i+1), Title: title, Lead: i == 0})
		next.static[fmt.Sprintf("pane-%d", i+1)] = true
	}
	if focusedID(next.app) != w2 || !next.app.zoom || next.app.showTimeline || next.app.mode != modeInput {
		t.Fatalf("restored focus=%s zoom=%v timeline=%v mode=%v", focusedID(next.app), next.app.zoom, next.app.showTimeline, next.app.mode)
	}
	next.waitDrawn()
	if got := next.plain(); got != before {
		t.Fatalf("the screen did not come back as it was:\n%s\nwas:\n%s", got, before)
	}
	if got := next.app.ViewState(); got != vs {
		t.Fatalf("view state after restore = %+v, want %+v", got, vs)
	}

	// A pane that went while detached: the default view, the timeline as
	// it was.
	gone := ViewState{Focus: "pane-99", Zoom: true, HideTimeline: true}
	other := newHarnessOn(t, mgr, 100, 30, attached, func(c *Config) { c.Restore = &gone })
	if focusedID(other.app) != "pane-1" || other.app.zoom || other.app.showTimeline {
		t.Fatalf("restore of a gone pane: focus=%s zoom=%v timeline=%v", focusedID(other.app), other.app.zoom, other.app.showTimeline)
	}
	if other.app.restore != nil {
		t.Fatal("the restore of a gone pane is still pending")
	}
}

// TestScreensShareChanges: two screens on one Manager both get every
// pane's output and its bell; the hub reading the Manager ends with the
// last screen.
func TestScreensShareChanges(t *testing.T) {
	mgr := panes.NewManager()
	one := newHarnessOn(t, mgr, 100, 30)
	two := newHarnessOn(t, mgr, 100, 30)
	one.open("lead", true, "static", "LEAD")
	id := one.open("codex-analyser-1", false, "notify", "needs-you")
	two.send(view.PaneOpened{PaneID: "pane-1", Title: "lead", Lead: true})
	two.send(view.PaneOpened{PaneID: id, Title: "codex-analyser-1"})
	for _, hs := range []*harness{one, two} {
		hs.waitFor("the bell on both screens", func() bool { return hs.app.byID[id].attention })
		hs.waitFor("the notification on both screens", func() bool { return strings.Contains(hs.app.notice, "needs-you") })
	}
	one.app.Stop()
	two.app.Stop()
	waitNoGoroutines(t, func() string { return filterStacks(leakedGoroutines(), "dirtyHub") })
}
