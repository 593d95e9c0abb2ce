// Package demo is `cockpit demo`: a throwaway v2 run whose workers use the
// built-in sim provider (MakeRun), and the headless story told over it
// (Story, a state machine fed by events; Headless drives it). It records
// nothing outside the demo's own temp dir.
package demo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/okstra/cockpit/state"
)

// Worker is one worker of the demo batch.
type Worker struct {
	Slug       string // file-name stem
	RosterRole string
	Label      string
	Model      string // a sim model: its name chooses the behaviour
}

// Workers is the demo's initial batch: one completes quickly, one
// fails, one is slow, one completes in between.
var Workers = []Worker{
	{"codex-worker", "Codex worker", "Codex analyser · sim", "sim-ok-4s"},
	{"antigravity-worker", "Antigravity worker", "Antigravity analyser · sim", "sim-fail-3s"},
	{"claude-worker", "Claude worker", "Claude analyser · sim", "sim-slow-10s"},
	{"grok-worker", "Grok worker", "Grok analyser · sim", "sim-ok-6s"},
}

// ReportWriter is the demo's report-writer, dispatched after the
// reclaim.
var ReportWriter = Worker{"report-writer", "Report writer worker", "Report writer · sim", "sim-ok-3s"}

// Demo paths, project-root-relative.
const (
	RunDir           = ".okstra/tasks/demo-1/runs/feature-analysis"
	RunManifest      = RunDir + "/state/run-manifest.json"
	JobsInitial      = RunDir + "/state/jobs-initial.json"
	JobsReportWriter = RunDir + "/state/jobs-report-writer.json"
	TaskManifest     = ".okstra/tasks/demo-1/task-manifest.json"
	Approvals        = RunDir + "/state/approval-decisions.json"
)

// SlowWork is how long the slow worker of the demo's screen works: about a
// minute of a live pane (its spinner and progress bar redrawn, a tool line
// every few seconds) to try focus, zoom, scroll and search on while the
// others have ended (docs/DECISIONS.md).
const SlowWork = time.Minute

// Options shape the demo run.
type Options struct {
	// Backend is the manifest's terminalBackend: cmux-pane (okstra's name
	// for workers in panes) or cli-wrapper.
	Backend string
	// SlowWork, when set, is how long the slow worker (Claude's analyser)
	// works, animating all along (sim-ok-<SlowWork>); unset, it is
	// Workers' sim-slow-10s (the headless story).
	SlowWork time.Duration
}

// slowSlug is the worker SlowWork paces.
const slowSlug = "claude-worker"

