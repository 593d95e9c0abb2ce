package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/state"
)

// setIdle sets idleTimeoutSeconds of the job whose prompt is prompt.
func setIdle(t *testing.T, root, jobs, prompt string, seconds int) {
	t.Helper()
	editJSON(t, filepath.Join(root, jobs), func(doc map[string]any) {
		for _, j := range doc["jobs"].([]any) {
			job := j.(map[string]any)
			if job["promptPath"] == prompt {
				job["idleTimeoutSeconds"] = seconds
			}
		}
	})
}

// TestWorkerDispatchSettlesEveryJob runs a batch of three fake workers —
// one completes, one fails, one goes silent past its idle limit — through
// the real binary and checks team-state, the ledger and the printed lines.
func TestWorkerDispatchSettlesEveryJob(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root := fixture.Copy(t)
	fixture.Behaviours{Codex: "ok", Antigravity: "fail-3", Claude: "hang"}.Set(t, root)
	setIdle(t, root, fixture.JobsInitial, fixture.ClaudePrompt, 1)

	res := cockpit(t, root, nil, runArgs(root, "worker-dispatch", "--jobs-file", fixture.JobsInitial)...)
	if res.code != 0 {
		t.Fatalf("worker-dispatch exited %d: %s", res.code, res.stderr)
	}
	var out struct {
		Dispatches    []state.Dispatch `json:"dispatches"`
		ProgressLines []string         `json:"progressLines"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, res.stdout)
	}
	want := []string{
		"PROGRESS: phase-3-team-create using implicit team",
		"PROGRESS: phase-4-dispatch worker=Codex worker model=gpt-6.1-sol",
		"PROGRESS: phase-4-dispatch worker=Antigravity worker model=gemini-3.1-pro",
		"PROGRESS: phase-4-dispatch worker=Claude worker model=sonnet",
		"PROGRESS: phase-5-collect worker=Codex worker status=completed",
		"PROGRESS: phase-5-collect worker=Antigravity worker status=error",
		"PROGRESS: phase-5-collect worker=Claude worker status=timeout",
	}
	if !slices.Equal(out.ProgressLines, want) {
		t.Fatalf("printed lines:\n%s\nwant:\n%s", strings.Join(out.ProgressLines, "\n"), strings.Join(want, "\n"))
	}
	if got := ledgerLines(t, root); !slices.Equal(got, want) {
		t.Fatalf("ledger:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ts, err := state.ReadTeamState(filepath.Join(root, fixture.TeamState), "team-state")
	if err != nil {
		t.Fatal(err)
	}
	if ts.TeamCreate == nil || ts.TeamCreate.Status != "implicit" || ts.TeamCreate.Attempted {
		t.Fatalf("implicit-team marker: %+v", ts.TeamCreate)
	}
	if len(ts.WorkerDispatches) != 3 {
		t.Fatalf("%d dispatches recorded, want 3", len(ts.WorkerDispatches))
	}
	wantStatus := []state.Status{state.StatusCompleted, state.StatusError, state.StatusTimeout}
	for i, d := range ts.WorkerDispatches {
		if d.Status != wantStatus[i] {
			t.Errorf("%s: status %s, want %s (reason %q)", d.DispatchID, d.Status, wantStatus[i], d.Reason)
		}
		if d.Status != "completed" && d.Reason == "" {
			t.Errorf("%s: %s without a reason", d.DispatchID, d.Status)
		}
		if d.SettledAt == "" || d.CollectedAt == "" || d.Backend != "cli-wrapper" {
			t.Errorf("%s: settledAt %q collectedAt %q backend %q", d.DispatchID, d.SettledAt, d.CollectedAt, d.Backend)
		}
		if !reflectEqualDispatch(d, out.Dispatches[i]) {
			t.Errorf("printed dispatch %d differs from team-state", i)
		}
	}
	if !strings.Contains(ts.WorkerDispatches[1].Reason, "3") {
		t.Errorf("error reason should name the exit status 3: %q", ts.WorkerDispatches[1].Reason)
	}
	if !strings.Contains(ts.WorkerDispatches[2].Reason, "idle") {
		t.Errorf("timeout reason should name the idle limit: %q", ts.WorkerDispatches[2].Reason)
	}
	if _, err := os.Stat(filepath.Join(root, fixture.RunDir, "worker-results/codex-worker-feature-analysis-002.md")); err != nil {
		t.Errorf("the completed worker's result is missing: %v", err)
	}

	// A second batch of the same kind records no second team-create line,
	// and a report-writer batch records phase-6-synthesis once.
	res = cockpit(t, root, nil, runArgs(root, "worker-dispatch", "--jobs-file", fixture.JobsReportWriter, "--dispatch-kind", "report-writer")...)
	if res.code != 0 {
		t.Fatalf("report-writer dispatch: %s", res.stderr)
	}
	res = cockpit(t, root, nil, runArgs(root, "worker-dispatch", "--jobs-file", fixture.JobsReportWriter)...)
	if res.code != 0 {
		t.Fatalf("second report-writer dispatch: %s", res.stderr)
	}
	got := ledgerLines(t, root)
	if n := count(got, "PROGRESS: phase-6-synthesis dispatching report-writer-worker"); n != 1 {
		t.Fatalf("phase-6-synthesis recorded %d times:\n%s", n, strings.Join(got, "\n"))
	}
	if n := count(got, "PROGRESS: phase-3-team-create using implicit team"); n != 1 {
		t.Fatalf("phase-3-team-create recorded %d times", n)
	}
	if len(got) != len(want)+1 {
		t.Fatalf("report-writer batches recorded more than phase-6-synthesis:\n%s", strings.Join(got, "\n"))
	}
}

func count(xs []string, x string) int {
	n := 0
	for _, v := range xs {
		if v == x {
			n++
		}
	}
	return n
}

func reflectEqualDispatch(a, b state.Dispatch) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// holdsInotify reports whether process pid has an inotify descriptor open.
func holdsInotify(pid int) bool {
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, fd := range fds {
		if l, _ := os.Readlink(fd); l == "anon_inode:inotify" {
			return true
		}
	}
	return false
}

// TestTeamAwaitPollsOnlyOnChange runs team await while a worker-dispatch
// batch is settling in the background: the poll line appears on entry and
// again only when the counts change, and on a cli-wrapper run nothing is
// recorded by await.
func TestTeamAwaitPollsOnlyOnChange(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root := fixture.Copy(t)
	// The workers work until the test releases them, one at a time, each
	// once the one before has settled: the counts change three times while
	// await runs, whatever the machine's load (no worker duration to guess).
	fixture.Behaviours{Codex: "until-codex.release", Antigravity: "until-antigravity.release", Claude: "until-claude.release"}.Set(t, root)
	release := func(name string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name+".release"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { // before startDispatch's Wait, when the test fails early
		for _, n := range []string{"codex", "antigravity", "claude"} {
			os.WriteFile(filepath.Join(root, n+".release"), nil, 0o644)
		}
	})
	bg := startDispatch(t, root)
	tsPath := filepath.Join(root, fixture.TeamState)
	waitFor(t, "the batch to be recorded", 10*time.Second, func() bool {
		ts, err := state.ReadTeamState(tsPath, "team-state")
		return err == nil && len(ts.WorkerDispatches) == 3
	})
	before := ledgerLines(t, root)
	aw := exec.Command(cockpitBin, runArgs(root, "team", "await", "--timeout", "30s", "--json")...)
	aw.Dir, aw.Env = root, cockpitEnv(t, nil)
	var awOut, awErr strings.Builder
	aw.Stdout, aw.Stderr = &awOut, &awErr
	if err := aw.Start(); err != nil {
		t.Fatal(err)
	}
	awDone := make(chan error, 1)
	go func() { awDone <- aw.Wait() }()
	// Await watches the run's files (an inotify descriptor) before its
	// entry poll: every release after that is a change it sees.
	waitFor(t, "team await to watch the run", 10*time.Second, func() bool { return holdsInotify(aw.Process.Pid) })
	for _, w := range []struct{ name, prompt string }{{"codex", fixture.CodexPrompt}, {"antigravity", fixture.AntigravityPrompt}, {"claude", fixture.ClaudePrompt}} {
		release(w.name)
		waitFor(t, w.name+"'s worker to settle", 20*time.Second, func() bool {
			sc, _ := state.ReadSidecar(filepath.Join(root, state.SidecarPath(w.prompt)), "s")
			return sc != nil && state.IsTerminal(sc.Status)
		})
	}
	var res result
	select {
	case err := <-awDone:
		res = result{stdout: awOut.String(), stderr: awErr.String()}
		if ee, ok := err.(*exec.ExitError); ok {
			res.code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
	case <-time.After(testenv.Scale(30 * time.Second)):
		aw.Process.Kill()
		t.Fatal("team await did not return once every worker settled")
	}
	if res.code != 0 {
		t.Fatalf("team await exited %d: %s", res.code, res.stderr)
	}
	// Issue 18.16: on a cli-wrapper run await records nothing, so it prints
	// no PROGRESS line (progressLines is empty); the checkpoints a pane run
	// would record come apart, in unrecordedLines.
	var doc struct {
		ProgressLines   []string `json:"progressLines"`
		UnrecordedLines []string `json:"unrecordedLines"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &doc); err != nil {
		t.Fatalf("team await --json: %v\n%s", err, res.stdout)
	}
	if doc.ProgressLines == nil || len(doc.ProgressLines) != 0 {
		t.Fatalf("team await printed PROGRESS lines it did not record: %q", doc.ProgressLines)
	}
	var progress, polls []string
	for _, l := range doc.UnrecordedLines {
		progress = append(progress, l)
		if strings.HasPrefix(l, "PROGRESS: phase-5-poll ") {
			polls = append(polls, l)
		}
	}
	if len(polls) == 0 || polls[len(polls)-1] != "PROGRESS: phase-5-poll pending=0 done=3" {
		t.Fatalf("await must end at pending=0 done=3:\n%s", res.stdout)
	}
	for i := 1; i < len(polls); i++ {
		if polls[i] == polls[i-1] {
			t.Fatalf("phase-5-poll repeated without a change:\n%s", strings.Join(polls, "\n"))
		}
	}
	if len(polls) > 4 {
		t.Fatalf("more poll lines than count changes:\n%s", strings.Join(polls, "\n"))
	}
	collects := map[string]int{}
	for _, l := range progress {
		if strings.HasPrefix(l, "PROGRESS: phase-5-collect ") {
			collects[l]++
		}
	}
	for l, n := range collects {
		if n != 1 {
			t.Fatalf("%q printed %d times:\n%s", l, n, res.stdout)
		}
	}
	// Three workers settling at different times: at least the entry line
	// and one change were seen.
	if len(polls) < 2 {
		t.Fatalf("await saw no change while three workers settled:\n%s", res.stdout)
	}
	bg.Wait()
	after := ledgerLines(t, root)
	added := after[len(before):]
	for _, l := range added {
		if strings.HasPrefix(l, "PROGRESS: phase-5-poll") {
			t.Fatalf("team await recorded %q on a cli-wrapper run", l)
		}
	}
	// Every worker's end is reported: by await, or — when the background
	// worker-dispatch settled it and recorded its phase-5-collect first, a
	// race the machine's load decides — in the ledger, which await then
	// does not repeat (Collect). None is missed.
	for _, w := range []string{"Codex worker", "Antigravity worker", "Claude worker"} {
		line := "PROGRESS: phase-5-collect worker=" + w + " status=completed"
		if collects[line] == 0 && !slices.Contains(added, line) {
			t.Fatalf("no phase-5-collect for %s, neither from await nor in the ledger:\nawait:\n%s\nledger:\n%s", w, res.stdout, strings.Join(added, "\n"))
		}
	}
	if len(collects) > 3 {
		t.Fatalf("more phase-5-collect lines than workers:\n%s", res.stdout)
	}
}
