// Package filetest holds the file checks that tests of the run files share:
// reading and writing a file or failing, a pinned clock, an error that must
// be one line naming its parts, and a file (and its directory) that a
// refused command must leave as it was. Only tests import it.
package filetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/state"
)

// Read returns the file's bytes or fails the test.
func Read(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Write writes the file, making its directories, or fails the test.
func Write(t testing.TB, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// FixedClock pins state.Now at the RFC 3339 time at, for the rest of the
// test; a test that calls it must not run in parallel.
func FixedClock(t testing.TB, at string) {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, at)
	if err != nil {
		t.Fatal(err)
	}
	old := state.Now
	state.Now = func() time.Time { return tm }
	t.Cleanup(func() { state.Now = old })
}

// MustErr fails unless err's text contains every part and is one line.
func MustErr(t testing.TB, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not contain %q", err, p)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error is not one line: %q", err)
	}
}

// Unchanged fails when the file's bytes differ from before, or, with
// dirBefore (ListDir of its directory before), when the directory holds a
// file it did not hold before (a temp file left behind).
func Unchanged(t testing.TB, path string, before []byte, dirBefore []string) {
	t.Helper()
	after, err := os.ReadFile(path)
	if err != nil && before != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Fatalf("%s changed:\n--- before\n%s\n--- after\n%s", path, before, after)
	}
	if dirBefore != nil {
		if got := ListDir(t, filepath.Dir(path)); strings.Join(got, ",") != strings.Join(dirBefore, ",") {
			t.Fatalf("directory changed: %v → %v", dirBefore, got)
		}
	}
}

// ListDir names the directory's files, without lock files (the first
// writer creates one and it stays).
func ListDir(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".lock") {
			continue
		}
		out = append(out, e.Name())
	}
	return out
}

// ApprovalProject lays out a project with one run of task dev-10860 (the
// approval commands' tests) and returns the root, the final report's path
// (written) and the run's state directory (made, empty).
func ApprovalProject(t testing.TB) (root, report, stateDir string) {
	t.Helper()
	root = t.TempDir()
	runDir := filepath.Join(root, ".okstra", "tasks", "dev-10860", "runs", "feature-analysis")
	report = filepath.Join(runDir, "reports", "final-report-feature-analysis-002.md")
	stateDir = filepath.Join(runDir, "state")
	Write(t, report, []byte("# Final report\n"))
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, report, stateDir
}
