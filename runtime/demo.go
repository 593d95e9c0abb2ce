package runtime

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/okstra/cockpit/state"
)

// DemoWorker is one worker of the demo batch.
type DemoWorker struct {
	Slug       string // file-name stem
	RosterRole string
	Label      string
	Model      string // a sim model: its name chooses the behaviour
}

// DemoWorkers is the demo's initial batch: one completes quickly, one
// fails, one is slow, one completes in between.
var DemoWorkers = []DemoWorker{
	{"codex-worker", "Codex worker", "Codex analyser · sim", "sim-ok-4s"},
	{"antigravity-worker", "Antigravity worker", "Antigravity analyser · sim", "sim-fail-3s"},
	{"claude-worker", "Claude worker", "Claude analyser · sim", "sim-slow-10s"},
	{"grok-worker", "Grok worker", "Grok analyser · sim", "sim-ok-6s"},
}

// DemoReportWriter is the demo's report-writer, dispatched after the
// reclaim.
var DemoReportWriter = DemoWorker{"report-writer", "Report writer worker", "Report writer · sim", "sim-ok-3s"}

// Demo paths, project-root-relative.
const (
	DemoRunDir           = ".okstra/tasks/demo-1/runs/feature-analysis"
	DemoRunManifest      = DemoRunDir + "/state/run-manifest.json"
	DemoJobsInitial      = DemoRunDir + "/state/jobs-initial.json"
	DemoJobsReportWriter = DemoRunDir + "/state/jobs-report-writer.json"
	DemoTaskManifest     = ".okstra/tasks/demo-1/task-manifest.json"
	DemoApprovals        = DemoRunDir + "/state/approval-decisions.json"
)

// MakeDemoRun lays out a complete v2 run under root (a project root) whose
// workers use the built-in sim provider, so no LLM CLI is needed: the run
// manifest, prompts with their invocation metadata, and the jobs files of
// the initial batch and the report-writer.
func MakeDemoRun(root, backend string) (*state.Run, error) {
	type roleExec struct {
		RoleExecutionRef string            `json:"roleExecutionRef"`
		ParticipantRef   string            `json:"participantRef"`
		Role             string            `json:"role"`
		Provider         string            `json:"provider"`
		RosterRole       string            `json:"rosterRole"`
		ExecutionLabel   string            `json:"executionLabel"`
		Binding          map[string]string `json:"binding"`
	}
	type invocation struct {
		InvocationRef     string         `json:"invocationRef"`
		RoleExecutionRef  string         `json:"roleExecutionRef"`
		DutyID            string         `json:"dutyId"`
		Attempt           int            `json:"attempt"`
		WritePolicy       map[string]any `json:"writePolicy"`
		WritePolicyDigest string         `json:"writePolicyDigest"`
		WriteEnforcement  map[string]any `json:"writeEnforcement"`
	}
	manifest := map[string]any{
		"schemaVersion": "2.0", "executionIdentityVersion": 2,
		"taskKey": "demo-1", "taskType": "feature-analysis", "runSeq": "001",
		"runDir":                DemoRunDir,
		"teamStatePath":         DemoRunDir + "/state/team-state.json",
		"leadEventsPath":        DemoRunDir + "/state/lead-events.jsonl",
		"approvalDecisionsPath": DemoApprovals,
		"taskManifestPath":      DemoTaskManifest,
		"terminalBackend":       backend,
		"leadRuntime":           "cockpit-demo",
		"reportLanguage":        "en",
	}
	roles := []roleExec{{
		RoleExecutionRef: "role-execution-001", ParticipantRef: "participant-001", Role: "leader",
		Provider: "sim", RosterRole: "Lead role", ExecutionLabel: "Okstra lead · demo",
		Binding: map[string]string{"runner": "native-session", "resolvedExecutionValue": "sim-ok"},
	}}
	var invs []invocation
	type jobT = state.Job
	var initial, writer []jobT
	all := append(append([]DemoWorker(nil), DemoWorkers...), DemoReportWriter)
	for i, w := range all {
		n := i + 2
		re := fmt.Sprintf("role-execution-%03d", n)
		part := fmt.Sprintf("participant-%03d", n)
		inv := fmt.Sprintf("invocation-%03d", i+1)
		role, duty := "analyser", "analysis"
		if w == DemoReportWriter {
			role, duty = "report-writer", "report-writing"
		}
		roles = append(roles, roleExec{re, part, role, "sim", w.RosterRole, w.Label, map[string]string{"runner": "cli-wrapper", "resolvedExecutionValue": w.Model}})
		invs = append(invs, invocation{inv, re, duty, 1, map[string]any{"mode": "read-only", "writeScope": []string{}},
			"sha256:0000000000000000000000000000000000000000000000000000000000000000", map[string]any{"mode": "audit"}})
		prompt := fmt.Sprintf("%s/prompts/%s-feature-analysis-001.md", DemoRunDir, w.Slug)
		result := fmt.Sprintf("%s/worker-results/%s-feature-analysis-001.md", DemoRunDir, w.Slug)
		meta := fmt.Sprintf("%s/prompts/%s-feature-analysis-001.meta.json", DemoRunDir, w.Slug)
		body := fmt.Sprintf("**Okstra Duty:** %s\n**Invocation:** %s\n**Result Path:** %s\n\nThis is the cockpit demo: pretend to %s the feature request and write your findings to the Result Path.\n", duty, inv, result, duty)
		if err := writeDemoFile(root, prompt, []byte(body)); err != nil {
			return nil, err
		}
		md := map[string]any{
			"schemaVersion": "2.0", "executionIdentityVersion": 2,
			"invocationRef": inv, "roleExecutionRef": re, "participantRef": part,
			"dutyId": duty, "executionLabel": w.Label, "attempt": 1,
			"modelAssignment": map[string]string{"provider": "sim", "modelExecutionValue": w.Model, "runner": "cli-wrapper"},
			"prompt":          map[string]string{"path": prompt},
			"contractSource":  map[string]string{"runManifestPath": DemoRunManifest},
		}
		if err := writeDemoJSON(root, meta, md); err != nil {
			return nil, err
		}
		j := jobT{
			InvocationRef: inv, RoleExecutionRef: re, ParticipantRef: part, Role: role, RosterRole: w.RosterRole,
			Provider: "sim", ModelExecutionValue: w.Model, ExecutionLabel: w.Label,
			PromptPath: prompt, ResultPath: result, MetadataPath: meta, IdleTimeoutSeconds: 60,
		}
		if w == DemoReportWriter {
			writer = append(writer, j)
		} else {
			initial = append(initial, j)
		}
	}
	manifest["roleExecutions"] = roles
	manifest["invocations"] = invs
	if err := writeDemoJSON(root, DemoRunManifest, manifest); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(root, DemoRunDir, "worker-results"), 0o755); err != nil {
		return nil, err
	}
	for _, jf := range []struct {
		path, kind string
		jobs       []jobT
	}{{DemoJobsInitial, "initial", initial}, {DemoJobsReportWriter, "report-writer", writer}} {
		doc := map[string]any{"schemaVersion": "2.0", "executionIdentityVersion": 2, "dispatchKind": jf.kind, "runManifestPath": DemoRunManifest, "jobs": jf.jobs}
		if err := writeDemoJSON(root, jf.path, doc); err != nil {
			return nil, err
		}
	}
	task := map[string]any{"taskKey": "demo-1", "group": "demo", "workflow": map[string]any{
		"currentPhase": "feature-analysis",
		"nextRecommendedPhase": map[string]string{"phase": "implementation-option-selection", "status": "pending",
			"rationale": "this run has not settled where the task goes next"},
	}}
	if err := writeDemoJSON(root, DemoTaskManifest, task); err != nil {
		return nil, err
	}
	return state.LoadRun(root, DemoRunManifest)
}

