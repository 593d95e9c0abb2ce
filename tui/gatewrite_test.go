package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state/approval"
)

// TestGateWriteFails (issue 19, item 4, the screen's side): the answer's
// write really fails — the report's user-response sidecar cannot be
// written, a directory stands where the file goes (the tests run as root,
// for whom no mode bit refuses a write) — and the screen does not say
// "answered": the dialog and the gate stay open with the write's own
// reason, and enter tries again. Once the path is free the same answer is
// written, and only then does the screen say answered.
func TestGateWriteFails(t *testing.T) {
	root := t.TempDir()
	report := filepath.Join(root, ".okstra", "dev-1", "reports", "final-report-feature-analysis-002.md")
	sidecar := approval.SidecarPath(report)
	if err := os.MkdirAll(filepath.Join(sidecar, "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	var tried int
	a := dryApp(t, 80, 24, 1)
	// What the engine's AnswerGate must do (docs/SCREEN.md, "Gate answers
	// and the engine"): write the answer durably, and return the write's
	// error.
	a.actions.AnswerGate = func(ans view.GateAnswer) error {
		tried++
		_, err := approval.WriteSidecar(approval.WriteRequest{
			Report: report, ReportPending: true, ProjectRoot: root, TaskKey: "dev-1",
			ReportAuthoring: &approval.ReportAuthoring{Status: ans.Status, Reason: ans.Note},
		})
		return err
	}
	run(a, withGates(authoringGate))
	runKeys(a, "down")
	typeText(a, "the writer must retry first")
	runKeys(a, "enter")

	d := gateOf(a)
	scr := ansi.Strip(a.View().Content)
	flat := strings.Join(strings.Fields(strings.ReplaceAll(scr, "│", " ")), " ")
	if tried != 1 || d == nil || d.busy || len(a.run.Gates) != 1 {
		t.Fatalf("after the failed write: %d tries, dialog %v, gates %d:\n%s", tried, d != nil, len(a.run.Gates), scr)
	}
	if strings.Contains(a.notice, "answered") || strings.Contains(scr, "answered") {
		t.Fatalf("the screen says answered though nothing was written: notice %q\n%s", a.notice, scr)
	}
	if !strings.Contains(flat, "not recorded:") || !strings.Contains(flat, "user-response-feature-analysis-002.md") || !strings.Contains(flat, "the gate is still open") {
		t.Fatalf("the dialog does not say why the answer was not recorded:\n%s", scr)
	}
	if got := sendsLine(a); got != "enter sends: deny · reason “the writer must retry first”" {
		t.Fatalf("the answer to send again changed: %q", got)
	}
	if st, err := os.Stat(sidecar); err != nil || !st.IsDir() {
		t.Fatalf("something was written at the sidecar's path: %v", err)
	}

	// The path is free: enter sends the same answer, and it is written.
	if err := os.RemoveAll(sidecar); err != nil {
		t.Fatal(err)
	}
	runKeys(a, "enter")
	body, err := os.ReadFile(sidecar)
	if err != nil || !strings.Contains(string(body), "denied") || !strings.Contains(string(body), "the writer must retry first") {
		t.Fatalf("the retry did not write the answer (%v):\n%s", err, body)
	}
	if tried != 2 || gateOf(a) != nil || len(a.run.Gates) != 0 || a.notice != "gate report-authoring answered: deny" {
		t.Fatalf("after the retry: %d tries, dialog %v, gates %d, notice %q", tried, gateOf(a) != nil, len(a.run.Gates), a.notice)
	}
}
