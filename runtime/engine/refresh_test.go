package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/runtime/lifecycle"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// TestNextPhaseOfAMissingTaskManifestIsNone: a task manifest the run names
// but that does not exist (yet) has no next phase and is no problem; one
// that exists and is broken is (the check goes by fs.ErrNotExist through
// state.Error, not by the error's text).
func TestNextPhaseOfAMissingTaskManifestIsNone(t *testing.T) {
	run, _ := runtest.StartedRun(t, 0)
	run.Manifest.TaskManifestPath = "task/task-manifest.json"
	np, err := readNextPhase(run)
	if np != nil || err != nil {
		t.Fatalf("missing task manifest: %+v, %v; want none and no error", np, err)
	}
	p := filepath.Join(run.Root.Dir(), "task/task-manifest.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readNextPhase(run); err == nil {
		t.Fatal("a broken task manifest read as none")
	}
	if err := os.WriteFile(p, []byte(`{"workflow":{"nextRecommendedPhase":{"phase":"implementation","status":"pending","rationale":"r"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if np, err := readNextPhase(run); err != nil || np == nil || np.Phase != "implementation" {
		t.Fatalf("next phase %+v, %v", np, err)
	}
}

// TestSwappedSidecarSymlinkIsFollowedAnew: a dispatch's sidecar is a
// symlink; while the worker runs, the link is swapped to another file and
// the file it led to is then written "completed". The engine reads what
// the name leads to now, never a path it resolved before: the dispatch
// settles from the new file (before, a cached path settled it from the old
// one as completed).
func TestSwappedSidecarSymlinkIsFollowedAnew(t *testing.T) {
	run, sidecars := runtest.StartedRun(t, 1)
	name := sidecars[0]
	dir := filepath.Dir(name)
	a, b := filepath.Join(dir, "a.status.json"), filepath.Join(dir, "b.status.json")
	started := &state.Sidecar{Status: state.StatusStarted, Wrapper: "test", PID: os.Getpid(), StartedAt: "2026-11-29T10:00:00Z"}
	for _, p := range []string{a, b} {
		if err := state.WriteSidecar(p, started); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.status.json", name); err != nil {
		t.Fatal(err)
	}
	_, events := startSubscribed(t, run)
	waitView(t, events, "the dispatch runs", func(v view.RunView) bool {
		return len(v.Dispatches) == 1 && v.Dispatches[0].Status == state.StatusInProgress
	})
	// Swap the link to b (a rename, as any writer does), then end a.
	if err := os.Symlink("b.status.json", name+".new"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(name+".new", name); err != nil {
		t.Fatal(err)
	}
	if err := state.WriteSidecar(a, &state.Sidecar{Status: state.StatusCompleted, Wrapper: "test", PID: os.Getpid(), Reason: "from a"}); err != nil {
		t.Fatal(err)
	}
	one := 1
	if err := state.WriteSidecar(b, &state.Sidecar{Status: state.StatusError, Wrapper: "test", PID: os.Getpid(), ExitCode: &one, Reason: "from b"}); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, events, "the dispatch settles", func(v view.RunView) bool {
		return len(v.Dispatches) == 1 && v.Dispatches[0].Terminal()
	})
	if d := v.Dispatches[0]; d.Status != state.StatusError || d.Reason != "from b" {
		t.Fatalf("settled %s (%q); want error from b, the file the sidecar's name leads to", d.Status, d.Reason)
	}
}

// TestFIFOsDoNotHangTheEngine: FIFOs planted where the engine reads a
// running dispatch's sidecar and the ledger neither block its refresh (a
// later team-state change still shows; the log names the ledger) nor its
// close, and do not settle the running worker.
func TestFIFOsDoNotHangTheEngine(t *testing.T) {
	run, sidecars := runtest.StartedRun(t, 1)
	ev, err := state.NewEvent("test", "phase-5-poll", "", [][2]string{{"pending", "1"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := state.AppendEvents(run.LeadEventsPath, ev); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "engine.log")
	lf, err := OpenLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	c, err := Start(Config{Run: run, NoServer: true, Log: NewLogger(lf)})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			c.Close()
		}
	}()
	events, stop := c.Subscribe()
	defer stop()
	for _, p := range []string{sidecars[0], run.LeadEventsPath} {
		tmp := p + ".fifo"
		if err := unix.Mkfifo(tmp, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := state.UpdateTeamState(run.TeamStatePath, run.Manifest.TeamStatePath, "bench", func(ts *state.TeamState) error {
		d := ts.WorkerDispatches[0]
		d.DispatchID, d.PromptPath, d.StatusPath = "dispatch-002", "run/prompts/later.md", "run/prompts/later.status.json"
		ts.WorkerDispatches = append(ts.WorkerDispatches, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, events, "the engine refreshes past the FIFOs", func(v view.RunView) bool {
		return len(v.Dispatches) == 2
	})
	if v.Dispatches[0].Terminal() {
		t.Fatalf("a running worker whose sidecar is a FIFO settled: %+v", v.Dispatches[0])
	}
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	select {
	case <-done:
		closed = true
	case <-time.After(testenv.Scale(20 * time.Second)):
		t.Fatal("the engine's close hangs on a FIFO")
	}
	data, _ := os.ReadFile(logPath)
	if !strings.Contains(string(data), `"msg":"ledger unreadable","err":"run/state/lead-events.jsonl: is a FIFO`) {
		t.Fatalf("the log does not name the FIFO ledger:\n%s", data)
	}
}

// TestHugeSidecarReasonIsNotCopied: a worker's sidecar with an 8 MB reason
// (the fault run's was 50 MB; the cap does not depend on the size) settles
// its dispatch with the reason cut to lifecycle.MaxReason, in
// team-state (rewritten and fsynced on every update), in the view and in
// the engine's log (before, all 50 MB were copied into a 52 MB team-state).
func TestHugeSidecarReasonIsNotCopied(t *testing.T) {
	t.Parallel() // beside TestFrozenEventsClientIsDropped's wait
	run, sidecars := runtest.StartedRun(t, 1)
	logPath := filepath.Join(t.TempDir(), "engine.log")
	lf, err := OpenLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	c, err := Start(Config{Run: run, NoServer: true, Log: NewLogger(lf)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	events, stop := c.Subscribe()
	defer stop()
	one := 1
	if err := state.WriteSidecar(sidecars[0], &state.Sidecar{Status: state.StatusError, Wrapper: "test", PID: os.Getpid(), ExitCode: &one, Reason: strings.Repeat("r", 8<<20)}); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, events, "the dispatch settles", func(v view.RunView) bool { return len(v.Dispatches) == 1 && v.Dispatches[0].Terminal() })
	if r := v.Dispatches[0].Reason; len(r) > lifecycle.MaxReason+64 || !strings.HasSuffix(r, "more bytes in the sidecar)") {
		t.Fatalf("the view's reason is %d bytes (%.60q…), want it cut to %d", len(r), r, lifecycle.MaxReason)
	}
	if st, err := os.Stat(run.TeamStatePath); err != nil || st.Size() > 64<<10 {
		t.Fatalf("team-state is %d bytes after the settle (%v), want the reason cut", st.Size(), err)
	}
	if st, err := os.Stat(logPath); err != nil || st.Size() > 64<<10 {
		t.Fatalf("the engine's log is %d bytes after the settle (%v)", st.Size(), err)
	}
}
