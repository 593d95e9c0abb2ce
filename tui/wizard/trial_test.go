package wizard

import (
	"regexp"
	"strings"
	"testing"
	"testing/synctest"

	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/workers/setup"
)

// counter is the "step n/total" (or "n/total 단계") of the screen.
var counter = regexp.MustCompile(`(\d+[a-c]?)/(\d+)`)

// TestStepCounterIsFixed drives the implementation scenario: the total is
// the same on every screen from the first (13), and the numbers follow
// docs/WIZARD.md, sub-steps with a letter.
func TestStepCounterIsFixed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDriver(t, "en", 80, 30)
		var seen []string
		at := func() {
			m := counter.FindStringSubmatch(strings.SplitN(d.screen(), "\n", 2)[0])
			if m == nil || m[2] != "13" {
				t.Fatalf("step %s: counter %q, want n/13:\n%s", d.m.Step(), m, d.screen())
			}
			if want := setup.StepNumber(d.m.Step()); m[1] != want {
				t.Fatalf("step %s shows %s, want %s", d.m.Step(), m[1], want)
			}
			seen = append(seen, m[1])
		}
		at()
		d.typ("dev-10860")
		d.enter()
		at()
		d.enter()
		at()
		d.enter() // implementation, from the pointer
		at()
		d.down(2) // type them in
		d.enter()
		at()
		d.typ("dev-10001")
		d.enter()
		at() // directive
		if strings.Join(seen, " ") != "1 2 3 4 4a 5" {
			t.Fatalf("numbers %v", seen)
		}
	})
}

// TestSuggestionKeys: a task key suggestion is taken with tab, → or ctrl+e,
// and the help line says so.
func TestSuggestionKeys(t *testing.T) {
	for _, k := range []tea.KeyPressMsg{{Code: tea.KeyTab}, {Code: tea.KeyRight}, {Code: 'e', Mod: tea.ModCtrl}} {
		synctest.Test(t, func(t *testing.T) {
			d := newDriver(t, "en", 80, 30)
			if !strings.Contains(d.screen(), "tab/→/ctrl+e complete") {
				t.Fatalf("the help line does not say how to complete:\n%s", d.screen())
			}
			for _, r := range "dev-1086" { // typed: a paste updates no suggestion
				d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			d.send(k)
			d.enter()
			d.expect(setup.StepTaskGroup)
			if d.m.Session().A.TaskKey != "dev-10860" {
				t.Fatalf("%s: task key %q", k, d.m.Session().A.TaskKey)
			}
		})
	}
}

// TestRoleCountPlaceholderWhole: the role count's placeholder is shown
// whole, in both languages.
func TestRoleCountPlaceholderWhole(t *testing.T) {
	for lang, want := range map[string]string{"en": "> empty = phase default", "ko": "> 비우면 phase 기본값"} {
		synctest.Test(t, func(t *testing.T) {
			d := newDriver(t, lang, 80, 30)
			d.typ("ops-7")
			for d.m.Step() != setup.StepRoleCount {
				d.enter()
			}
			if !strings.Contains(d.screen(), want) {
				t.Fatalf("%s: the placeholder is cut:\n%s", lang, d.screen())
			}
			d.typ("17")
			d.enter()
			d.expect(setup.StepRoleCount) // still refused by the session
		})
	}
}

// TestModelNamesNotSplit: on a narrow terminal the summary and a
// description that name models wrap between words, never inside a model
// name.
func TestModelNamesNotSplit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDriver(t, "en", 50, 40)
		d.typ("dev-10860")
		d.enter()
		d.enter()
		d.enter()
		d.enter()
		d.enter()
		d.expect(setup.StepWorkers)
		d.space() // antigravity off
		d.enter()
		d.enter()
		d.down(2) // codex: gpt-6-astra
		d.enter()
		for d.m.Step() != setup.StepExecutorModel {
			if d.m.Step() == setup.StepExecutor {
				d.down(1) // codex
			}
			d.enter()
		}
		if scr := d.screen(); !strings.Contains(scr, "gpt-6-astra.") {
			t.Fatalf("the executor model's description splits the model name:\n%s", scr)
		}
		for d.m.Step() != setup.StepConfirm {
			d.enter()
		}
		scr := d.screen()
		for _, m := range []string{"verifier=codex/gpt-6-astra", "implementer=codex/gpt-6-astra"} {
			if !strings.Contains(scr, m) {
				t.Fatalf("the summary splits %q:\n%s", m, scr)
			}
		}
		if _, sum, _ := strings.Cut(scr, "Task key"); strings.Contains(sum, "…") {
			t.Fatalf("the summary cuts a line:\n%s", scr)
		}
		for _, l := range strings.Split(scr, "\n") {
			if w := displayWidth(l); w > 50 {
				t.Fatalf("a line of %d cells: %q", w, l)
			}
		}
		d.snap("confirm_50")
	})
}

