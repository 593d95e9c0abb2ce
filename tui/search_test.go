package tui

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/okstra/cockpit/panes/term"
)

// historyRun opens a static lead and a worker that printed n history
// lines, focuses the worker and waits for its history.
func historyRun(t *testing.T, w, h, n int, opts ...func(*Config)) (*harness, *paneView) {
	t.Helper()
	hs := newHarness(t, w, h, opts...)
	hs.open("lead", true, "static", "LEAD")
	id := hs.open("codex-analyser-1", false, "history", fmt.Sprint(n))
	pv := hs.app.byID[id]
	hs.waitFor("the history", func() bool {
		return pv.snap.ScrollbackLen > n-pv.rect.Inner().H && strings.Contains(strings.Join(pv.snap.Lines, "\n"), fmt.Sprintf("history line %03d", n))
	})
	hs.waitDrawn()
	hs.key("l")
	return hs, pv
}

// typeQuery types a search query and enters it.
func (hs *harness) typeQuery(q string) {
	hs.t.Helper()
	for _, r := range q {
		if r == ' ' {
			hs.key("space")
		} else {
			hs.key(string(r))
		}
	}
	hs.key("enter")
}

func (hs *harness) titleOf(pv *paneView) string {
	return strings.TrimSpace(strings.Split(hs.plain(), "\n")[pv.rect.Y][pv.rect.X:])
}

// TestSearchGolden: a backward search from the bottom highlights every
// match in view and the current one (the newest) differently; n goes on
// upwards. At 80×24 and 160×48, with colour and without.
func TestSearchGolden(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	for _, c := range []struct {
		name    string
		w, h    int
		noColor bool
	}{{"80x24", 80, 24, false}, {"160x48", 160, 48, false}, {"80x24-nocolor", 80, 24, true}} {
		t.Run(c.name, func(t *testing.T) {
			hs, _ := historyRun(t, c.w, c.h, 200, func(cfg *Config) { cfg.NoColor = c.noColor })
			hs.key("[", "?")
			hs.typeQuery("line 19")
			hs.key("n")
			golden.RequireEqual(t, screen(hs))
		})
	}
}

// TestSelectGolden: a selection from the current match over two lines,
// painted over the matches, with its cursor.
func TestSelectGolden(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	for _, c := range []struct {
		name    string
		noColor bool
	}{{"color", false}, {"nocolor", true}} {
		t.Run(c.name, func(t *testing.T) {
			hs, _ := historyRun(t, 80, 24, 200, func(cfg *Config) { cfg.NoColor = c.noColor })
			hs.key("[", "?")
			hs.typeQuery("line 19")
			hs.key("n", "n", "v", "j", "e")
			golden.RequireEqual(t, screen(hs))
		})
	}
}

