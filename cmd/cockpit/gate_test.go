package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/state"
)

const gateLead = `#!/bin/sh
set -u
cd %[1]s
step() { : > "$1.done"; while [ ! -f "$2" ]; do sleep 0.05; done; }
cockpit team dispatch --jobs-file %[2]s > d1.out 2>&1
step s1 go1
cockpit gate ask --ledger %[3]s --clarification-id C-003 > gate.out 2> gate.err
: > s2.done
exec sleep 600
`

// TestGateInTheScreen runs a batch in `cockpit open`, then has the lead ask
// a gate: finished panes close before the question shows, the running one
// stays, the dialog shows both options in full, keys choose the
// alternative, and the answer lands in the user-response sidecar and in
// gate ask's JSON after its gate-cleanup and user-confirm lines.
func TestGateInTheScreen(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root, env := paneRun(t)
	fixture.Behaviours{Codex: "ok", Antigravity: "hang", Claude: "ok"}.Set(t, root)
	ledger := fixture.RunDir + "/state/approval-decisions.json"
	opt := func(role, answer, rationale, reach, work, change string) string {
		b, _ := json.Marshal(map[string]any{"role": role, "answer": answer, "rationale": rationale, "reach": reach, "scopeEffects": []string{}, "addedWork": work, "directionChange": change, "disposition": "select"})
		return string(b)
	}
	open := cockpit(t, root, env, "approval-decision", "open", "--project-root", root, "--ledger", ledger,
		"--task-key", "dev-10860", "--task-type", "feature-analysis", "--run-seq", "002",
		"--clarification-id", "C-003", "--ticket-id", "DEV-10860",
		"--statement", "Should the export keep the legacy CSV column order?",
		"--expected-form", "one of the options", "--classification", "user-decision", "--origin", "worker-finding",
		"--user-confirmation", "Confirmed with the user that this blocks approval.",
		"--unblock-condition", "The user picks a column order.", "--recommended-disposition", "select",
		"--option", opt("recommended", "Keep the legacy order", "Three downstream importers read columns by position.", "in-repo", "None beyond the current plan.", "Reverses nothing."),
		"--option", opt("alternative", "Sort columns alphabetically", "Matches the new JSON export.", "cross-repo", "Update importers in billing-sync and reports-etl.", "Reverses plan item P-Step-004."))
	if open.code != 0 {
		t.Fatalf("approval-decision open: %s", open.stderr)
	}
	l := openLead(t, root, env, fixture.PathWith(fixture.FakeBin(t)), 140, 50, func(work string) string {
		return fmt.Sprintf(gateLead, work, fixture.JobsInitial, ledger)
	})
	s, file, work, exit := l.s, l.file, l.work, l.exit
	waitFor(t, "the batch", 30*time.Second, func() bool { _, err := os.Stat(filepath.Join(work, "s1.done")); return err == nil })
	waitFor(t, "the quick workers to finish", 20*time.Second, func() bool {
		for _, p := range []string{fixture.CodexPrompt, fixture.ClaudePrompt} {
			sc, _ := state.ReadSidecar(filepath.Join(root, state.SidecarPath(p)), "s")
			if sc == nil || !state.IsTerminal(sc.Status) {
				return false
			}
		}
		return true
	})
	s.waitScreen("three worker panes", 10*time.Second, func(scr string) bool {
		return titleLine(scr, "Codex analyser") != "" && titleLine(scr, "Claude analyser") != "" && titleLine(scr, "Antigravity analyser") != ""
	})
	// The screen types into the lead at start; the human leaves it to
	// watch, so the gate's dialog opens by itself when it comes.
	s.navigate()
	os.WriteFile(filepath.Join(work, "go1"), nil, 0o644)

	// The dialog, with both options in full, over a screen whose finished
	// panes are already gone.
	scr := s.waitFor("Gate C-003", 20*time.Second)
	flat := strings.Join(strings.Fields(scr), " ")
	for _, want := range []string{
		"Should the export keep the legacy CSV column order?",
		"1. [recommended] Keep the legacy order", "Three downstream importers read columns by position.", "None beyond the current plan.", "Reverses nothing.", "in-repo",
		"2. [alternative] Sort columns alphabetically", "Matches the new JSON export.", "Update importers in billing-sync and reports-etl.", "Reverses plan item P-Step-004.", "cross-repo",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("the dialog does not show %q:\n%s", want, scr)
		}
	}
	if titleLine(scr, "Codex analyser") != "" || titleLine(scr, "Claude analyser") != "" {
		t.Errorf("finished panes still open when the gate showed:\n%s", scr)
	}
	if titleLine(scr, "Antigravity analyser") == "" {
		t.Errorf("the running worker's pane was closed:\n%s", scr)
	}
	// Choose the alternative with the keys, add a note, answer.
	s.keys("Down")
	s.waitScreen("the alternative chosen", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "▸ 2.") })
	s.typeText("importers move first") // the note has the keyboard
	s.keys("Enter")
	waitFor(t, "gate ask to return", 20*time.Second, func() bool { _, err := os.Stat(filepath.Join(work, "s2.done")); return err == nil })

	out := file("gate.out")
	lines := strings.SplitN(out, "\n", 3)
	if len(lines) < 3 || lines[0] != "PROGRESS: phase-gate-cleanup panes=2" || lines[1] != "PROGRESS: user-confirm C-003 Should the export keep the legacy CSV column order?" {
		t.Fatalf("gate ask printed:\n%s\nstderr: %s", out, file("gate.err"))
	}
	var res struct {
		GateID, Answer, Disposition, Note, Sidecar, AnsweredIn string
	}
	if err := json.Unmarshal([]byte(lines[2]), &res); err != nil {
		t.Fatalf("gate ask's answer is not JSON: %v\n%s", err, lines[2])
	}
	if res.GateID != "C-003" || res.Answer != "Sort columns alphabetically" || res.Note != "importers move first" || res.AnsweredIn != "cockpit" {
		t.Fatalf("answer %+v", res)
	}
	sidecar, err := os.ReadFile(filepath.Join(root, res.Sidecar))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sidecar), "## C-003\n- Answer: Sort columns alphabetically\n- Disposition: select") {
		t.Fatalf("sidecar:\n%s", sidecar)
	}
	// gate-cleanup recorded nothing; user-confirm was recorded.
	ledgerText := strings.Join(ledgerLines(t, root), "\n")
	if strings.Contains(ledgerText, "phase-gate-cleanup") || !strings.Contains(ledgerText, "PROGRESS: user-confirm C-003") {
		t.Fatalf("ledger:\n%s", ledgerText)
	}
	s.waitScreen("the dialog gone", 5*time.Second, func(scr string) bool { return !strings.Contains(scr, "Gate C-003") })
	s.keys("q")
	s.keys("y")
	if code := readExit(t, exit, 20*time.Second); code != "0" {
		t.Fatalf("cockpit open exited %s", code)
	}
}
