package state

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
)

// Terminal backends a run manifest may name.
const (
	BackendCmuxPane    = "cmux-pane"
	BackendCLIWrapper  = "cli-wrapper"
	BackendCockpitPane = "cockpit-pane"
)

// RunManifest is the prepare step's description of one run. Only the fields
// the cockpit reads are named; the file is never rewritten by the cockpit.
type RunManifest struct {
	SchemaVersion            string          `json:"schemaVersion"`
	ExecutionIdentityVersion int             `json:"executionIdentityVersion"`
	TaskKey                  string          `json:"taskKey"`
	TaskType                 string          `json:"taskType"`
	RunSeq                   string          `json:"runSeq"`
	RunDir                   string          `json:"runDir"`
	TeamStatePath            string          `json:"teamStatePath"`
	LeadEventsPath           string          `json:"leadEventsPath"`
	TerminalBackend          string          `json:"terminalBackend"`
	LeadRuntime              string          `json:"leadRuntime"`
	ReportLanguage           string          `json:"reportLanguage"`
	ApprovalDecisionsPath    string          `json:"approvalDecisionsPath,omitempty"`
	TaskManifestPath         string          `json:"taskManifestPath,omitempty"`
	RoleExecutions           []RoleExecution `json:"roleExecutions"`
	Invocations              []Invocation    `json:"invocations"`

	// Path is the manifest's own absolute path; Display how the user named it.
	Path    string `json:"-"`
	Display string `json:"-"`

	raw []byte // the file as read, for the row digests

	schemaOnce sync.Once
	schemaErr  error
}

// RoleExecution is one canonical (participant, role, provider, model) row.
type RoleExecution struct {
	RoleExecutionRef string   `json:"roleExecutionRef"`
	ParticipantRef   string   `json:"participantRef"`
	Role             string   `json:"role"`
	Provider         string   `json:"provider"`
	RosterRole       string   `json:"rosterRole"`
	ExecutionLabel   string   `json:"executionLabel"`
	Binding          *Binding `json:"binding"`
}

// Binding says how a role execution runs and on which execution value.
type Binding struct {
	Runner                 string `json:"runner"`
	ResolvedExecutionValue string `json:"resolvedExecutionValue"`
}

// Invocation is one planned call of a role execution.
type Invocation struct {
	InvocationRef     string         `json:"invocationRef"`
	RoleExecutionRef  string         `json:"roleExecutionRef"`
	DutyID            string         `json:"dutyId"`
	Attempt           int            `json:"attempt"`
	WritePolicy       map[string]any `json:"writePolicy"`
	WritePolicyDigest string         `json:"writePolicyDigest"`
	WriteEnforcement  map[string]any `json:"writeEnforcement"`
}

// IsV2 reports whether the run uses v2 execution identity.
func (m *RunManifest) IsV2() bool { return m.ExecutionIdentityVersion >= 2 }

// IsPaneBackend reports whether workers of this run live in panes: the
// team commands record their checkpoints only on such a run.
func (m *RunManifest) IsPaneBackend() bool {
	return m.TerminalBackend == BackendCmuxPane || m.TerminalBackend == BackendCockpitPane
}

// RoleExecution returns the row with ref, or nil.
func (m *RunManifest) RoleExecution(ref string) *RoleExecution {
	for i := range m.RoleExecutions {
		if m.RoleExecutions[i].RoleExecutionRef == ref {
			return &m.RoleExecutions[i]
		}
	}
	return nil
}

// Invocation returns the invocation with ref, or nil.
func (m *RunManifest) Invocation(ref string) *Invocation {
	for i := range m.Invocations {
		if m.Invocations[i].InvocationRef == ref {
			return &m.Invocations[i]
		}
	}
	return nil
}

// RosterRoles lists the distinct roster roles of the run's role executions.
func (m *RunManifest) RosterRoles() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range m.RoleExecutions {
		if r.RosterRole != "" && !seen[r.RosterRole] {
			seen[r.RosterRole] = true
			out = append(out, r.RosterRole)
		}
	}
	return out
}

// Run is a loaded run: its project root, its manifest, and the resolved
// absolute paths of the files the cockpit writes.
type Run struct {
	Root           Root
	Manifest       *RunManifest
	TeamStatePath  string
	LeadEventsPath string
	RunDir         string
}

