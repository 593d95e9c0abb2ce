package team

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/runtime/lifecycle"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// ledgerLines is the PROGRESS lines of the run's ledger, in order.
func ledgerLines(t *testing.T, run *state.Run) []string {
	t.Helper()
	events, err := state.ReadEvents(run.LeadEventsPath, "ledger")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range events {
		out = append(out, e.ProgressLine)
	}
	return out
}

func wantLines(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// A second team await that finds the counts of the ledger's last
// phase-5-poll, with no worker state change since, records no new poll.
func TestAwaitRecordsNoDuplicatePoll(t *testing.T) {
	t.Parallel() // waits out await timeouts
	run, sidecars := runtest.StartedRun(t, 1)
	for i := 0; i < 2; i++ {
		// A running worker: each wait ends by its timeout, scaled so the
		// entry poll is recorded before it on a loaded machine.
		res, err := Await(context.Background(), run, testenv.Scale(100*time.Millisecond))
		if err != ErrAwaitTimeout {
			t.Fatalf("await %d: %v", i+1, err)
		}
		if i == 0 {
			wantLines(t, "first await prints", res.Lines, "PROGRESS: phase-5-poll pending=1 done=0")
		} else {
			wantLines(t, "second await prints", res.Lines)
		}
	}
	wantLines(t, "ledger after two waits on a running worker", ledgerLines(t, run),
		"PROGRESS: phase-5-poll pending=1 done=0")
	zero := 0
	if err := state.WriteSidecar(sidecars[0], &state.Sidecar{Status: "completed", PID: os.Getpid(), ExitCode: &zero}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := Await(context.Background(), run, 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	wantLines(t, "ledger after the worker finished and two more waits", ledgerLines(t, run),
		"PROGRESS: phase-5-poll pending=1 done=0",
		"PROGRESS: phase-5-poll pending=0 done=1",
		"PROGRESS: phase-5-collect worker=W status=completed")
}

// Counts equal to the last poll after a worker state change (a retry was
// dispatched and settled since) are a new poll.
func TestAwaitRecordsAPollAfterAStateChangeWithEqualCounts(t *testing.T) {
	run, _ := runtest.StartedRun(t, 0)
	past := time.Now().Add(-time.Hour).UTC()
	state.Now = func() time.Time { return past }
	defer func() { state.Now = func() time.Time { return time.Now().UTC() } }()
	if err := lifecycle.NewRecorder(run, lifecycle.SourceTeamAwait, true).Record("phase-5-poll", "", countFields(view.Counts{Pending: 0, Done: 1}), ""); err != nil {
		t.Fatal(err)
	}
	state.Now = func() time.Time { return time.Now().UTC() }
	now := state.Timestamp(state.Now())
	err := state.UpdateTeamState(run.TeamStatePath, "team-state", "bench", func(ts *state.TeamState) error {
		ts.WorkerDispatches = append(ts.WorkerDispatches, state.Dispatch{
			DispatchID: "dispatch-001", DispatchKind: "retry", Role: "W", PromptPath: "run/prompts/w000.md",
			StatusPath: state.SidecarPath("run/prompts/w000.md"), Status: "completed", DispatchedAt: now, SettledAt: now,
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Await(context.Background(), run, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	wantLines(t, "ledger", ledgerLines(t, run),
		"PROGRESS: phase-5-poll pending=0 done=1",
		"PROGRESS: phase-5-poll pending=0 done=1")
}

// A phase-5-collect another tool recorded (the dispatch has no
// collectedAt) is not recorded again; the dispatch is marked collected.
func TestAwaitDoesNotRecordACollectAlreadyInTheLedger(t *testing.T) {
	run, _ := runtest.StartedRun(t, 0)
	at := "2026-11-29T10:00:00Z"
	err := state.UpdateTeamState(run.TeamStatePath, "team-state", "bench", func(ts *state.TeamState) error {
		for i, status := range []state.Status{state.StatusCompleted, state.StatusCompleted, state.StatusError} {
			prompt := filepath.Join("run/prompts", string(rune('a'+i))+".md")
			ts.WorkerDispatches = append(ts.WorkerDispatches, state.Dispatch{
				DispatchID: "dispatch-00" + string(rune('1'+i)), DispatchKind: "initial", Role: []string{"Codex worker", "Claude worker", "Codex worker"}[i],
				PromptPath: prompt, StatusPath: state.SidecarPath(prompt), Status: status, DispatchedAt: at, SettledAt: at,
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Written by okstra before the run was taken over: one as the cockpit
	// writes it, one with its PROGRESS line only.
	foreign := `{"at":"2026-11-29T10:00:01Z","phase":"phase-5-collect","worker":"Codex worker","fields":[["status","completed"]],"source":"okstra team await","progressLine":"PROGRESS: phase-5-collect worker=Codex worker status=completed"}
{"at":"2026-11-29T10:00:01Z","progressLine":"PROGRESS: phase-5-collect worker=Claude worker status=completed"}
`
	if err := os.WriteFile(run.LeadEventsPath, []byte(foreign), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Await(context.Background(), run, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, "printed", res.Lines,
		"PROGRESS: phase-5-poll pending=0 done=3",
		"PROGRESS: phase-5-collect worker=Codex worker status=error")
	wantLines(t, "ledger", ledgerLines(t, run),
		"PROGRESS: phase-5-collect worker=Codex worker status=completed",
		"PROGRESS: phase-5-collect worker=Claude worker status=completed",
		"PROGRESS: phase-5-poll pending=0 done=3",
		"PROGRESS: phase-5-collect worker=Codex worker status=error")
	ts, err := state.ReadTeamState(run.TeamStatePath, "team-state")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ts.WorkerDispatches {
		if d.CollectedAt == "" {
			t.Fatalf("%s is not marked collected", d.DispatchID)
		}
	}
	// And nothing more on the next wait.
	if _, err := Await(context.Background(), run, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := ledgerLines(t, run); len(got) != 4 {
		t.Fatalf("a second await added lines: %q", got)
	}
}
