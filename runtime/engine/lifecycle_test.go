package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/runtime/lifecycle"
	"github.com/okstra/cockpit/runtime/watch"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/workers"
)

// TestLifecycleInProcess drives one batch's dispatch lifecycle against a
// real engine started without a control socket (its Host): the batch
// opens real panes running the real wrapper on the fake providers, the
// engine settles the two that finish, reclaim closes their panes and
// records the cleanup, teardown ends the worker still running. Nothing
// listens for the run: a socket client would find no cockpit.
func TestLifecycleInProcess(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("PATH", fixture.PathWith(fixture.FakeBin(t)))
	t.Setenv(wrapperEnv, "1") // os.Args[0] is `cockpit worker exec` in the panes
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	t.Setenv("COCKPIT_SOCKET", filepath.Join(runtest.ShortDir(t), "none.sock"))
	run := runtest.FixtureRun(t, fixture.PaneBackend)
	fixture.Behaviours{Codex: "ok", Antigravity: "fail", Claude: "hang"}.Set(t, run.Root.Dir())
	c, err := Start(Config{Run: run, NoServer: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	// No socket in the path.
	if c.server != nil {
		t.Fatal("the engine serves a control socket")
	}
	if _, err := os.Stat(control.SocketPath(run)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a socket file at %s: %v", control.SocketPath(run), err)
	}
	var nc *control.NoCockpitError
	if _, err := (&lifecycle.RunSocket{Run: run, Client: "test"}).ListPanes(ctx); !errors.As(err, &nc) {
		t.Fatalf("a socket client reached a cockpit: %v", err)
	}

	// Dispatch: one pane per job, each running the wrapper.
	cat, err := workers.LoadCatalog(run.Root.Dir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := lifecycle.PlanBatch(run, cat, fixture.JobsInitial, "")
	if err != nil {
		t.Fatal(err)
	}
	rec := lifecycle.NewRecorder(run, lifecycle.SourceTeamDispatch, true)
	st, err := lifecycle.StartInPanes(ctx, c.Host(), b, os.Args[0], "team dispatch", rec)
	if err != nil || st.Failed != nil {
		t.Fatalf("start: %v, %v", err, st.Failed)
	}
	ids := map[string]string{} // dispatch id → pane id
	for i, l := range st.Launched {
		if l.PaneID == "" || l.PID <= 0 || !isWrapper(l.PID) {
			t.Fatalf("job %d launched as %+v: not a pane running the wrapper", i, l)
		}
		ids[st.Recs[i].Dispatch.DispatchID] = l.PaneID
	}
	open := c.ListPanes().Panes
	if len(open) != 3 {
		t.Fatalf("open panes %+v", open)
	}
	for _, p := range open {
		if ids[p.DispatchID] != p.PaneID {
			t.Fatalf("pane %+v is not its dispatch's (%v)", p, ids)
		}
	}
	codex, anti, claude := st.Recs[0].Dispatch.DispatchID, st.Recs[1].Dispatch.DispatchID, st.Recs[2].Dispatch.DispatchID

	// Settle: the engine's own refresh settles the two that finish.
	testenv.Wait(t, "the engine to settle the finished workers", 30*time.Second, func() bool {
		ts, err := run.TeamState()
		return err == nil && ts.Dispatch(codex).Status == state.StatusCompleted && ts.Dispatch(anti).Status == state.StatusError
	})
	ts, _ := run.TeamState()
	if d := ts.Dispatch(claude); d.Status != state.StatusInProgress || d.PaneID != ids[claude] || d.PID != st.Launched[2].PID {
		t.Fatalf("the running worker: %+v", d)
	}

	// Reclaim: the finished panes close, the running one stays; the
	// cleanup is recorded.
	rr, err := lifecycle.ReclaimOn(ctx, c.Host(), run, lifecycle.ReclaimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ids[codex], ids[anti]}
	slices.SortFunc(want, control.ComparePaneIDs)
	if got := paneIDs(rr.Panes); !slices.Equal(got, want) {
		t.Fatalf("reclaim closed %v, want %v", got, want)
	}
	if open := c.ListPanes().Panes; len(open) != 1 || open[0].PaneID != ids[claude] {
		t.Fatalf("after reclaim the open panes are %+v", open)
	}
	ledger, err := os.ReadFile(run.LeadEventsPath)
	if err != nil || !strings.Contains(string(ledger), `"phase-batch-cleanup"`) || len(rr.Lines) != 1 || !strings.Contains(rr.Lines[0], "panes=2") {
		t.Fatalf("reclaim recorded %q (%v); ledger:\n%s", rr.Lines, err, ledger)
	}

	// Teardown: the running worker's pane closes, its wrapper is gone,
	// its dispatch is written off.
	tr, err := lifecycle.TeardownOn(ctx, c.Host(), run, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := paneIDs(tr.Panes); !slices.Equal(got, []string{ids[claude]}) {
		t.Fatalf("teardown closed %v", got)
	}
	if open := c.ListPanes().Panes; len(open) != 0 {
		t.Fatalf("after teardown the open panes are %+v", open)
	}
	if pid := st.Launched[2].PID; watch.ProcessAlive(pid) {
		t.Fatalf("the torn-down wrapper %d still runs", pid)
	}
	ts, _ = run.TeamState()
	if d := ts.Dispatch(claude); d.Status != state.StatusError || d.Reason != state.TeardownReason {
		t.Fatalf("the torn-down dispatch: %s %q", d.Status, d.Reason)
	}
	if d := ts.Dispatch(codex); d.Status != state.StatusCompleted {
		t.Fatalf("teardown changed the completed dispatch: %s %q", d.Status, d.Reason)
	}
	sc, err := state.ReadSidecar(filepath.Join(run.Root.Dir(), ts.Dispatch(claude).StatusPath), "sidecar")
	if err != nil || sc == nil || !state.IsTerminal(sc.Status) {
		t.Fatalf("the torn-down wrapper's sidecar: %+v, %v", sc, err)
	}
}

func paneIDs(refs []lifecycle.PaneRef) []string {
	out := []string{}
	for _, r := range refs {
		out = append(out, r.PaneID)
	}
	return out
}

// isWrapper reports whether pid runs `cockpit worker exec`.
func isWrapper(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	return err == nil && strings.Contains(string(data), "\x00worker\x00exec\x00")
}