// LoadRun opens the project root and reads and validates the run manifest
// (a path relative to the root, or absolute inside it).
func LoadRun(projectRoot, manifestPath string) (*Run, error) {
	root, err := OpenRoot(projectRoot)
	if err != nil {
		return nil, err
	}
	if manifestPath == "" {
		return nil, &Error{Field: "--run-manifest", Msg: "is required; pass the run manifest's path"}
	}
	dirs := map[string]string{}
	abs, err := root.resolve(manifestPath, "--run-manifest", dirs)
	if err != nil {
		return nil, err
	}
	m := &RunManifest{}
	data, err := readFileOf(abs, manifestPath)
	if err != nil {
		return nil, err
	}
	if err := decodeStrict(data, m, manifestPath); err != nil {
		return nil, err
	}
	m.Path, m.Display, m.raw = abs, manifestPath, data
	if err := m.validate(); err != nil {
		return nil, err
	}
	run := &Run{Root: root, Manifest: m}
	if run.TeamStatePath, err = root.resolve(m.TeamStatePath, "teamStatePath", dirs); err != nil {
		return nil, relabel(err, manifestPath)
	}
	if run.LeadEventsPath, err = root.resolve(m.LeadEventsPath, "leadEventsPath", dirs); err != nil {
		return nil, relabel(err, manifestPath)
	}
	if m.RunDir != "" {
		if run.RunDir, err = root.resolve(m.RunDir, "runDir", dirs); err != nil {
			return nil, relabel(err, manifestPath)
		}
	} else {
		run.RunDir = filepath.Dir(filepath.Dir(run.TeamStatePath))
	}
	for _, f := range []struct{ name, p string }{{"approvalDecisionsPath", m.ApprovalDecisionsPath}, {"taskManifestPath", m.TaskManifestPath}} {
		if f.p != "" {
			if _, err := root.resolve(f.p, f.name, dirs); err != nil {
				return nil, relabel(err, manifestPath)
			}
		}
	}
	return run, nil
}

// StateDir is the run's state directory, where team-state, ledgers and the
// control socket live.
func (r *Run) StateDir() string { return filepath.Dir(r.TeamStatePath) }

// relabel puts the manifest's name on a path error raised for one of its
// fields.
func relabel(err error, file string) error {
	if e, ok := err.(*Error); ok && e.File == "" {
		e.File = file
	}
	return err
}

// validate checks by hand what every command reads of the manifest — the
// files it names, its backend and identity version — and what a schema
// cannot say: role executions and invocations named once, each invocation
// of a role execution of the manifest. The rest of its shape is
// CheckSchema's, which the dispatchers call (compiling the schema is
// 3,000 allocations, on every checkpoint of a lead otherwise: docs/
// DECISIONS.md 69).
func (m *RunManifest) validate() error {
	f := m.Display
	if m.TeamStatePath == "" {
		return errf(f, "teamStatePath", "is missing; the run manifest must name the team-state file")
	}
	if m.LeadEventsPath == "" {
		return errf(f, "leadEventsPath", "is missing; the run manifest must name the lead-events ledger")
	}
	switch m.TerminalBackend {
	case BackendCmuxPane, BackendCLIWrapper, BackendCockpitPane:
	case "":
		return errf(f, "terminalBackend", "is missing; expected %s, %s or %s", BackendCockpitPane, BackendCmuxPane, BackendCLIWrapper)
	default:
		return errf(f, "terminalBackend", "is %q; expected %s, %s or %s", m.TerminalBackend, BackendCockpitPane, BackendCmuxPane, BackendCLIWrapper)
	}
	if m.ExecutionIdentityVersion != 0 && m.ExecutionIdentityVersion != 1 && m.ExecutionIdentityVersion != 2 {
		return errf(f, "executionIdentityVersion", "is %d; expected 1 or 2", m.ExecutionIdentityVersion)
	}
	refs := map[string]bool{}
	for i, r := range m.RoleExecutions {
		at := fmt.Sprintf("roleExecutions[%d]", i)
		if r.RoleExecutionRef == "" {
			return errf(f, at+".roleExecutionRef", "is missing")
		}
		if refs[r.RoleExecutionRef] {
			return errf(f, at+".roleExecutionRef", "%q appears twice", r.RoleExecutionRef)
		}
		refs[r.RoleExecutionRef] = true
		if _, err := NormalizeRole(r.Role); err != nil {
			return wrapf(err, f, at+".role", "%v", err)
		}
	}
	inv := map[string]bool{}
	for i, v := range m.Invocations {
		at := fmt.Sprintf("invocations[%d]", i)
		if v.InvocationRef == "" {
			return errf(f, at+".invocationRef", "is missing")
		}
		if inv[v.InvocationRef] {
			return errf(f, at+".invocationRef", "%q appears twice", v.InvocationRef)
		}
		inv[v.InvocationRef] = true
		if !refs[v.RoleExecutionRef] {
			return errf(f, at+".roleExecutionRef", "%q names no role execution of this manifest", v.RoleExecutionRef)
		}
	}
	return nil
}

