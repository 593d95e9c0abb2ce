package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// dialogRows are the gate dialog's content rows as plain text, without
// the box.
func dialogRows(a *App) []string {
	var rows []string
	for _, l := range strings.Split(ansi.Strip(a.View().Content), "\n") {
		if i, j := strings.Index(l, "│ "), strings.LastIndex(l, " │"); i >= 0 && j > i {
			rows = append(rows, strings.TrimRight(l[i+len("│ "):j], " "))
		}
	}
	return rows
}

// TestGateDialogFits: at 40×10 the dialog keeps its title, every option,
// the note and the keys on screen (the statement scrolls above, ▲), cut
// text ends with …, and pgup/pgdn and the wheel scroll; at 80×24 the keys
// wrap between items, never inside one.
func TestGateDialogFits(t *testing.T) {
	t.Run("40x10", func(t *testing.T) {
		a, got := gateApp(t, 40, 10, nil)
		run(a, withGates(decisionGate))
		golden.RequireEqual(t, a.View().Content)
		rows := strings.Join(dialogRows(a), "\n")
		for _, want := range []string{"Gate C-003", "▸ 1. [recommended] Keep the c…", "2. [alternative] Move the cac…", "3. [alternative] Drop the c…", "note (optional):", "↑↓ choose · type the note", "enter send · esc later", "▲"} {
			if !strings.Contains(rows, want) {
				t.Fatalf("the dialog lacks %q:\n%s", want, rows)
			}
		}
		// Option 2 chosen, then its details scrolled to.
		runKeys(a, "down")
		if !strings.Contains(strings.Join(dialogRows(a), "\n"), "▸ 2.") {
			t.Fatalf("option 2 not shown chosen:\n%s", strings.Join(dialogRows(a), "\n"))
		}
		runKeys(a, "pgdown")
		rows = strings.Join(dialogRows(a), "\n")
		if !strings.Contains(rows, "why: Matches the service") || !strings.Contains(rows, "↑↓ choose") {
			t.Fatalf("pgdn does not show the chosen option's details:\n%s", rows)
		}
		// The statement is above: pgup reaches it.
		runKeys(a, "pgup", "pgup", "pgup")
		rows = strings.Join(dialogRows(a), "\n")
		if !strings.Contains(rows, "The analysers disagree on") || strings.Contains(rows, "▲") {
			t.Fatalf("pgup does not reach the statement:\n%s", rows)
		}
		t.Run("statement", func(t *testing.T) { golden.RequireEqual(t, a.View().Content) })
		// The wheel scrolls too; a click on a choice still chooses it.
		run(a, tea.MouseWheelMsg{X: 20, Y: 5, Button: tea.MouseWheelDown})
		run(a, tea.MouseWheelMsg{X: 20, Y: 5, Button: tea.MouseWheelDown})
		if !strings.Contains(strings.Join(dialogRows(a), "\n"), "3. [alternative]") { // drawn: the mouse map follows
			t.Fatalf("the wheel did not scroll to option 3:\n%s", strings.Join(dialogRows(a), "\n"))
		}
		for y, i := range gateOf(a).choiceAt {
			if i == 2 {
				run(a, tea.MouseClickMsg{X: gateOf(a).boxX + 3, Y: y, Button: tea.MouseLeft})
				break
			}
		}
		if gateOf(a).sel != 2 {
			t.Fatalf("a click on option 3 chose %d:\n%s", gateOf(a).sel+1, strings.Join(dialogRows(a), "\n"))
		}
		runKeys(a, "enter")
		if len(*got) != 1 || (*got)[0].Option != 2 {
			t.Fatalf("answers %+v, want option 3", *got)
		}
	})
	t.Run("80x24", func(t *testing.T) {
		a, _ := gateApp(t, 80, 24, nil)
		run(a, withGates(decisionGate))
		golden.RequireEqual(t, a.View().Content)
		rows := dialogRows(a)
		last := rows[len(rows)-1]
		if last != "esc: later" || !strings.HasSuffix(rows[len(rows)-2], "enter/click again: send") {
			t.Fatalf("the keys are not wrapped between items:\n%s", strings.Join(rows, "\n"))
		}
	})
	t.Run("authoring_40x10", func(t *testing.T) {
		a, _ := gateApp(t, 40, 10, nil)
		run(a, withGates(authoringGate))
		runKeys(a, "down")
		typeText(a, "the writer timed out twice")
		golden.RequireEqual(t, a.View().Content)
		rows := strings.Join(dialogRows(a), "\n")
		for _, want := range []string{"approve", "▸ deny", "reason (required): ", "timed out twice", "enter send"} {
			if !strings.Contains(rows, want) {
				t.Fatalf("the dialog lacks %q:\n%s", want, rows)
			}
		}
	})
}

func TestWrapHelpers(t *testing.T) {
	if got := wrapWords("one two three four", 9, 0, 2); strings.Join(got, "|") != "one two|  three|  four" {
		t.Fatalf("wrapWords = %q", got)
	}
	if got := wrapWords("a verylongword b", 6, 0, 0); strings.Join(got, "|") != "a|verylongword|b" {
		t.Fatalf("wrapWords keeps long words whole: %q", got)
	}
	if got := wrapItems([]string{"ab", "cd", "a long item here"}, 8); strings.Join(got, "|") != "ab · cd|a long …" {
		t.Fatalf("wrapItems = %q", got)
	}
	if got := fitCut("\x1b[1mhello world\x1b[m", 8); ansi.Strip(got) != "hello w…" || ansi.StringWidth(got) != 8 {
		t.Fatalf("fitCut = %q", got)
	}
}
