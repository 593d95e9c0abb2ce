package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/state"
)

// server is a `cockpit serve` process on a fixture run.
type server struct {
	cmd    *exec.Cmd
	events chan string
	done   chan struct{}
}

// paneRun copies the fixture as a pane run (cmux-pane, as okstra writes it) and returns its root and
// the environment that points commands at a short socket path.
func paneRun(t testing.TB) (root string, env []string) {
	t.Helper()
	testenv.SkipShort(t, "a pane run end to end")
	root = fixture.Copy(t)
	fixture.SetTerminalBackend(t, root, fixture.PaneBackend)
	dir := testenv.ShortDir(t)
	return root, []string{"COCKPIT_SOCKET=" + filepath.Join(dir, "cockpit.sock")}
}

func startServe(t *testing.T, root string, env []string) *server {
	t.Helper()
	cmd := exec.Command(cockpitBin, runArgs(root, "serve")...)
	cmd.Dir = root
	cmd.Env = append(append(cleanEnv(), "PATH="+fixture.PathWith(fixture.FakeBin(t))), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errp, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, events: make(chan string, 1024), done: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(errp)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "serving") {
				close(ready)
			}
		}
	}()
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			s.events <- sc.Text()
		}
		cmd.Wait()
	}()
	select {
	case <-ready:
	case <-time.After(15 * time.Second):
		t.Fatal("cockpit serve did not start")
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
		}
	})
	return s
}

func readTeamState(t *testing.T, root string) *state.TeamState {
	t.Helper()
	ts, err := state.ReadTeamState(filepath.Join(root, fixture.TeamState), "team-state")
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func allTerminalWithReasons(t *testing.T, ts *state.TeamState) {
	t.Helper()
	for _, d := range ts.WorkerDispatches {
		if !d.Terminal() {
			t.Errorf("%s (%s) is still %s", d.DispatchID, d.Role, d.Status)
		}
		if d.Status != "completed" && d.Reason == "" {
			t.Errorf("%s ended %s without a reason", d.DispatchID, d.Status)
		}
	}
}

// dispatchMidBatch starts a batch in which one worker completes at once,
// one hangs silently and one ignores SIGTERM, and waits for the first.
func dispatchMidBatch(t *testing.T, root string, env []string) {
	t.Helper()
	fixture.Behaviours{Codex: "ok", Antigravity: "hang", Claude: "ignore-term"}.Set(t, root)
	res := cockpit(t, root, env, runArgs(root, "team", "dispatch", "--jobs-file", fixture.JobsInitial)...)
	if res.code != 0 {
		t.Fatalf("team dispatch: %s", res.stderr)
	}
	waitFor(t, "the quick worker to complete", 20*time.Second, func() bool {
		sc, _ := state.ReadSidecar(filepath.Join(root, state.SidecarPath(fixture.CodexPrompt)), "sidecar")
		return sc != nil && sc.Status == "completed"
	})
	waitFor(t, "the other workers to start", 20*time.Second, func() bool {
		for _, p := range []string{fixture.AntigravityPrompt, fixture.ClaudePrompt} {
			sc, _ := state.ReadSidecar(filepath.Join(root, state.SidecarPath(p)), "sidecar")
			if sc == nil {
				return false
			}
		}
		return true
	})
}

func TestCockpitSIGTERMMidBatchSettlesEveryDispatch(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root, env := paneRun(t)
	s := startServe(t, root, env)
	dispatchMidBatch(t, root, env)
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatal("cockpit serve did not exit after SIGTERM")
	}
	ts := readTeamState(t, root)
	allTerminalWithReasons(t, ts)
	want := []state.Status{state.StatusCompleted, state.StatusError, state.StatusError}
	for i, d := range ts.WorkerDispatches {
		if d.Status != want[i] {
			t.Errorf("%s: %s (%s), want %s", d.DispatchID, d.Status, d.Reason, want[i])
		}
	}
}

