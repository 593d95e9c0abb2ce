package state_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/filetest"
	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/state"
)

// Issue 19, the run files under faults: a FIFO where a file is expected, a
// file the user made read-only, a disk that fills mid-append.

// mkfifo plants a FIFO at p.
func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

// within fails the test when fn does not return within d: a read that
// blocks on a FIFO never would.
func within(t *testing.T, d time.Duration, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("%s blocked (a FIFO opened for reading waits for a writer)", what)
		return nil
	}
}

// 19.6: a FIFO planted as team-state, the ledger, a sidecar, a prompt or
// the run manifest is refused at once with one line saying what it is;
// the ledger's append does not write into the pipe and report success.
func TestAFIFOWhereARunFileGoesIsRefused(t *testing.T) {
	root := fixture.Copy(t)
	run, err := state.LoadRun(root, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(run.TeamStatePath); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, run.TeamStatePath)
	want := fixture.TeamState + ": is a FIFO (named pipe), not a regular file; remove it and restore the file"
	err = within(t, 5*time.Second, "ReadTeamState", func() error {
		_, err := state.ReadTeamState(run.TeamStatePath, fixture.TeamState)
		return err
	})
	if err == nil || err.Error() != want {
		t.Fatalf("team-state FIFO: %v\nwant %s", err, want)
	}
	err = within(t, 5*time.Second, "UpdateTeamState", func() error {
		return state.UpdateTeamState(run.TeamStatePath, fixture.TeamState, "t", func(*state.TeamState) error { return nil })
	})
	if err == nil || err.Error() != want {
		t.Fatalf("team-state FIFO update: %v\nwant %s", err, want)
	}
	if st, err := os.Lstat(run.TeamStatePath); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the update replaced the FIFO: %v", err)
	}

	mkfifo(t, run.LeadEventsPath)
	ev, _ := state.NewEvent("test", "complete", "", nil, "")
	err = within(t, 5*time.Second, "AppendEvents", func() error { return state.AppendEvents(run.LeadEventsPath, ev) })
	if err == nil || !strings.Contains(err.Error(), "is a FIFO (named pipe), not a regular file") {
		t.Fatalf("a FIFO ledger took the checkpoint: %v", err)
	}
	err = within(t, 5*time.Second, "ReadEvents", func() error {
		_, err := state.ReadEvents(run.LeadEventsPath, fixture.LeadEvents)
		return err
	})
	if err == nil || err.Error() != fixture.LeadEvents+": is a FIFO (named pipe), not a regular file; remove it and restore the file" {
		t.Fatalf("FIFO ledger read: %v", err)
	}

	sc := filepath.Join(root, state.SidecarPath(fixture.CodexPrompt))
	mkfifo(t, sc)
	err = within(t, 5*time.Second, "ReadSidecar", func() error {
		_, err := state.ReadSidecar(sc, "s.json")
		return err
	})
	if err == nil || err.Error() != "s.json: is a FIFO (named pipe), not a regular file; remove it and restore the file" {
		t.Fatalf("FIFO sidecar: %v", err)
	}

	// A FIFO prompt is not "does not exist": it says what it is.
	prompt := filepath.Join(root, fixture.CodexPrompt)
	if err := os.Remove(prompt); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, prompt)
	_, _, err = state.LoadJobs(run, fixture.JobsInitial, "")
	if want := fixture.JobsInitial + ": jobs[0].promptPath: " + fixture.CodexPrompt + " is a FIFO (named pipe), not a regular file; materialize the prompt again"; err == nil || err.Error() != want {
		t.Fatalf("FIFO prompt: %v\nwant %s", err, want)
	}
}