// CheckSchema validates the manifest against
// assets/schemas/run-manifest.schema.json, once: the role executions'
// and invocations' members, and for a v2 manifest each role execution's
// participant, execution label and binding. A dispatcher calls it before
// anything starts (LoadJobs does).
func (m *RunManifest) CheckSchema() error {
	m.schemaOnce.Do(func() { m.schemaErr = checkSchema(schemaManifest, m.Display, m.raw) })
	return m.schemaErr
}

// Identity is the v2 execution identity a dispatch claims: what the jobs file
// or invocation metadata says, checked against the manifest before anything
// starts.
type Identity struct {
	Provider         string
	Model            string // model execution value
	Role             string // canonical or alias; "" to skip
	DutyID           string // "" to skip
	RoleExecutionRef string
	ParticipantRef   string
	InvocationRef    string
	ExecutionLabel   string
	Runner           string // "" to skip
}

// CheckIdentity verifies id against the manifest's role executions and
// invocations and returns one line naming the first mismatch.
func (m *RunManifest) CheckIdentity(id Identity) error {
	re := m.RoleExecution(id.RoleExecutionRef)
	if re == nil {
		return fmt.Errorf("role execution %q is not in the run manifest %s", id.RoleExecutionRef, m.Display)
	}
	inv := m.Invocation(id.InvocationRef)
	if inv == nil {
		return fmt.Errorf("invocation %q is not in the run manifest %s", id.InvocationRef, m.Display)
	}
	if inv.RoleExecutionRef != re.RoleExecutionRef {
		return fmt.Errorf("invocation %q belongs to %q, not %q, in the run manifest", id.InvocationRef, inv.RoleExecutionRef, id.RoleExecutionRef)
	}
	if id.ParticipantRef != "" && re.ParticipantRef != id.ParticipantRef {
		return fmt.Errorf("participant %q does not match the run manifest's %q for %s", id.ParticipantRef, re.ParticipantRef, re.RoleExecutionRef)
	}
	if re.Provider != id.Provider {
		return fmt.Errorf("provider %q does not match the run manifest's %q for %s", id.Provider, re.Provider, re.RoleExecutionRef)
	}
	if re.Binding == nil || re.Binding.ResolvedExecutionValue != id.Model {
		want := ""
		if re.Binding != nil {
			want = re.Binding.ResolvedExecutionValue
		}
		return fmt.Errorf("model %q does not match the run manifest's %q for %s", id.Model, want, re.RoleExecutionRef)
	}
	if id.Runner != "" && re.Binding.Runner != id.Runner {
		return fmt.Errorf("runner %q does not match the run manifest's %q for %s", id.Runner, re.Binding.Runner, re.RoleExecutionRef)
	}
	if id.ExecutionLabel != "" && re.ExecutionLabel != id.ExecutionLabel {
		return fmt.Errorf("execution label %q does not match the run manifest's %q for %s", id.ExecutionLabel, re.ExecutionLabel, re.RoleExecutionRef)
	}
	want, _ := NormalizeRole(re.Role)
	if id.Role != "" {
		got, err := NormalizeRole(id.Role)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("role %q does not match the run manifest's %q for %s", id.Role, re.Role, re.RoleExecutionRef)
		}
	}
	if id.DutyID != "" {
		if inv.DutyID != "" && inv.DutyID != id.DutyID {
			return fmt.Errorf("duty %q does not match the run manifest's %q for %s", id.DutyID, inv.DutyID, inv.InvocationRef)
		}
		dutyRole, err := RoleForDuty(id.DutyID)
		if err != nil {
			return err
		}
		if dutyRole != want {
			return fmt.Errorf("duty %q is a %s duty, but %s is a %s", id.DutyID, dutyRole, re.RoleExecutionRef, want)
		}
	}
	return nil
}

// TeamName is the run's team name, okstra-<task key>-<task type>-<run seq>:
// the teamName a new team-state gets.
func (r *Run) TeamName() string {
	m := r.Manifest
	return fmt.Sprintf("okstra-%s-%s-%s", m.TaskKey, m.TaskType, m.RunSeq)
}

// TeamState reads the run's team-state (ReadTeamState): the one read every
// command and the engine share.
func (r *Run) TeamState() (*TeamState, error) {
	return ReadTeamState(r.TeamStatePath, r.Manifest.TeamStatePath)
}

// UpdateTeamState is the one read-modify-write of the run's team-state
// (UpdateTeamStateContext under its lock, a new file named TeamName); ctx
// bounds the wait for the lock.
func (r *Run) UpdateTeamState(ctx context.Context, fn func(*TeamState) error) error {
	return UpdateTeamStateContext(ctx, r.TeamStatePath, r.Manifest.TeamStatePath, r.TeamName(), fn)
}