func TestCockpitSIGKILLMidBatchThenTeardown(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root, env := paneRun(t)
	s := startServe(t, root, env)
	dispatchMidBatch(t, root, env)
	s.cmd.Process.Kill()
	<-s.done
	res := cockpit(t, root, env, runArgs(root, "team", "teardown", "--json")...)
	if res.code != 0 {
		t.Fatalf("teardown after SIGKILL: %s", res.stderr)
	}
	var out struct {
		Panes []map[string]string `json:"panes"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || out.Panes == nil || len(out.Panes) != 0 {
		t.Fatalf("no cockpit is alive, so teardown closes no pane: %s (%v)", res.stdout, err)
	}
	ts := readTeamState(t, root)
	allTerminalWithReasons(t, ts)
	if ts.WorkerDispatches[0].Status != "completed" {
		t.Errorf("the finished worker was written off: %+v", ts.WorkerDispatches[0])
	}
}

func TestCockpitSIGKILLMidBatchThenNextCockpit(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root, env := paneRun(t)
	s := startServe(t, root, env)
	dispatchMidBatch(t, root, env)
	s.cmd.Process.Kill()
	<-s.done
	// The next cockpit on the run settles what the last one left: the
	// wrappers got SIGHUP when the dead cockpit's terminals closed.
	s2 := startServe(t, root, env)
	waitFor(t, "every dispatch to settle under the new cockpit", 30*time.Second, func() bool {
		for _, d := range readTeamState(t, root).WorkerDispatches {
			if !d.Terminal() {
				return false
			}
		}
		return true
	})
	allTerminalWithReasons(t, readTeamState(t, root))
	// Its panes are numbered after the dead cockpit's.
	res := cockpit(t, root, env, runArgs(root, "worker-dispatch", "--jobs-file", fixture.JobsReverify)...)
	if res.code != 0 {
		t.Fatalf("%s", res.stderr)
	}
	_ = s2
}

// TestPaneBackendTeamCommands drives a pane run through the team commands
// against `cockpit serve` and checks the seed's recording rules: reclaim
// closes only finished panes and records phase-batch-cleanup, --gate records
// nothing, a second batch keeps the first one's in-progress pane, teardown
// writes off the rest.
func TestPaneBackendTeamCommands(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root, env := paneRun(t)
	startServe(t, root, env)
	fixture.Behaviours{Codex: "ok", Antigravity: "fail"}.Set(t, root)
	// Still running at the reclaim and at await's entry, however loaded
	// the machine: it works until the test releases it.
	fixture.SetBehaviour(t, root, fixture.ClaudePrompt, "until-claude.release")
	run := func(args ...string) result {
		t.Helper()
		r := cockpit(t, root, env, runArgs(root, args...)...)
		if r.code != 0 {
			t.Fatalf("cockpit %v: %s", args, r.stderr)
		}
		return r
	}
	lines := func(r result) []string { return progressLines(r.stdout) }
	d := run("team", "dispatch", "--jobs-file", fixture.JobsInitial)
	wantDispatch := []string{
		"PROGRESS: phase-3-team-create using implicit team",
		"PROGRESS: phase-4-dispatch worker=Codex worker model=gpt-6.1-sol",
		"PROGRESS: phase-4-dispatch worker=Antigravity worker model=gemini-3.1-pro",
		"PROGRESS: phase-4-dispatch worker=Claude worker model=sonnet",
	}
	if got := lines(d); !slices.Equal(got, wantDispatch) {
		t.Fatalf("team dispatch printed:\n%s", d.stdout)
	}
	ts := readTeamState(t, root)
	for i, d := range ts.WorkerDispatches {
		if d.PaneID != "pane-"+strconv.Itoa(i+1) || d.Backend != fixture.PaneBackend {
			t.Fatalf("dispatch %d: pane %q backend %q", i, d.PaneID, d.Backend)
		}
	}
	// Reclaim while the slow worker runs: it keeps its pane.
	waitFor(t, "two workers to settle", 20*time.Second, func() bool {
		n := 0
		for _, p := range []string{fixture.CodexPrompt, fixture.AntigravityPrompt} {
			if sc, _ := state.ReadSidecar(filepath.Join(root, state.SidecarPath(p)), "s"); sc != nil && state.IsTerminal(sc.Status) {
				n++
			}
		}
		return n == 2
	})
	dry := run("team", "reclaim", "--dry-run")
	if strings.TrimSpace(dry.stdout) != "pane-1\tworker\npane-2\tworker" {
		t.Fatalf("dry run: %q", dry.stdout)
	}
	before := ledgerLines(t, root)
	if len(before) != 4 {
		t.Fatalf("the dry run recorded something: %v", before)
	}
	rc := run("team", "reclaim", "--json")
	var rj struct {
		Panes        []map[string]string `json:"panes"`
		ProgressLine string              `json:"progressLine"`
	}
	if err := json.Unmarshal([]byte(rc.stdout), &rj); err != nil {
		t.Fatal(err)
	}
	if len(rj.Panes) != 2 || rj.Panes[0]["paneId"] != "pane-1" || rj.Panes[0]["kind"] != "worker" || rj.ProgressLine != "PROGRESS: phase-batch-cleanup panes=2" {
		t.Fatalf("reclaim --json: %s", rc.stdout)
	}
	if got := ledgerLines(t, root); got[len(got)-1] != "PROGRESS: phase-batch-cleanup panes=2" {
		t.Fatalf("reclaim did not record phase-batch-cleanup: %v", got)
	}
	// The in-progress worker's pane is still open.
	ls := run("team", "reclaim", "--dry-run")
	if strings.TrimSpace(ls.stdout) != "" {
		t.Fatalf("nothing finished is left open, yet the dry run lists %q", ls.stdout)
	}
	// await enters with the slow worker running (its entry poll says so),
	// and only then is the worker released.
	awaited := make(chan result, 1)
	go func() { awaited <- cockpit(t, root, env, runArgs(root, "team", "await")...) }()
	waitFor(t, "await's entry poll", 20*time.Second, func() bool {
		return slices.Contains(ledgerLines(t, root), "PROGRESS: phase-5-poll pending=1 done=2")
	})
	if err := os.WriteFile(filepath.Join(root, "claude.release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	aw := <-awaited
	if aw.code != 0 {
		t.Fatalf("cockpit team await: %s", aw.stderr)
	}
	if got := lines(aw); got[len(got)-1] != "PROGRESS: phase-5-poll pending=0 done=3" {
		t.Fatalf("await: %s", aw.stdout)
	}
	recorded := ledgerLines(t, root)
	if !slices.Contains(recorded, "PROGRESS: phase-5-collect worker=Claude worker status=completed") || !slices.Contains(recorded, "PROGRESS: phase-5-poll pending=0 done=3") {
		t.Fatalf("await on a pane run must record its lines: %v", recorded)
	}
	// A second batch; then a gate reclaim, which records nothing.
	fixture.SetBehaviour(t, root, fixture.ReverifyPrompt, "hang")
	run("team", "dispatch", "--jobs-file", fixture.JobsReverify, "--dispatch-kind", "reverify-r1")
	n := len(ledgerLines(t, root))
	g := run("team", "reclaim", "--gate")
	if got := lines(g); !slices.Equal(got, []string{"PROGRESS: phase-gate-cleanup panes=1"}) {
		t.Fatalf("gate reclaim printed %q", g.stdout)
	}
	if len(ledgerLines(t, root)) != n {
		t.Fatal("reclaim --gate recorded a line")
	}
	td := run("team", "teardown")
	if strings.TrimSpace(td.stdout) != "pane-4\tworker" {
		t.Fatalf("teardown closed %q, want the running reverify pane", td.stdout)
	}
	ts = readTeamState(t, root)
	last := ts.WorkerDispatches[len(ts.WorkerDispatches)-1]
	if last.Status != "error" || last.Reason != state.TeardownReason {
		t.Fatalf("teardown left %+v", last)
	}
	allTerminalWithReasons(t, ts)
}

// TestOpenShowsWorkersRunningElsewhere starts a cockpit on a run whose
// batch is already running in another process (worker-dispatch): each live
// dispatch gets a pane following its log, titled "running elsewhere".
func TestOpenShowsWorkersRunningElsewhere(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root, env := paneRun(t)
	fixture.Behaviours{Codex: "until-codex.release", Antigravity: "ok", Claude: "ok"}.Set(t, root)
	bg := startDispatch(t, root)
	t.Cleanup(func() { os.WriteFile(filepath.Join(root, "codex.release"), nil, 0o644) }) // before startDispatch's Wait
	waitFor(t, "the slow worker to start and the quick ones to end", 20*time.Second, func() bool {
		sc, _ := state.ReadSidecar(filepath.Join(root, state.SidecarPath(fixture.CodexPrompt)), "s")
		a, _ := state.ReadSidecar(filepath.Join(root, state.SidecarPath(fixture.AntigravityPrompt)), "s")
		c, _ := state.ReadSidecar(filepath.Join(root, state.SidecarPath(fixture.ClaudePrompt)), "s")
		// Every quick one must have ended: one still running when the
		// cockpit starts rightly gets a pane of its own.
		return sc != nil && sc.Status == "started" && a != nil && state.IsTerminal(a.Status) && c != nil && state.IsTerminal(c.Status)
	})
	s := startServe(t, root, env)
	var opened []string
	deadline := time.After(10 * time.Second)
	for len(opened) == 0 {
		select {
		case ev := <-s.events:
			if strings.HasPrefix(ev, "pane-opened") {
				opened = append(opened, ev)
			}
		case <-deadline:
			t.Fatal("no pane opened for the worker running elsewhere")
		}
	}
	if !strings.Contains(opened[0], "Codex analyser · gpt-6.1-sol · running elsewhere") {
		t.Fatalf("pane: %s", opened[0])
	}
	// Only the live dispatch gets one.
	quiet := time.After(500 * time.Millisecond)
watch:
	for {
		select {
		case ev := <-s.events:
			if strings.HasPrefix(ev, "pane-opened") {
				t.Fatalf("a second pane for a finished worker: %s", ev)
			}
		case <-quiet:
			break watch
		}
	}
	if err := os.WriteFile(filepath.Join(root, "codex.release"), nil, 0o644); err != nil { // the slow worker may finish now
		t.Fatal(err)
	}
	bg.Wait()
}

// keysOf lists the members of a JSON object, sorted.
func keysOf(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestTeamJSONFields pins the members of every team command's --json
// output, so machine readers can rely on them.
func TestTeamJSONFields(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root, env := paneRun(t)
	startServe(t, root, env)
	fixture.SetBehaviour(t, root, fixture.ClaudePrompt, "ok-2s")
	run := func(args ...string) json.RawMessage {
		t.Helper()
		r := cockpit(t, root, env, runArgs(root, append(args, "--json")...)...)
		if r.code != 0 {
			t.Fatalf("%v: %s", args, r.stderr)
		}
		return json.RawMessage(r.stdout)
	}
	expect := func(what string, raw json.RawMessage, want ...string) {
		t.Helper()
		if got := keysOf(t, raw); !slices.Equal(got, want) {
			t.Errorf("%s: members %v, want %v", what, got, want)
		}
	}
	// idleTimeoutSeconds and idleTimeoutSource: the idle limit a dispatch
	// runs under and where it came from (issue 9).
	dispatchKeys := []string{"attempt", "backend", "dispatchId", "dispatchKind", "dispatchedAt", "executionLabel", "idleTimeoutSeconds", "idleTimeoutSource", "invocationRef", "logPath", "metadataPath", "model", "paneId", "pid", "promptPath", "provider", "reason", "resultPath", "role", "roleExecutionRef", "status", "statusPath", "workerId"}

	d := run("team", "dispatch", "--jobs-file", fixture.JobsInitial)
	expect("team dispatch", d, "dispatches", "progressLines")
	var dv struct {
		Dispatches    []json.RawMessage `json:"dispatches"`
		ProgressLines []string          `json:"progressLines"`
	}
	json.Unmarshal(d, &dv)
	if len(dv.Dispatches) != 3 || len(dv.ProgressLines) != 4 {
		t.Fatalf("team dispatch --json: %s", d)
	}
	expect("team dispatch dispatch", dv.Dispatches[0], dispatchKeys...)

	a := run("team", "await")
	expect("team await", a, "completed", "dispatches", "done", "pending", "progressLines")
	var av struct {
		Completed  bool              `json:"completed"`
		Pending    int               `json:"pending"`
		Done       int               `json:"done"`
		Dispatches []json.RawMessage `json:"dispatches"`
	}
	json.Unmarshal(a, &av)
	if !av.Completed || av.Pending != 0 || av.Done != 3 {
		t.Fatalf("team await --json: %s", a)
	}
	settled := append(append([]string(nil), dispatchKeys...), "collectedAt", "exitCode", "settledAt", "resultDigest")
	slices.Sort(settled)
	expect("team await dispatch", av.Dispatches[0], settled...)

	r := run("team", "reclaim")
	expect("team reclaim", r, "panes", "progressLine")
	var rv struct {
		Panes []json.RawMessage `json:"panes"`
	}
	json.Unmarshal(r, &rv)
	if len(rv.Panes) != 3 {
		t.Fatalf("team reclaim --json: %s", r)
	}
	expect("team reclaim pane", rv.Panes[0], "kind", "paneId")
	expect("team reclaim --dry-run", run("team", "reclaim", "--dry-run"), "panes")
	expect("team reclaim --gate", run("team", "reclaim", "--gate"), "panes", "progressLine")
	expect("team teardown", run("team", "teardown"), "panes")
	expect("team teardown --dry-run", run("team", "teardown", "--dry-run"), "panes")
	l := cockpit(t, root, env, runArgs(root, "worker-liveness", "--dispatch-id", "dispatch-001", "--json")...)
	expect("worker-liveness", json.RawMessage(l.stdout), "dispatchId", "liveness", "pid", "reason", "status")
	lp := cockpit(t, root, env, runArgs(root, "lead-progress", "append", "--phase", "complete", "--detail", "final-report=x.md")...)
	expect("lead-progress append", json.RawMessage(lp.stdout), "progressLine")
}