// 19 permissions: a team-state the user made read-only is refused with one
// line and left as it is (the cockpit may run as root, whom the mode does
// not stop); a writable file keeps its mode through a rewrite.
func TestReadOnlyRunFilesAreRefusedAndModesKept(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "team-state.json")
	filetest.Write(t, p, []byte(`{"teamName":"t","workers":[],"workerDispatches":[]}`+"\n"))
	if err := os.Chmod(p, 0o444); err != nil {
		t.Fatal(err)
	}
	before := filetest.Read(t, p)
	err := state.UpdateTeamState(p, "team-state.json", "t", func(ts *state.TeamState) error {
		ts.WorkerDispatches = append(ts.WorkerDispatches, state.Dispatch{DispatchID: "dispatch-001", Status: state.StatusInProgress})
		return nil
	})
	want := "team-state.json: is read-only (mode 0444); the cockpit does not replace a file you made read-only — make it writable (chmod u+w) to let it record, or restore the run's copy"
	if err == nil || !strings.HasSuffix(err.Error(), want[len("team-state.json"):]) {
		t.Fatalf("read-only team-state: %v\nwant %s", err, want)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o444 || !bytes.Equal(filetest.Read(t, p), before) {
		t.Fatalf("the read-only file changed: mode %v", st.Mode())
	}
	ledger := filepath.Join(dir, "lead-events.jsonl")
	filetest.Write(t, ledger, nil)
	if err := os.Chmod(ledger, 0o444); err != nil {
		t.Fatal(err)
	}
	ev, _ := state.NewEvent("test", "complete", "", nil, "")
	if err := state.AppendEvents(ledger, ev); err == nil || !strings.Contains(err.Error(), "is read-only (mode 0444)") {
		t.Fatalf("read-only ledger: %v", err)
	}
	if len(filetest.Read(t, ledger)) != 0 {
		t.Fatal("the read-only ledger was appended to")
	}

	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := state.UpdateTeamState(p, "team-state.json", "t", func(ts *state.TeamState) error {
		ts.TeamName = "renamed"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
		t.Fatalf("a rewrite changed the mode to %v; the user's 0640 must stay", st.Mode().Perm())
	}
}

// envFSize is fsize_test.go's: the test binary appends under a file size
// limit.
const envFSize = "COCKPIT_STATE_TEST_FSIZE"

// 19 torn last line: an append the disk cuts short is truncated back to
// the ledger's old length — no reader (okstra) ever sees half a line — and
// the error says the ledger was left as it was.
func TestAFailedAppendLeavesNoTornLine(t *testing.T) {
	ledger := filepath.Join(t.TempDir(), "lead-events.jsonl")
	ev, _ := state.NewEvent("test", "phase-1-intake", "", nil, "reading task bundle")
	if err := state.AppendEvents(ledger, ev); err != nil {
		t.Fatal(err)
	}
	before := filetest.Read(t, ledger)
	exe, _ := os.Executable()
	cmd := exec.Command(exe, ledger)
	cmd.Env = append(os.Environ(), envFSize+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the append under the size limit did not fail (%v): %s", err, out)
	}
	if !strings.Contains(string(out), "(the ledger was left as it was)") {
		t.Fatalf("error %q", out)
	}
	if after := filetest.Read(t, ledger); !bytes.Equal(after, before) {
		t.Fatalf("the ledger after the failed append:\n%q\nwant\n%q", after, before)
	}
}

// 19 escapes: control characters are made visible, never passed on.
func TestPrintableEscapesControls(t *testing.T) {
	for in, want := range map[string]string{
		"Codex worker":             "Codex worker",
		"a\x1b]52;c;SGVsbG8=\x07b": `a\x1b]52;c;SGVsbG8=\x07b`,
		"nul\x00here":              `nul\x00here`,
		"c1\u009b31m":              `c1\u009b31m`,
		"two\nlines\ttab":          `two\nlines\ttab`,
		"Codex analyser · gpt-6.1": "Codex analyser · gpt-6.1",
		"del\x7f":                  `del\x7f`,
		"한국어 label":                "한국어 label",
	} {
		if got := state.Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
	if got := state.OneLine("a\n  b\x1b[2J"); got != `a b\x1b[2J` {
		t.Errorf("OneLine: %q", got)
	}
}
