package team

import (
	"context"
	"errors"
	"github.com/okstra/cockpit/runtime/lifecycle"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/state/approval"
	"github.com/okstra/cockpit/workers"
)

// recordFixtureBatch plans and records the fixture's initial batch on a
// copy of the fixture (a pane run), starting nothing.
func recordFixtureBatch(t *testing.T) (*state.Run, *lifecycle.Recording) {
	t.Helper()
	run := runtest.FixtureRun(t, fixture.PaneBackend)
	cat, err := workers.LoadCatalog(run.Root.Dir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := lifecycle.PlanBatch(run, cat, fixture.JobsInitial, "")
	if err != nil {
		t.Fatal(err)
	}
	rg, err := lifecycle.RecordBatch(b, state.BackendCmuxPane)
	if err != nil {
		t.Fatal(err)
	}
	return run, rg
}

// writeSidecar writes the sidecar of a recorded dispatch, as a wrapper
// would (pid: a process of the test's choosing).
func writeSidecar(t *testing.T, run *state.Run, d state.Dispatch, sc *state.Sidecar) {
	t.Helper()
	p := filepath.Join(run.Root.Dir(), d.StatusPath)
	if err := state.WriteSidecar(p, sc); err != nil {
		t.Fatal(err)
	}
}

func dispatchOf(t *testing.T, run *state.Run, id string) *state.Dispatch {
	t.Helper()
	ts, err := state.ReadTeamState(run.TeamStatePath, "team-state")
	if err != nil {
		t.Fatal(err)
	}
	return ts.Dispatch(id)
}

// Issue 18.4: a sidecar saying completed with no file at the Result Path
// settles as error with that reason, in every path: lifecycle.Settle (team await,
// worker-dispatch), worker-liveness, and the engine's lifecycle.SidecarVerdict.
func TestCompletedWithoutItsResultSettlesError(t *testing.T) {
	run, rg := recordFixtureBatch(t)
	d := rg.Recs[0].Dispatch
	zero := 0
	writeSidecar(t, run, d, &state.Sidecar{Status: state.StatusCompleted, PID: os.Getpid(), ExitCode: &zero, StartedAt: "2026-12-01T10:00:00Z"})
	want := "the worker reported completed but wrote no result at " + d.ResultPath

	// The engine's path: the sidecar's absolute path, no root.
	v, _ := lifecycle.SidecarVerdict(filepath.Join(run.Root.Dir(), d.StatusPath), &d, nil)
	if v.Status != state.StatusError || v.Reason != want {
		t.Fatalf("SidecarVerdict: %s %q, want error %q", v.Status, v.Reason, want)
	}
	rep, err := Liveness(context.Background(), run.Root, run.TeamStatePath, "team-state", d.DispatchID, false, 0)
	if err != nil || rep.Liveness != Done || rep.Status != state.StatusError || rep.Reason != want {
		t.Fatalf("liveness: %+v, %v", rep, err)
	}
	if _, _, err := lifecycle.Settle(run); err != nil {
		t.Fatal(err)
	}
	if got := dispatchOf(t, run, d.DispatchID); got.Status != state.StatusError || got.Reason != want {
		t.Fatalf("settled %s %q, want error %q", got.Status, got.Reason, want)
	}
	// With the result there, completed stands.
	d2 := rg.Recs[1].Dispatch
	if err := os.MkdirAll(filepath.Dir(filepath.Join(run.Root.Dir(), d2.ResultPath)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run.Root.Dir(), d2.ResultPath), []byte("# findings\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeSidecar(t, run, d2, &state.Sidecar{Status: state.StatusCompleted, PID: os.Getpid(), ExitCode: &zero})
	if _, _, err := lifecycle.Settle(run); err != nil {
		t.Fatal(err)
	}
	// ... and the result is linked to its dispatch (its digest recorded).
	if got := dispatchOf(t, run, d2.DispatchID); got.Status != state.StatusCompleted || got.ResultDigest != state.Digest([]byte("# findings\n")) {
		t.Fatalf("with its result: %s %q, resultDigest %q", got.Status, got.Reason, got.ResultDigest)
	}
}

// Issue 19.5: a sidecar that cannot be read, of a wrapper that is gone,
// settles its dispatch error with the reason — await, liveness and
// teardown go on instead of failing on it; while the wrapper lives it is
// left alone. A huge reason is capped before it reaches team-state.
func TestAnUnreadableSidecarOfADeadWrapperSettlesError(t *testing.T) {
	t.Parallel() // waits out an await timeout
	run, rg := recordFixtureBatch(t)
	dead := deadPID(t)
	d := rg.Recs[0].Dispatch
	if err := lifecycle.MarkLaunched(run, rg.Recs[:1], []lifecycle.Launched{{PID: dead}}); err != nil {
		t.Fatal(err)
	}
	sp := filepath.Join(run.Root.Dir(), d.StatusPath)
	if err := os.WriteFile(sp, []byte(`{"status": "start`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A live wrapper's second dispatch with a huge reason.
	d2 := rg.Recs[1].Dispatch
	one := 1
	writeSidecar(t, run, d2, &state.Sidecar{Status: state.StatusError, PID: os.Getpid(), ExitCode: &one, Reason: strings.Repeat("r", 1<<20)})
	rep, err := Liveness(context.Background(), run.Root, run.TeamStatePath, "team-state", d.DispatchID, false, 0)
	if err != nil || rep.Liveness != Dead || !strings.Contains(rep.Reason, "cannot be read") {
		t.Fatalf("liveness of the unreadable sidecar: %+v, %v", rep, err)
	}
	res, err := Await(context.Background(), run, testenv.Scale(time.Second))
	if !errors.Is(err, ErrAwaitTimeout) {
		t.Fatalf("await: %v (it must wait on the third worker, not fail)", err)
	}
	got := dispatchOf(t, run, d.DispatchID)
	if got.Status != state.StatusError || !strings.HasPrefix(got.Reason, "the status sidecar "+d.StatusPath+" cannot be read (") || !strings.HasSuffix(got.Reason, "is gone") {
		t.Fatalf("settled %s %q", got.Status, got.Reason)
	}
	if r := dispatchOf(t, run, d2.DispatchID).Reason; len(r) > lifecycle.MaxReason+64 || !strings.HasSuffix(r, "more bytes in the sidecar)") {
		t.Fatalf("a 1 MiB reason reached team-state as %d bytes", len(r))
	}
	if res.Counts.Done != 2 {
		t.Fatalf("counts %+v", res.Counts)
	}
	if _, err := lifecycle.Teardown(context.Background(), run, false); err != nil {
		t.Fatalf("teardown failed on the run: %v", err)
	}
	ts, _ := state.ReadTeamState(run.TeamStatePath, "team-state")
	for _, d := range ts.WorkerDispatches {
		if !d.Terminal() {
			t.Fatalf("teardown left %s %s", d.DispatchID, d.Status)
		}
	}
}

// Issue 19.3: a batch whose checkpoints cannot be recorded (the ledger
// read-only, full, locked) leaves no phantom: the dispatches started and
// are recorded with their pids, and the error names the missing lines.
func TestACheckpointFailureLeavesNoPhantom(t *testing.T) {
	run, rg := recordFixtureBatch(t)
	if err := os.WriteFile(run.LeadEventsPath, nil, 0o444); err != nil {
		t.Fatal(err)
	}
	launched := []lifecycle.Launched{{PID: os.Getpid()}, {PID: os.Getpid()}, {Err: errors.New("the cockpit went away")}}
	if err := lifecycle.MarkLaunched(run, rg.Recs, launched); err != nil {
		t.Fatal(err)
	}
	rec := lifecycle.NewRecorder(run, lifecycle.SourceTeamDispatch, true)
	err := errors.Join(lifecycle.NotStarted(rg.Recs, launched), rg.Checkpoints(rec, launched))
	for _, want := range []string{
		"1 job(s) of the batch did not start: dispatch-003 (Claude worker) (the cockpit went away)",
		"the dispatches run and are in team-state, but their checkpoints could not be recorded (",
		"is read-only (mode 0444)",
		"record them with lead-progress append: PROGRESS: phase-3-team-create using implicit team | PROGRESS: phase-4-dispatch worker=Codex worker model=gpt-6.1-sol | PROGRESS: phase-4-dispatch worker=Antigravity worker model=gemini-3.1-pro",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v\nlacks %q", err, want)
		}
	}
	ts, _ := state.ReadTeamState(run.TeamStatePath, "team-state")
	for i, d := range ts.WorkerDispatches {
		switch {
		case i < 2 && (d.PID != os.Getpid() || d.Status != state.StatusInProgress):
			t.Errorf("%s: pid %d status %s; a started worker must be recorded running", d.DispatchID, d.PID, d.Status)
		case i == 2 && (d.Status != state.StatusError || !strings.Contains(d.Reason, "could not start the worker: the cockpit went away")):
			t.Errorf("%s: %s %q; a job that did not start must not stay in progress", d.DispatchID, d.Status, d.Reason)
		}
	}
	// Writable again: only the started jobs are checkpointed.
	if err := os.Chmod(run.LeadEventsPath, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := rg.Checkpoints(lifecycle.NewRecorder(run, lifecycle.SourceTeamDispatch, true), launched); err != nil {
		t.Fatal(err)
	}
	wantLines(t, "ledger", ledgerLines(t, run),
		"PROGRESS: phase-3-team-create using implicit team",
		"PROGRESS: phase-4-dispatch worker=Codex worker model=gpt-6.1-sol",
		"PROGRESS: phase-4-dispatch worker=Antigravity worker model=gemini-3.1-pro")
}

// chmodOnRead makes path read-only the first time the gate's terminal is
// read: the sidecar breaks after the question was asked.
type chmodOnRead struct {
	r    io.Reader
	path string
	done bool
}

func (c *chmodOnRead) Read(p []byte) (int, error) {
	if !c.done {
		c.done = true
		if err := os.WriteFile(c.path, []byte("# User Response\n"), 0o444); err != nil {
			return 0, err
		}
	}
	return c.r.Read(p)
}

// gateRun is a cli-wrapper copy of the fixture with an approval ledger,
// and the gate request for its report (asked on a terminal: no cockpit).
func gateRun(t *testing.T, answer string) (*state.Run, GateRequest) {
	t.Helper()
	run := runtest.FixtureRun(t, state.BackendCLIWrapper)
	req := GateRequest{Run: run, Report: DefaultReport(run), Fallback: &TerminalPrompt{In: strings.NewReader(answer), Out: io.Discard}}
	return run, req
}

func optionRow(id string) approval.Row {
	return approval.Row{
		ClarificationID: id, Statement: "Keep the legacy column order?", ExpectedForm: "one of the options",
		Classification: "user-decision", Origin: "worker-finding", Status: approval.StatusOpen,
		Options: []approval.Option{
			{Role: "recommended", Answer: "Keep it", Rationale: "r", Reach: "in-repo", AddedWork: "none", DirectionChange: "nothing", Disposition: "select"},
			{Role: "alternative", Answer: "Sort\x1b]52;c;SGk=\x07 alphabetically", Rationale: "r", Reach: "in-repo", AddedWork: "docs", DirectionChange: "the order", Disposition: "select"},
		},
	}
}

// Issue 18.6, the seed's order: a gate on a row not in the ledger asks
// first and opens the row after, with the user's answer as its
// confirmation. Issue 19: the re-asked gate records user-confirm once; the
// answer's escape sequence does not reach the Markdown raw.
func TestGateAsksFirstAndOpensTheRowAfter(t *testing.T) {
	run, req := gateRun(t, "2\nas discussed\n")
	ledger := filepath.Join(run.RunDir, "state", "approval-decisions-feature-analysis-002.json")
	row := optionRow("C-042")
	req.Gate = GateFromRow(row)
	req.Open = &GateOpen{Ledger: ledger, TaskKey: "dev-10860", Row: row}
	res, err := AskGate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Opened != "C-042" || res.Answer != row.Options[1].Answer || res.AnsweredIn != "terminal" {
		t.Fatalf("outcome %+v", res)
	}
	l, err := approval.Read(ledger)
	if err != nil {
		t.Fatal(err)
	}
	r := l.Row("C-042")
	if r == nil || r.Status != approval.StatusOpen || r.UserConfirmation != row.Options[1].Answer+" — as discussed" {
		t.Fatalf("opened row %+v", r)
	}
	md, _ := os.ReadFile(approval.SidecarPath(req.Report))
	if strings.ContainsAny(string(md), "\x1b\x07") || !strings.Contains(string(md), `- Answer: "Sort\u001b]52;c;SGk=\u0007 alphabetically"`) {
		t.Fatalf("the sidecar holds the raw escape:\n%q", md)
	}
	// Asked again (the row is in the ledger now): user-confirm is printed,
	// not recorded twice.
	_, req2 := gateRun(t, "1\n\n")
	req2.Run = run
	req2.Gate = GateFromRow(*r)
	res2, err := AskGate(context.Background(), req2, nil)
	if err != nil {
		t.Fatal(err)
	}
	confirm := "PROGRESS: user-confirm C-042 Keep the legacy column order?"
	if res2.ProgressLines[1] != confirm {
		t.Fatalf("second ask printed %q", res2.ProgressLines)
	}
	n := 0
	for _, l := range ledgerLines(t, run) {
		if l == confirm {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("user-confirm recorded %d times", n)
	}
}

// Issue 19.4: a gate whose sidecar cannot be written is refused before the
// human is asked; one that breaks after the question keeps the answer in
// the run's gate-answers.jsonl, prints it, and says where it is.
func TestAGateAnswerIsNeverLost(t *testing.T) {
	run, req := gateRun(t, "1\n\n")
	sc := approval.SidecarPath(req.Report)
	if err := os.MkdirAll(filepath.Dir(sc), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sc, []byte("# User Response\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	req.Gate = GateFromRow(optionRow("C-001"))
	_, err := AskGate(context.Background(), req, nil)
	if err == nil || !strings.Contains(err.Error(), "the answer would have nowhere to go: ") || !strings.Contains(err.Error(), "is read-only (mode 0444)") {
		t.Fatalf("a read-only sidecar: %v", err)
	}
	if l := ledgerLines(t, run); len(l) != 0 {
		t.Fatalf("a refused gate recorded %q", l)
	}
	if err := os.Remove(sc); err != nil {
		t.Fatal(err)
	}
	req.Fallback.In = &chmodOnRead{r: strings.NewReader("1\n\n"), path: sc}
	res, err := AskGate(context.Background(), req, nil)
	var ns *AnswerNotSaved
	if !errors.As(err, &ns) || res == nil || res.Answer != "Keep it" || res.KeptIn == "" {
		t.Fatalf("outcome %+v, error %v", res, err)
	}
	kept, _ := os.ReadFile(filepath.Join(run.Root.Dir(), res.KeptIn))
	if !strings.Contains(string(kept), `"clarificationId":"C-001","answer":"Keep it"`) {
		t.Fatalf("%s holds %q", res.KeptIn, kept)
	}
	if !strings.Contains(err.Error(), "it is kept in "+res.KeptIn+" and printed above") {
		t.Fatalf("error %q", err)
	}
}

// deadPID is the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// The seed: the lead's own concurrent-run marker is left alone, and the
// dispatch then records no phase-3-team-create.
func TestDispatchLeavesTheLeadsSkippedMarker(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	run := runtest.FixtureRun(t, fixture.PaneBackend)
	if err := state.UpdateTeamState(run.TeamStatePath, "team-state", "t", func(ts *state.TeamState) error {
		ts.TeamCreate = &state.TeamCreate{Attempted: false, Status: "skipped", Reason: "concurrent-run"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	cat, _ := workers.LoadCatalog(run.Root.Dir())
	b, err := lifecycle.PlanBatch(run, cat, fixture.JobsInitial, "")
	if err != nil {
		t.Fatal(err)
	}
	rg, err := lifecycle.RecordBatch(b, state.BackendCmuxPane)
	if err != nil {
		t.Fatal(err)
	}
	launched := []lifecycle.Launched{{PID: os.Getpid()}, {PID: os.Getpid()}, {PID: os.Getpid()}}
	if err := rg.Checkpoints(lifecycle.NewRecorder(run, lifecycle.SourceTeamDispatch, true), launched); err != nil {
		t.Fatal(err)
	}
	ts, _ := state.ReadTeamState(run.TeamStatePath, "team-state")
	if tc := ts.TeamCreate; tc == nil || tc.Status != "skipped" || tc.Reason != "concurrent-run" {
		t.Fatalf("teamCreate %+v", tc)
	}
	for _, l := range ledgerLines(t, run) {
		if strings.HasPrefix(l, "PROGRESS: phase-3-team-create") {
			t.Fatalf("recorded %q over the lead's marker", l)
		}
	}
}

// Issue 19, client timeouts: `team await --timeout` is honoured to the
// second while another writer holds team-state's lock or the ledger's (it
// took 14 s for a 5 s timeout): every lock wait ends with the command's
// context.
func TestAwaitTimeoutHoldsWhileALockIsHeld(t *testing.T) {
	t.Parallel() // waits out an await timeout
	for _, which := range []string{"team-state", "ledger"} {
		t.Run(which, func(t *testing.T) {
			t.Parallel()
			run, rg := recordFixtureBatch(t)
			zero := 0
			writeSidecar(t, run, rg.Recs[0].Dispatch, &state.Sidecar{Status: state.StatusError, PID: os.Getpid(), ExitCode: &zero, Reason: "x"})
			locked := run.TeamStatePath
			if which == "ledger" {
				locked = run.LeadEventsPath
			}
			held, release := make(chan struct{}), make(chan struct{})
			go state.WithLock(locked, func() error {
				close(held)
				<-release
				return nil
			})
			<-held
			defer close(release)
			start := time.Now()
			const timeout = time.Second
			res, err := Await(context.Background(), run, timeout)
			if !errors.Is(err, ErrAwaitTimeout) {
				t.Fatalf("await: %v", err)
			}
			// To the second: not before the timeout, and not a lock wait
			// (30 s, state.LockTimeout) or a poll interval after it.
			if d := time.Since(start); d < timeout || d >= timeout+time.Second {
				t.Fatalf("a %s timeout returned after %s", timeout, d)
			}
			if res == nil {
				t.Fatalf("no result")
			}
		})
	}
}

// Issue 19.5, the symlink: a sidecar planted as a symlink out of the root,
// of a wrapper that is gone, settles its dispatch error saying the path is
// inside the root and where the symlink leads (not "use a path inside
// it"), and the run's await and teardown complete.
func TestASymlinkedSidecarOfADeadWrapperSettlesError(t *testing.T) {
	t.Parallel() // waits out an await timeout
	run, rg := recordFixtureBatch(t)
	d := rg.Recs[0].Dispatch
	if err := lifecycle.MarkLaunched(run, rg.Recs[:1], []lifecycle.Launched{{PID: deadPID(t)}}); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "elsewhere.json")
	if err := os.WriteFile(outside, []byte(`{"status": "completed"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(run.Root.Dir(), d.StatusPath)); err != nil {
		t.Fatal(err)
	}
	if _, err := Await(context.Background(), run, time.Second); !errors.Is(err, ErrAwaitTimeout) {
		t.Fatalf("await: %v (it must wait on the other workers, not fail)", err)
	}
	got := dispatchOf(t, run, d.DispatchID)
	want := "its status sidecar cannot be read: statusPath: path " + `"` + d.StatusPath + `"` + " is inside the project root, but a symlink on it leads to " + outside + ", outside the project root; replace the symlink with the file itself, or point it inside the root"
	if got.Status != state.StatusError || got.Reason != want {
		t.Fatalf("settled %s %q\nwant error %q", got.Status, got.Reason, want)
	}
	if _, err := lifecycle.Teardown(context.Background(), run, false); err != nil {
		t.Fatalf("teardown: %v", err)
	}
}