func TestSearchKeys(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	hs, pv := historyRun(t, 100, 30, 300)
	hs.key("[", "/")
	if !strings.Contains(hs.plain(), " /") {
		t.Fatalf("no prompt on the status line:\n%s", hs.plain())
	}
	hs.typeQuery("LINE")
	// An upper-case letter: exact case, nothing found.
	if f := hs.app.scroll.find; f == nil || len(f.matches) != 0 || !strings.Contains(hs.app.notice, "not found: LINE") {
		t.Fatalf("search LINE: %+v notice %q", f, hs.app.notice)
	}
	// Smart case: lower case finds every line; forward from the top of
	// the view finds the first line in it.
	hs.key("/")
	hs.typeQuery("line 0")
	f := hs.app.scroll.find
	if f == nil || len(f.matches) != 99 {
		t.Fatalf("search line 0: %+v", f)
	}
	if !strings.Contains(hs.titleOf(pv), "[/line 0 1/99]") {
		t.Fatalf("title after the search: %q", hs.titleOf(pv))
	}
	// The view scrolled to the match, which is highlighted.
	first, last := hs.app.viewLines(pv)
	if l := f.matches[f.cur].Start.Line; l < first || l > last {
		t.Fatalf("current match on line %d, view %d-%d", l, first, last)
	}
	if !strings.Contains(hs.view(), "\x1b[0;1;30;45mline 0") {
		t.Fatalf("the current match is not highlighted:\n%q", hs.view())
	}
	// n goes down, N up, wrapping at both ends.
	hs.key("n", "n")
	if !strings.Contains(hs.titleOf(pv), "3/99]") {
		t.Fatalf("after n n: %q", hs.titleOf(pv))
	}
	hs.key("N", "N", "N")
	if !strings.Contains(hs.titleOf(pv), "99/99]") {
		t.Fatalf("N past the first match does not wrap: %q", hs.titleOf(pv))
	}
	hs.key("n")
	if !strings.Contains(hs.titleOf(pv), "1/99]") {
		t.Fatalf("n past the last match does not wrap: %q", hs.titleOf(pv))
	}
	// ? searches up: n goes up.
	hs.key("?")
	hs.typeQuery("history line 2")
	f = hs.app.scroll.find
	if len(f.matches) != 100 || !f.backward {
		t.Fatalf("? search: %d matches, backward %v", len(f.matches), f.backward)
	}
	cur := f.cur
	hs.key("n")
	if f.cur != cur-1 {
		t.Fatalf("n after ?: %d, was %d", f.cur, cur)
	}
	// An empty query searches the last one again.
	hs.key("/", "enter")
	if f = hs.app.scroll.find; f.query != "history line 2" || f.backward {
		t.Fatalf("empty query: %+v", f)
	}
	// The prompt edits and gives up with esc, keeping the search.
	hs.key("/", "x", "y", "backspace", "esc")
	if promptOf(hs.app) != nil || hs.app.scroll.find == nil {
		t.Fatal("esc in the prompt")
	}
	// esc clears the search, a second esc leaves scroll mode.
	hs.key("esc")
	if hs.app.scroll.find != nil || hs.app.mode != modeScroll {
		t.Fatalf("esc: find %v mode %v", hs.app.scroll.find, hs.app.mode)
	}
	if strings.Contains(hs.view(), "\x1b[0;30;46m") {
		t.Fatal("matches still highlighted after esc")
	}
	hs.key("esc")
	if hs.app.mode != modeNav {
		t.Fatal("second esc did not leave scroll mode")
	}
	// Pasting into the prompt types the first line.
	hs.key("[", "/")
	hs.send(tea.PasteMsg{Content: "line 29\nrest"})
	hs.key("9", "enter")
	if f = hs.app.scroll.find; f == nil || f.query != "line 299" || len(f.matches) != 1 {
		t.Fatalf("pasted query: %+v", f)
	}
}

