package demo

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// feed gives the story one event and returns what it said and asked.
func feed(t *testing.T, s *Story, ev any) ([]string, []any) {
	t.Helper()
	return s.Next(ev)
}

// wantStep checks that acts is exactly one RunStep of args starting with
// first, and that the story showed the command line.
func wantStep(t *testing.T, lines []string, acts []any, first ...string) []string {
	t.Helper()
	if len(acts) != 1 {
		t.Fatalf("actions %#v, want one RunStep %v", acts, first)
	}
	rs, ok := acts[0].(RunStep)
	if !ok || len(rs.Args) < len(first) || !reflect.DeepEqual(rs.Args[:len(first)], first) {
		t.Fatalf("action %#v, want RunStep %v", acts[0], first)
	}
	if len(lines) == 0 || lines[len(lines)-1] != "$ cockpit "+strings.Join(rs.Args, " ") {
		t.Fatalf("lines %q do not end with the step's command line", lines)
	}
	return rs.Args
}

// TestStoryOnAPaneRun walks the pane story: engine, the lead's steps in
// order, the engine's events told as they come, the gate answered with the
// recommended option once, then the summary and the end.
func TestStoryOnAPaneRun(t *testing.T) {
	s := NewStory()
	lines, acts := feed(t, s, Began{Root: "/tmp/x/project", Backend: state.BackendCockpitPane})
	if !strings.Contains(lines[0], "4 simulated workers") || !strings.Contains(lines[0], "in /tmp/x/project") || len(lines) != 1+len(Workers) {
		t.Fatalf("intro %q", lines)
	}
	if !reflect.DeepEqual(acts, []any{StartEngine{}}) {
		t.Fatalf("after the intro: %#v, want StartEngine", acts)
	}
	lines, acts = feed(t, s, EngineStarted{Socket: "/tmp/x/cockpit.sock"})
	if lines[0] != "the cockpit serves the run at /tmp/x/cockpit.sock; its events:" {
		t.Fatalf("lines %q", lines)
	}
	wantStep(t, lines, acts, "team", "dispatch", "--jobs-file", JobsInitial)
	// Output of a step is told indented; engine events as wire lines.
	if lines, acts = feed(t, s, StepOutput{Line: "PROGRESS: phase-3-team-create using implicit team"}); len(acts) != 0 || !reflect.DeepEqual(lines, []string{"    PROGRESS: phase-3-team-create using implicit team"}) {
		t.Fatalf("step output: %q %#v", lines, acts)
	}
	lines, _ = feed(t, s, EngineEvent{Event: view.PaneOpened{PaneID: "pane-1", Title: "Codex analyser · sim", DispatchID: "dispatch-001"}})
	if !reflect.DeepEqual(lines, []string{"  ▸ pane-opened paneId=pane-1 dispatchId=dispatch-001 title=Codex analyser · sim"}) {
		t.Fatalf("engine event told as %q", lines)
	}
	// The first view is the baseline; a settled dispatch in the next one is
	// told.
	v := view.RunView{Dispatches: []state.Dispatch{{DispatchID: "dispatch-001", Status: state.StatusInProgress}}}
	if lines, _ = feed(t, s, EngineEvent{Event: view.ViewUpdated{View: v}}); len(lines) != 0 {
		t.Fatalf("the baseline view told %q", lines)
	}
	v2 := v
	v2.Dispatches = []state.Dispatch{{DispatchID: "dispatch-001", Status: state.StatusCompleted}}
	v2.Batch = view.Counts{Done: 1}
	if lines, _ = feed(t, s, EngineEvent{Event: view.ViewUpdated{View: v2}}); len(lines) != 1 || !strings.Contains(lines[0], "dispatch-status dispatchId=dispatch-001 status=completed") {
		t.Fatalf("settled dispatch told as %q", lines)
	}
	for _, next := range [][]string{{"team", "await"}, {"team", "reclaim", "--dry-run"}, {"team", "reclaim"}, {"approval-decision", "open"}, {"gate", "ask"}} {
		lines, acts = feed(t, s, StepDone{})
		wantStep(t, lines, acts, next...)
	}
	// The gate comes: answered once, with option 1.
	gate := view.Gate{ID: GateID, Kind: state.GateDecision, Options: []view.GateOption{{Answer: "Keep the legacy order"}, {Answer: "Sort"}}}
	v3 := v2
	v3.Gates = []view.Gate{gate}
	lines, acts = feed(t, s, EngineEvent{Event: view.ViewUpdated{View: v3}})
	if !reflect.DeepEqual(acts, []any{AnswerGate{Answer: view.GateAnswer{GateID: GateID, Option: 0, Note: "the demo answered for you"}}}) {
		t.Fatalf("the gate was answered with %#v", acts)
	}
	if got := lines[len(lines)-1]; got != `the human answers C-001 in the screen: option 1, "Keep the legacy order"` {
		t.Fatalf("answer told as %q", got)
	}
	v4 := v3
	v4.Timeline = []view.TimelineEntry{{Line: "PROGRESS: user-confirm C-001"}}
	if _, acts = feed(t, s, EngineEvent{Event: view.ViewUpdated{View: v4}}); len(acts) != 0 {
		t.Fatalf("the gate was answered twice: %#v", acts)
	}
	// The last step ends: the story waits for the last events, then
	// summarises and finishes; late engine events are not told.
	if _, acts = feed(t, s, StepDone{}); !reflect.DeepEqual(acts, []any{WaitQuiet{}}) {
		t.Fatalf("after the last step: %#v, want WaitQuiet", acts)
	}
	if lines, _ = feed(t, s, EngineEvent{Event: view.PaneClosed{PaneID: "pane-9"}}); len(lines) != 0 {
		t.Fatalf("an event after the steps was told: %q", lines)
	}
	// The last view's usage prices the summary (one worker left none).
	usage := map[string]view.Usage{"dispatch-001": {Input: 1000, Output: 10, CostUSD: 0.4213, Priced: true}}
	if lines, _ = feed(t, s, EngineEvent{Event: view.ViewUpdated{View: view.RunView{Usage: usage}}}); len(lines) != 0 {
		t.Fatalf("an event after the steps was told: %q", lines)
	}
	if _, acts = feed(t, s, Quiet{}); !reflect.DeepEqual(acts, []any{Summarize{}}) {
		t.Fatalf("after the quiet: %#v, want Summarize", acts)
	}
	zero := 0
	lines, acts = feed(t, s, Summary{
		Dispatches: []state.Dispatch{
			{DispatchID: "dispatch-001", ExecutionLabel: "Codex analyser · sim", Status: state.StatusCompleted, ExitCode: &zero, ResultPath: "r/codex.md"},
			{DispatchID: "dispatch-002", ExecutionLabel: "Antigravity analyser · sim", Status: state.StatusError, Reason: "exit status 1", ResultPath: "r/ag.md"},
		},
		Results:     map[string]string{"r/codex.md": "# Simulated worker result"},
		Checkpoints: 17, Ledger: "state/lead-events.jsonl",
	})
	want := []string{
		"sidecars and results:",
		"  dispatch-001 Codex analyser · sim         completed exit 0  $0.42",
		"      result r/codex.md: # Simulated worker result",
		"  dispatch-002 Antigravity analyser · sim   error     exit -  (exit status 1)",
		"ledger: 17 checkpoints in state/lead-events.jsonl",
		"cost: $0.42 for 1 workers (the sim's simulated tokens; docs/COST.md)",
	}
	if !reflect.DeepEqual(lines, want) {
		t.Fatalf("summary:\n%q\nwant\n%q", lines, want)
	}
	if !reflect.DeepEqual(acts, []any{Finish{}}) {
		t.Fatalf("after the summary: %#v, want Finish", acts)
	}
}