// MakeRun lays out a complete v2 run under root (a project root) whose
// workers use the built-in sim provider, so no LLM CLI is needed: the run
// manifest, prompts with their invocation metadata, and the jobs files of
// the initial batch and the report-writer.
func MakeRun(root string, o Options) (*state.Run, error) {
	backend := o.Backend
	manifest := map[string]any{
		"schemaVersion": "2.0", "executionIdentityVersion": 2,
		"taskKey": "demo-1", "taskType": "feature-analysis", "runSeq": "001",
		"runDir":                RunDir,
		"teamStatePath":         RunDir + "/state/team-state.json",
		"leadEventsPath":        RunDir + "/state/lead-events.jsonl",
		"approvalDecisionsPath": Approvals,
		"taskManifestPath":      TaskManifest,
		"terminalBackend":       backend,
		"leadRuntime":           "cockpit-demo",
		"reportLanguage":        "en",
	}
	roles := []state.RoleExecution{{
		RoleExecutionRef: "role-execution-001", ParticipantRef: "participant-001", Role: "leader",
		Provider: "sim", RosterRole: "Lead role", ExecutionLabel: "Okstra lead · demo",
		Binding: &state.Binding{Runner: "native-session", ResolvedExecutionValue: "sim-ok"},
	}}
	var invs []state.Invocation
	type jobT = state.Job
	var initial, writer []jobT
	all := append(append([]Worker(nil), Workers...), ReportWriter)
	for i, w := range all {
		if w.Slug == slowSlug && o.SlowWork > 0 {
			w.Model = "sim-ok-" + ShortDuration(o.SlowWork)
		}
		n := i + 2
		re := fmt.Sprintf("role-execution-%03d", n)
		part := fmt.Sprintf("participant-%03d", n)
		inv := fmt.Sprintf("invocation-%03d", i+1)
		role, duty := "analyser", "analysis"
		if w.Slug == ReportWriter.Slug {
			role, duty = "report-writer", "report-writing"
		}
		roles = append(roles, state.RoleExecution{
			RoleExecutionRef: re, ParticipantRef: part, Role: role, Provider: "sim", RosterRole: w.RosterRole, ExecutionLabel: w.Label,
			Binding: &state.Binding{Runner: "cli-wrapper", ResolvedExecutionValue: w.Model},
		})
		invs = append(invs, state.Invocation{
			InvocationRef: inv, RoleExecutionRef: re, DutyID: duty, Attempt: 1,
			WritePolicy:       map[string]any{"mode": "read-only", "writeScope": []string{}},
			WritePolicyDigest: "sha256:0000000000000000000000000000000000000000000000000000000000000000",
			WriteEnforcement:  map[string]any{"mode": "audit"},
		})
		prompt := fmt.Sprintf("%s/prompts/%s-feature-analysis-001.md", RunDir, w.Slug)
		result := fmt.Sprintf("%s/worker-results/%s-feature-analysis-001.md", RunDir, w.Slug)
		meta := fmt.Sprintf("%s/prompts/%s-feature-analysis-001.meta.json", RunDir, w.Slug)
		body := fmt.Sprintf("**Okstra Duty:** %s\n**Invocation:** %s\n**Result Path:** %s\n\nThis is the cockpit demo: pretend to %s the feature request and write your findings to the Result Path.\n", duty, inv, result, duty)
		if err := writeFile(root, prompt, []byte(body)); err != nil {
			return nil, err
		}
		md := map[string]any{
			"schemaVersion": "2.0", "executionIdentityVersion": 2,
			"invocationRef": inv, "roleExecutionRef": re, "participantRef": part,
			"dutyId": duty, "executionLabel": w.Label, "attempt": 1,
			"modelAssignment": map[string]string{"provider": "sim", "modelExecutionValue": w.Model, "runner": "cli-wrapper"},
			"prompt":          map[string]string{"path": prompt},
			"contractSource":  map[string]string{"runManifestPath": RunManifest},
		}
		if err := writeJSON(root, meta, md); err != nil {
			return nil, err
		}
		j := jobT{
			InvocationRef: inv, RoleExecutionRef: re, ParticipantRef: part, Role: role, RosterRole: w.RosterRole,
			Provider: "sim", ModelExecutionValue: w.Model, ExecutionLabel: w.Label,
			PromptPath: prompt, ResultPath: result, MetadataPath: meta, IdleTimeoutSeconds: 60,
		}
		if w.Slug == ReportWriter.Slug {
			writer = append(writer, j)
		} else {
			initial = append(initial, j)
		}
	}
	manifest["roleExecutions"] = roles
	manifest["invocations"] = invs
	if err := writeJSON(root, RunManifest, manifest); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(root, RunDir, "worker-results"), 0o755); err != nil {
		return nil, err
	}
	for _, jf := range []struct {
		path string
		kind state.DispatchKind
		jobs []jobT
	}{{JobsInitial, state.DispatchInitial, initial}, {JobsReportWriter, state.DispatchReportWriter, writer}} {
		doc := map[string]any{"schemaVersion": "2.0", "executionIdentityVersion": 2, "dispatchKind": jf.kind, "runManifestPath": RunManifest, "jobs": jf.jobs}
		if err := writeJSON(root, jf.path, doc); err != nil {
			return nil, err
		}
	}
	task := map[string]any{"taskKey": "demo-1", "group": "demo", "workflow": map[string]any{
		"currentPhase": "feature-analysis",
		"nextRecommendedPhase": map[string]string{"phase": "implementation-option-selection", "status": "pending",
			"rationale": "this run has not settled where the task goes next"},
	}}
	if err := writeJSON(root, TaskManifest, task); err != nil {
		return nil, err
	}
	return state.LoadRun(root, RunManifest)
}

func writeFile(root, rel string, data []byte) error {
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

func writeJSON(root, rel string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(root, rel, append(data, '\n'))
}

// GateArgs are the `approval-decision open` arguments of the demo's
// gate: a decision with a recommended option and an alternative, each with
// everything a person needs to choose.
func GateArgs() []string {
	opt := func(role, answer, rationale, reach, work, change string) string {
		b, _ := json.Marshal(map[string]any{"role": role, "answer": answer, "rationale": rationale, "reach": reach,
			"scopeEffects": []string{}, "addedWork": work, "directionChange": change, "disposition": "select"})
		return string(b)
	}
	return []string{"approval-decision", "open", "--ledger", Approvals,
		"--task-key", "demo-1", "--task-type", "feature-analysis", "--run-seq", "001",
		"--clarification-id", GateID, "--ticket-id", "DEMO-1",
		"--statement", "The analysers disagree: should the CSV export keep its legacy column order?",
		"--expected-form", "one of the options", "--classification", "user-decision", "--origin", "worker-finding",
		"--user-confirmation", "The demo asks you, as a lead would before an approval blocker.",
		"--unblock-condition", "You pick a column order.", "--recommended-disposition", "select",
		"--option", opt("recommended", "Keep the legacy order", "Three downstream importers read the columns by position.", "in-repo", "None beyond the current plan.", "Reverses nothing."),
		"--option", opt("alternative", "Sort the columns alphabetically", "Matches the new JSON export.", "cross-repo", "Update the importers in billing-sync and reports-etl.", "Reverses plan item P-Step-004 (keep the CSV stable)."),
	}
}

// GateID is the demo gate's clarification id.
const GateID = "C-001"

// ShortDuration prints d as people write it: 1m, 90s, 1m30s (a Go
// duration, as sim model names take).
func ShortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