// TestSearchFollowsOutput: matches keep their lines while new output
// scrolls them, and a search is run again when the pane changed, at most
// once a second, keeping the current match.
func TestSearchFollowsOutput(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	var mu sync.Mutex
	now := testNow
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	hs := newHarness(t, 100, 30, func(c *Config) { c.Now = clock })
	hs.open("lead", true, "static", "LEAD")
	id := hs.open("codex-analyser-1", false, "keys", t.TempDir()+"/keys")
	pv := hs.app.byID[id]
	hs.waitDrawn()
	// Until the program has its terminal in raw mode, the terminal itself
	// would echo what is written (a second "needle").
	hs.waitFor("the keys program", func() bool { return strings.Contains(hs.plain(), "keys ready") })
	p, _ := hs.mgr.Get(id)
	write := func(s string) {
		if _, err := p.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	write("needle one")
	hs.waitFor("the echo", func() bool { return strings.Contains(hs.plain(), "needle one") })
	if hs.app.mode == modeInput {
		hs.key("ctrl+b")
	}
	hs.key("l", "[", "?")
	hs.typeQuery("needle")
	f := hs.app.scroll.find
	if len(f.matches) != 1 || f.cur != 0 {
		t.Fatalf("first search: %+v", f)
	}
	first := f.matches[0]
	// New output while searching: within the second, the matches stay.
	write("needle two")
	hs.waitFor("the second echo", func() bool { return strings.Contains(hs.plain(), "needle two") })
	if len(f.matches) != 1 {
		t.Fatalf("searched again within the second: %v", f.matches)
	}
	// A second later, n searches again: both found, the current one kept.
	mu.Lock()
	now = now.Add(2 * time.Second)
	mu.Unlock()
	hs.key("n")
	if len(f.matches) != 2 || f.matches[0] != first || f.cur != 0 {
		t.Fatalf("after the refresh: %+v", f)
	}
	if !strings.Contains(hs.titleOf(pv), "[?needle 1/2]") {
		t.Fatalf("title %q", hs.titleOf(pv))
	}
}

// TestSelectKeys: v at the current match, vi motions, y copies the text
// (OSC 52 through tea.SetClipboard) and leaves scroll mode.
func TestSelectKeys(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	hs, pv := historyRun(t, 100, 30, 300)
	hs.key("[", "/")
	hs.typeQuery("line 150")
	hs.key("v", "e", "w", "e")
	if s := hs.app.scroll.sel; s == nil || s.anchor.Col != 8 || s.cursor.Col != 15 || s.cursor.Line != s.anchor.Line {
		t.Fatalf("selection after v e w e: %+v", hs.app.scroll.sel)
	}
	if !strings.Contains(hs.view(), "\x1b[0;30;43mline 15") {
		t.Fatalf("the selection is not painted:\n%q", hs.view())
	}
	hs.key("y")
	if len(hs.clipboard) != 1 || hs.clipboard[0] != "line 150" {
		t.Fatalf("clipboard %q", hs.clipboard)
	}
	if hs.app.mode != modeNav || hs.app.notice != "copied 8 chars" {
		t.Fatalf("after y: mode %v notice %q", hs.app.mode, hs.app.notice)
	}
	// V takes whole lines; j extends; o swaps ends; enter copies.
	hs.key("[", "/")
	hs.typeQuery("line 150")
	hs.key("V", "j", "j", "o", "k", "enter")
	if want := "history line 149\nhistory line 150\nhistory line 151\nhistory line 152"; len(hs.clipboard) != 2 || hs.clipboard[1] != want {
		t.Fatalf("V copy: %q", hs.clipboard)
	}
	// 0 and $ and b, across lines; esc cancels and stays in scroll mode.
	hs.key("[", "/")
	hs.typeQuery("line 200")
	hs.key("space", "b", "b")
	s := hs.app.scroll.sel
	if s == nil || s.cursor.Col != 13 || s.cursor.Line != s.anchor.Line-1 {
		t.Fatalf("b b across the line start: %+v", s)
	}
	hs.key("$")
	if s.cursor.Col != 15 {
		t.Fatalf("$: %+v", s)
	}
	hs.key("0", "esc")
	if hs.app.scroll.sel != nil || hs.app.mode != modeScroll || hs.app.scroll.find == nil {
		t.Fatal("esc while selecting should drop the selection only")
	}
	// G, g, H, L move to the ends of the history and the view.
	hs.key("v", "g")
	if s := hs.app.scroll.sel; s.cursor.Line != hs.app.textEnd(pv)-len(pv.snap.Lines)-pv.snap.ScrollbackLen || hs.app.scroll.back != pv.snap.ScrollbackLen {
		t.Fatalf("g: %+v back %d", s, hs.app.scroll.back)
	}
	hs.key("G")
	if s := hs.app.scroll.sel; s.cursor.Line != hs.app.textEnd(pv)-1 || hs.app.scroll.back != 0 {
		t.Fatalf("G: %+v back %d", s, hs.app.scroll.back)
	}
	hs.key("H")
	first, last := hs.app.viewLines(pv)
	if hs.app.scroll.sel.cursor.Line != first {
		t.Fatalf("H: %+v, view %d-%d", hs.app.scroll.sel, first, last)
	}
	hs.key("k")
	if f2, _ := hs.app.viewLines(pv); f2 != first-1 || hs.app.scroll.sel.cursor.Line != first-1 {
		t.Fatal("k above the view did not scroll it")
	}
	// The prefix (ctrl+b, vi's page up) is the prefix while selecting:
	// prefix esc leaves scroll mode.
	hs.key("ctrl+b", "esc")
	if hs.app.mode != modeNav || hs.app.scroll.sel != nil {
		t.Fatalf("the prefix while selecting: mode %v", hs.app.mode)
	}
}

// TestSelectMouse: a drag selects and the release copies; a double click
// copies a word, a triple click a line; typing into the pane resumes
// after a drag that began there.
func TestSelectMouse(t *testing.T) {
	hs, pv := historyRun(t, 100, 30, 300)
	in := pv.rect.Inner()
	// The last rows: "history line 299", "history line 300", "$ ", blank.
	var row300 int
	for i, l := range pv.snap.Lines {
		if strings.Contains(l, "history line 300") {
			row300 = i
		}
	}
	y := in.Y + row300
	hs.send(tea.MouseClickMsg{X: in.X + 8, Y: y - 1, Button: tea.MouseLeft})
	hs.send(tea.MouseMotionMsg{X: in.X + 5, Y: y, Button: tea.MouseLeft})
	if hs.app.mode != modeScroll || hs.app.scroll.sel == nil {
		t.Fatalf("a drag should select in scroll mode: mode %v", hs.app.mode)
	}
	hs.send(tea.MouseMotionMsg{X: in.X + 6, Y: y, Button: tea.MouseLeft})
	hs.send(tea.MouseReleaseMsg{X: in.X + 6, Y: y, Button: tea.MouseLeft})
	if want := "line 299\nhistory"; len(hs.clipboard) != 1 || hs.clipboard[0] != want {
		t.Fatalf("drag copied %q, want %q", hs.clipboard, want)
	}
	if hs.app.mode != modeNav || hs.app.notice != "copied 16 chars" {
		t.Fatalf("after the drag: mode %v notice %q", hs.app.mode, hs.app.notice)
	}
	// A double click copies the word under it, a triple click the line.
	click := func() {
		hs.send(tea.MouseClickMsg{X: in.X + 2, Y: y, Button: tea.MouseLeft})
		hs.send(tea.MouseReleaseMsg{X: in.X + 2, Y: y, Button: tea.MouseLeft})
	}
	click()
	click()
	if len(hs.clipboard) != 2 || hs.clipboard[1] != "history" {
		t.Fatalf("double click copied %q", hs.clipboard)
	}
	click()
	if len(hs.clipboard) != 3 || hs.clipboard[2] != "history line 300" {
		t.Fatalf("triple click copied %q", hs.clipboard)
	}
	// Typing into the pane (its program did not ask for the mouse): a
	// drag selects too, and typing resumes after the copy.
	hs.key("enter")
	hs.send(tea.MouseClickMsg{X: in.X, Y: y, Button: tea.MouseLeft})
	hs.send(tea.MouseMotionMsg{X: in.X + 6, Y: y, Button: tea.MouseLeft})
	hs.send(tea.MouseReleaseMsg{X: in.X + 6, Y: y, Button: tea.MouseLeft})
	if len(hs.clipboard) != 4 || hs.clipboard[3] != "history" || hs.app.mode != modeInput {
		t.Fatalf("drag while typing: %q, mode %v", hs.clipboard, hs.app.mode)
	}
	// A click on the title bar is no selection.
	hs.send(tea.MouseClickMsg{X: in.X + 2, Y: pv.rect.Y, Button: tea.MouseLeft})
	hs.send(tea.MouseMotionMsg{X: in.X + 6, Y: pv.rect.Y + 3, Button: tea.MouseLeft})
	if hs.app.scroll.sel != nil {
		t.Fatal("a drag from the title bar selected")
	}
}

// TestSelectMouseProgramAsked: typing into a program that asked for the
// mouse, a drag is the program's, not a selection.
func TestSelectMouseProgramAsked(t *testing.T) {
	hs := newHarness(t, 100, 30)
	hs.open("lead", true, "static", "LEAD")
	out := t.TempDir() + "/keys"
	id := hs.open("codex-analyser-1", false, "keys", out, "mouse")
	pv := hs.app.byID[id]
	hs.waitFor("mouse mode", func() bool { return pv.snap.Modes.Mouse != term.MouseNone })
	hs.key("l", "enter")
	in := pv.rect.Inner()
	hs.send(tea.MouseClickMsg{X: in.X + 1, Y: in.Y + 1, Button: tea.MouseLeft})
	hs.send(tea.MouseMotionMsg{X: in.X + 5, Y: in.Y + 1, Button: tea.MouseLeft})
	hs.send(tea.MouseReleaseMsg{X: in.X + 5, Y: in.Y + 1, Button: tea.MouseLeft})
	if hs.app.mode != modeInput || hs.app.scroll.sel != nil || len(hs.clipboard) != 0 {
		t.Fatalf("mode %v sel %v clipboard %q", hs.app.mode, hs.app.scroll.sel, hs.clipboard)
	}
	waitFile(t, out, "\x1b[<0;2;2M\x1b[<0;6;2m")
}
