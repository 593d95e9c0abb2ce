package main

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/runtime/control"
)

// TestLsFitsEightyColumns (issue 17 item 11): ls prints one row per engine
// within 80 columns whatever the lengths of names and paths: the name is
// cut with … past what leaves the project 16 columns, the project at its
// left; two demos differ by their names; an engine that did not answer
// shows ? for what it would have said.
func TestLsFitsEightyColumns(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.Local)
	long := "/tmp/" + strings.Repeat("very-long-directory-name/", 6) + "project"
	infos := []engineInfo{
		{Name: "demo-1-001", StatusResult: control.StatusResult{PID: 4242, ProjectRoot: "/tmp/cockpit-demo-1/project", Started: now.Add(-time.Hour),
			Panes: 5, Pending: 1, Done: 3, Gates: []string{"C-001"}, Screens: 1, CostKnown: true, CostUSD: 0.125}},
		{Name: "demo-1-001-2", StatusResult: control.StatusResult{PID: 4343, ProjectRoot: "/tmp/cockpit-demo-2/project", Started: now.Add(-48 * time.Hour), Gates: []string{}}},
		{Name: "a-task-key-much-longer-than-any-column-should-be-001", StatusResult: control.StatusResult{PID: 1234567, ProjectRoot: long, Started: now}},
		{Name: "gone-001", StatusResult: control.StatusResult{PID: 99, ProjectRoot: "/p", Started: now}, Error: "connection refused"},
	}
	var b strings.Builder
	printEngines(&b, infos)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > lsWidth {
			t.Errorf("line %d is %d columns wide:\n%s", i, w, l)
		}
	}
	want := []string{
		"NAME ", "PID", "PANES", "DONE", "GATES", "COST", "SCREENS", "PROJECT",
	}
	for _, w := range want {
		if !strings.Contains(lines[0], w) {
			t.Errorf("the header has no %q: %s", w, lines[0])
		}
	}
	fields := func(l string) []string { return strings.Fields(l) }
	if f := fields(lines[3]); !strings.HasSuffix(f[0], "…") || !strings.HasPrefix(f[len(f)-1], "…") || !strings.HasSuffix(f[len(f)-1], "/project") {
		t.Errorf("a long name and project are not cut: %q", lines[3])
	}
	if f := fields(lines[4]); strings.Join(f[2:7], " ") != "? ? ? ? ?" {
		t.Errorf("an engine that did not answer: %q", lines[4])
	}
	// The two demos alone: their names whole, their projects (temp dirs)
	// cut at the left, the part that differs kept.
	b.Reset()
	printEngines(&b, infos[:2])
	lines = strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if f := fields(lines[1]); strings.Join(f[:7], " ") != "demo-1-001 4242 5 3/4 1 $0.12 1" || !strings.HasSuffix(f[7], "/cockpit-demo-1/project") {
		t.Errorf("the first demo's row: %q", lines[1])
	}
	if f := fields(lines[2]); f[0] != "demo-1-001-2" || !strings.HasSuffix(f[len(f)-1], "/cockpit-demo-2/project") {
		t.Errorf("the second demo's row: %q", lines[2])
	}
}
