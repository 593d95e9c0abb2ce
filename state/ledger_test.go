package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testEvent(t *testing.T, phase string, fields ...[2]string) Event {
	t.Helper()
	ev, err := NewEvent("test", phase, "", fields, "")
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func phases(t *testing.T, path string) []string {
	t.Helper()
	evs, err := ReadEvents(path, filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, e.Phase)
	}
	return out
}

// TestAppendKeepsForeignBytes: an append adds its lines after the ledger's
// bytes and leaves every byte before them as it was (members the cockpit
// does not know, spacing, a foreign writer's order).
func TestAppendKeepsForeignBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lead-events.jsonl")
	old := `{"phase":"phase-1-intake","x-future":{"a":[1,2]},"at":"2026-01-01T00:00:00Z"}` + "\n" +
		`{ "phase" : "phase-2-prompts" }` + "\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AppendEvents(path, testEvent(t, "phase-4-dispatch"), testEvent(t, "phase-5-poll", [2]string{"pending", "1"}, [2]string{"done", "0"})); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), old) {
		t.Fatalf("the old bytes changed:\n%s", data)
	}
	if got := strings.Join(phases(t, path), " "); got != "phase-1-intake phase-2-prompts phase-4-dispatch phase-5-poll" {
		t.Fatalf("phases %q", got)
	}
}

// TestAppendEndsACompleteLastLine: a last line that is a whole JSON object
// without its newline (a writer that does not end its lines) keeps its
// bytes and gets the newline before the appended line.
func TestAppendEndsACompleteLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lead-events.jsonl")
	old := `{"phase":"phase-1-intake"}` + "\n" + `{"phase":"phase-2-prompts"}`
	os.WriteFile(path, []byte(old), 0o644)
	if got := strings.Join(phases(t, path), " "); got != "phase-1-intake phase-2-prompts" {
		t.Fatalf("before the append: %q", got)
	}
	if err := AppendEvents(path, testEvent(t, "complete")); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), old+"\n{") {
		t.Fatalf("the complete last line was not ended with a newline:\n%s", data)
	}
	if got := strings.Join(phases(t, path), " "); got != "phase-1-intake phase-2-prompts complete" {
		t.Fatalf("phases %q", got)
	}
}

// TestTornLastLine: a writer that died in the middle of a line leaves a
// torn tail. Readers do not count it (nor fail on it: it may be a line
// being written right now), and the next append cuts it off, so it never
// becomes a bad line in the middle of the ledger.
func TestTornLastLine(t *testing.T) {
	for _, n := range []int{1, 20, 5000} {
		path := filepath.Join(t.TempDir(), "lead-events.jsonl")
		first := `{"phase":"phase-1-intake"}` + "\n"
		torn := `{"phase":"phase-5-poll","fields":[["pending","` + strings.Repeat("9", n)
		os.WriteFile(path, []byte(first+torn), 0o644)
		if got := strings.Join(phases(t, path), " "); got != "phase-1-intake" {
			t.Fatalf("torn tail of %d: read %q", n, got)
		}
		if err := AppendEvents(path, testEvent(t, "complete")); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		if strings.Contains(string(data), "phase-5-poll") || !strings.HasPrefix(string(data), first+`{"`) {
			t.Fatalf("torn tail of %d not cut off:\n%.200s", n, data)
		}
		if got := strings.Join(phases(t, path), " "); got != "phase-1-intake complete" {
			t.Fatalf("torn tail of %d: after the append %q", n, got)
		}
	}
}

// TestTornOnlyLine: a ledger whose only bytes are a torn line is cut to
// nothing before the append.
func TestTornOnlyLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lead-events.jsonl")
	os.WriteFile(path, []byte(`{"phase":"phase-1-in`), 0o644)
	if err := AppendEvents(path, testEvent(t, "complete")); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(phases(t, path), " "); got != "complete" {
		t.Fatalf("phases %q", got)
	}
}

// TestBadLineInTheMiddleIsStillAnError: only a last line without newline
// may be incomplete; a bad line anywhere else is named by its number.
func TestBadLineInTheMiddleIsStillAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lead-events.jsonl")
	os.WriteFile(path, []byte(`{"phase":"phase-1-intake"}`+"\nnot json\n"+`{"phase":"complete"}`+"\n"), 0o644)
	_, err := ReadEvents(path, "lead-events.jsonl")
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v", err)
	}
	os.WriteFile(path, []byte(`{"phase":"phase-1-intake"}`+"\nnot json\n"), 0o644)
	if _, err := ReadEvents(path, "lead-events.jsonl"); err == nil {
		t.Fatal("a bad last line that ends in a newline was accepted")
	}
}

// TestAppendDoesNotFollowALedgerSymlink: a ledger replaced by a symlink is
// refused, and nothing is written where it points.
func TestAppendDoesNotFollowALedgerSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere.jsonl")
	os.WriteFile(target, []byte(`{"phase":"phase-1-intake"}`+"\n"), 0o644)
	path := filepath.Join(dir, "lead-events.jsonl")
	os.Symlink(target, path)
	if err := AppendEvents(path, testEvent(t, "complete")); err == nil {
		t.Fatal("appended through a symlink")
	}
	if data, _ := os.ReadFile(target); string(data) != `{"phase":"phase-1-intake"}`+"\n" {
		t.Fatalf("the symlink's target changed: %q", data)
	}
}