// TestStoryOnACLIWrapperRun: one worker-dispatch step whose JSON is not
// shown, only its PROGRESS lines; then the summary without waiting for
// engine events.
func TestStoryOnACLIWrapperRun(t *testing.T) {
	s := NewStory()
	lines, acts := feed(t, s, Began{Root: "/r", Backend: state.BackendCLIWrapper})
	if lines[len(lines)-2] != "the run's terminalBackend is cli-wrapper: the batch runs as child processes, no panes" {
		t.Fatalf("lines %q", lines)
	}
	wantStep(t, lines, acts, "worker-dispatch", "--jobs-file", JobsInitial)
	for _, l := range []string{`{"dispatches": [],`, `"progressLines": ["PROGRESS: phase-4-dispatch worker=Codex worker model=sim-ok-4s",`, `"PROGRESS: phase-5-collect worker=Codex worker status=completed"]}`} {
		if lines, _ := feed(t, s, StepOutput{Line: l}); len(lines) != 0 {
			t.Fatalf("worker-dispatch's JSON shown: %q", lines)
		}
	}
	lines, acts = feed(t, s, StepDone{})
	want := []string{"    PROGRESS: phase-4-dispatch worker=Codex worker model=sim-ok-4s", "    PROGRESS: phase-5-collect worker=Codex worker status=completed"}
	if !reflect.DeepEqual(lines, want) || !reflect.DeepEqual(acts, []any{Summarize{}}) {
		t.Fatalf("after worker-dispatch: %q %#v", lines, acts)
	}
}

// TestStoryEndsOnAFailedStep: a step that fails ends the story with its
// error; no later step runs.
func TestStoryEndsOnAFailedStep(t *testing.T) {
	s := NewStory()
	feed(t, s, Began{Root: "/r", Backend: state.BackendCockpitPane})
	feed(t, s, EngineStarted{Socket: "/s"})
	boom := errors.New("cockpit team: exit status 1: no cockpit")
	_, acts := feed(t, s, StepDone{Err: boom})
	if !reflect.DeepEqual(acts, []any{Finish{Err: boom}}) {
		t.Fatalf("after a failed step: %#v", acts)
	}
}

// TestSlowWork: the demo's screen paces its slow worker (an animated
// sim-ok-<d>, named as people write durations); the headless story keeps
// sim-slow-10s.
func TestSlowWork(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "sim-slow-10s", time.Minute: "sim-ok-1m", 90 * time.Second: "sim-ok-1m30s", 8 * time.Second: "sim-ok-8s"} {
		run, err := MakeRun(t.TempDir(), Options{Backend: "cmux-pane", SlowWork: d})
		if err != nil {
			t.Fatal(err)
		}
		if run.Manifest.TerminalBackend != "cmux-pane" {
			t.Errorf("terminalBackend %q", run.Manifest.TerminalBackend)
		}
		got := ""
		for _, r := range run.Manifest.RoleExecutions {
			if r.ExecutionLabel == "Claude analyser · sim" {
				got = r.Binding.ResolvedExecutionValue
			}
		}
		if got != want {
			t.Errorf("SlowWork %s: the slow worker runs %q, want %q", d, got, want)
		}
	}
}