func writeDemoFile(root, rel string, data []byte) error {
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

func writeDemoJSON(root, rel string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeDemoFile(root, rel, append(data, '\n'))
}

// DemoGateArgs are the `approval-decision open` arguments of the demo's
// gate: a decision with a recommended option and an alternative, each with
// everything a person needs to choose.
func DemoGateArgs() []string {
	opt := func(role, answer, rationale, reach, work, change string) string {
		b, _ := json.Marshal(map[string]any{"role": role, "answer": answer, "rationale": rationale, "reach": reach,
			"scopeEffects": []string{}, "addedWork": work, "directionChange": change, "disposition": "select"})
		return string(b)
	}
	return []string{"approval-decision", "open", "--ledger", DemoApprovals,
		"--task-key", "demo-1", "--task-type", "feature-analysis", "--run-seq", "001",
		"--clarification-id", DemoGateID, "--ticket-id", "DEMO-1",
		"--statement", "The analysers disagree: should the CSV export keep its legacy column order?",
		"--expected-form", "one of the options", "--classification", "user-decision", "--origin", "worker-finding",
		"--user-confirmation", "The demo asks you, as a lead would before an approval blocker.",
		"--unblock-condition", "You pick a column order.", "--recommended-disposition", "select",
		"--option", opt("recommended", "Keep the legacy order", "Three downstream importers read the columns by position.", "in-repo", "None beyond the current plan.", "Reverses nothing."),
		"--option", opt("alternative", "Sort the columns alphabetically", "Matches the new JSON export.", "cross-repo", "Update the importers in billing-sync and reports-etl.", "Reverses plan item P-Step-004 (keep the CSV stable)."),
	}
}

// DemoGateID is the demo gate's clarification id.
const DemoGateID = "C-001"