// TestKeysTypedAheadReachTheirStep: keys typed before the program has
// brought back huh's answer to an enter (its next-field messages) go to
// the step they were typed at, not to the one being left: the terminal
// test's flake under load, where an enter answered the group step and the
// task type step's default too, and the next ↓ landed on the task type.
func TestKeysTypedAheadReachTheirStep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDriver(t, "en", 80, 30)
		d.typ("dev-10860")
		_, submit := d.m.Update(tea.KeyPressMsg{Code: tea.KeyEnter}) // the key step's answer, not back yet
		// Typed ahead: enter (the group as it is), ↓ (task type), enter.
		for _, k := range []tea.KeyPressMsg{{Code: tea.KeyEnter}, {Code: tea.KeyDown}, {Code: tea.KeyEnter}} {
			if _, cmd := d.m.Update(k); cmd != nil {
				t.Fatalf("a key typed ahead was not kept for its step: %v", k)
			}
		}
		d.expect(setup.StepTaskKey)
		d.run(submit) // the program brings the answer back: the keys follow
		d.expect(setup.StepRelatedTasks)
		a := d.m.Session().A
		if a.TaskKey != "dev-10860" || a.TaskGroup != "billing" || a.TaskType != "final-verification" {
			t.Fatalf("answers %q %q %q, want dev-10860 billing final-verification (implementation, then ↓)", a.TaskKey, a.TaskGroup, a.TaskType)
		}
	})
}

// TestSummaryScrollsAt60x20 (issue 17 item 9): at 60×20 the confirm
// step's summary is taller than the terminal; it scrolls (↓, pgdn, end)
// instead of being cut, says where it is, and the keys line says how.
func TestSummaryScrollsAt60x20(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDriver(t, "en", 60, 20)
		d.typ("dev-10860")
		for i := 0; i < 20 && d.m.Step() != setup.StepConfirm; i++ {
			d.enter()
		}
		if d.m.Step() != setup.StepConfirm {
			t.Fatalf("never reached the summary: at %s", d.m.Step())
		}
		fits := func(scr string) {
			t.Helper()
			lines := strings.Split(strings.TrimRight(scr, "\n"), "\n")
			if len(lines) > 20 {
				t.Fatalf("%d lines at 60×20:\n%s", len(lines), scr)
			}
			for _, l := range lines {
				if displayWidth(l) > 60 {
					t.Fatalf("a line of %d columns:\n%s", displayWidth(l), scr)
				}
			}
		}
		scr := d.screen()
		fits(scr)
		if !strings.Contains(scr, "pgup/pgdn scroll") || strings.Contains(scr, "The wizard wrote nothing") {
			t.Fatalf("the summary's top, with the scroll keys:\n%s", scr)
		}
		d.send(tea.KeyPressMsg{Code: tea.KeyEnd})
		scr = d.screen()
		fits(scr)
		if !strings.Contains(scr, "The wizard wrote nothing") || !strings.Contains(scr, "--report-language") {
			t.Fatalf("the summary's end after end:\n%s", scr)
		}
		d.send(tea.KeyPressMsg{Code: tea.KeyHome})
		if scr = d.screen(); !strings.Contains(scr, "Task key") {
			t.Fatalf("the summary's top after home:\n%s", scr)
		}
		d.key(tea.KeyDown)
		if scr2 := d.screen(); scr2 == scr {
			t.Fatalf("↓ did not scroll:\n%s", scr2)
		}
	})
}
