package setup

import (
	"slices"

	"github.com/okstra/cockpit/workers"
)

// Answers are the wizard's answers. The JSON names are the --answers file's
// (docs/WIZARD.md); the form fills the same struct.
type Answers struct {
	TaskKey      string        `json:"taskKey"`
	TaskGroup    string        `json:"taskGroup"`
	TaskType     string        `json:"taskType"`
	RelatedTasks *RelatedTasks `json:"relatedTasks"`
	Directive    string        `json:"directive"`
	// Workers are the roster providers; an empty list means the phase
	// default (--workers "").
	Workers []string `json:"workers"`
	// RoleModels are --role-model values, role=provider/model.
	RoleModels []string `json:"roleModels"`
	// RoleCounts are --role-count values, role=N.
	RoleCounts   []string `json:"roleCounts"`
	LeadProvider string   `json:"leadProvider"`
	LeadModel    string   `json:"leadModel"`
	// Executor is the implementing provider of an implementation run.
	Executor string `json:"executor"`
	// ReportLanguage is ko, en, or "" for the phase default.
	ReportLanguage string `json:"reportLanguage"`
	// SaveDefaults is none, project or global.
	SaveDefaults string `json:"saveDefaults"`
}

// RelatedTasks is the related-tasks answer: mode none, group (every other
// task of the task's group) or input (Tasks as given).
type RelatedTasks struct {
	Mode  string   `json:"mode"`
	Tasks []string `json:"tasks,omitempty"`
}

// Related-tasks modes.
const (
	RelatedNone  = "none"
	RelatedGroup = "group"
	RelatedInput = "input"
)

// StepID names a wizard step. Its text keys are steps.<snake_case id>.
type StepID string

// The steps, in the order the wizard asks them.
const (
	StepTaskKey        StepID = "task_key"
	StepTaskGroup      StepID = "task_group"
	StepTaskType       StepID = "task_type"
	StepRelatedTasks   StepID = "related_tasks"
	StepRelatedInput   StepID = "related_tasks_input"
	StepDirective      StepID = "directive"
	StepWorkers        StepID = "workers"
	StepRoleModels     StepID = "role_models"
	StepRoleCount      StepID = "role_count"
	StepLeadProvider   StepID = "lead_provider"
	StepLeadModel      StepID = "lead_model"
	StepExecutor       StepID = "executor"
	StepExecutorModel  StepID = "executor_model"
	StepReportLanguage StepID = "report_language"
	StepSaveDefaults   StepID = "save_defaults"
	StepConfirm        StepID = "confirm"
)

var allSteps = []StepID{
	StepTaskKey, StepTaskGroup, StepTaskType, StepRelatedTasks, StepRelatedInput,
	StepDirective, StepWorkers, StepRoleModels, StepRoleCount, StepLeadProvider,
	StepLeadModel, StepExecutor, StepExecutorModel, StepReportLanguage,
	StepSaveDefaults, StepConfirm,
}

// answerField is the --answers member each step reads, for errors.
var answerField = map[StepID]string{
	StepTaskKey: "taskKey", StepTaskGroup: "taskGroup", StepTaskType: "taskType",
	StepRelatedTasks: "relatedTasks.mode", StepRelatedInput: "relatedTasks.tasks",
	StepDirective: "directive", StepWorkers: "workers", StepRoleModels: "roleModels",
	StepRoleCount: "roleCounts", StepLeadProvider: "leadProvider", StepLeadModel: "leadModel",
	StepExecutor: "executor", StepExecutorModel: "roleModels",
	StepReportLanguage: "reportLanguage", StepSaveDefaults: "saveDefaults",
}

// DefaultRoster is the roster preselected when the user names none: the
// providers of okstra's prep-time roster (Claude, Codex and Antigravity
// workers) that the catalog has.
var DefaultRoster = []string{"claude", "codex", "antigravity"}

// implementation is the task type that has an executor.
const implementation = "implementation"

// workerRoles are the roles a roster slot stands for: a --role-model of one
// of them puts its provider in the roster.
var workerRoles = []string{"analyser", "critic", "designer", "planner", "verifier"}

// PhaseRole is the role the roster workers of a task type play: verifier in
// implementation and final-verification, planner in implementation-planning,
// analyser otherwise.
func PhaseRole(taskType string) string {
	switch taskType {
	case implementation, "final-verification":
		return "verifier"
	case "implementation-planning":
		return "planner"
	}
	return "analyser"
}

// Session is one run of the wizard: what it knows about the project and the
// answers so far. The headless path and the form drive the same session, so
// the same answers give the same outcome and the same errors.
type Session struct {
	Lang     string
	Texts    *Texts
	Catalog  *workers.Catalog
	Tasks    []Task
	Warnings []string
	A        Answers
	// DefaultExecutor is the executor okstra takes when none is given:
	// $OKSTRA_DEFAULT_EXECUTOR, else claude (seed 002's
	// _default("OKSTRA_DEFAULT_EXECUTOR", "claude")); Load sets it.
	DefaultExecutor string
	// set marks steps whose answer was given (by the file, or by the user
	// completing the step); the others take their default.
	set map[StepID]bool
}

// NewSession makes a session with empty answers.
func NewSession(lang string, texts *Texts, cat *workers.Catalog, tasks []Task, warnings []string) *Session {
	return &Session{Lang: lang, Texts: texts, Catalog: cat, Tasks: tasks, Warnings: warnings, DefaultExecutor: "claude", set: map[StepID]bool{}}
}

// StepError is an answer the wizard refuses. Step says which; Msg is one
// line in the wizard's language, except the two roster refusals, which are
// okstra's exact English text.
type StepError struct {
	Step StepID
	Msg  string
	// Form is the refusal as the form says it, when it differs from Msg
	// (okstra's words, which name command-line flags): no flag names.
	Form string
}

// FormMsg is the refusal the form shows: Form, else Msg.
func (e *StepError) FormMsg() string {
	if e.Form != "" {
		return e.Form
	}
	return e.Msg
}

// Error returns the refusal.
func (e *StepError) Error() string { return e.Msg }

func (s *Session) fail(step StepID, key string, args ...string) error {
	return &StepError{Step: step, Msg: s.Texts.T("errors."+key, args...)}
}

// Steps lists the steps that apply to the answers so far, in order.
func (s *Session) Steps() []StepID {
	var out []StepID
	for _, id := range allSteps {
		if s.Applies(id) {
			out = append(out, id)
		}
	}
	return out
}

// Applies reports whether step is asked given the answers so far.
func (s *Session) Applies(id StepID) bool {
	switch id {
	case StepRelatedInput:
		return s.A.RelatedTasks != nil && s.A.RelatedTasks.Mode == RelatedInput
	case StepLeadModel:
		return s.A.LeadProvider != ""
	case StepExecutor, StepExecutorModel:
		return s.A.TaskType == implementation
	}
	return true
}

// CurrentTask returns the known task with the answered key, or nil.
func (s *Session) CurrentTask() *Task {
	for i := range s.Tasks {
		if s.Tasks[i].Key == s.A.TaskKey {
			return &s.Tasks[i]
		}
	}
	return nil
}

// Siblings lists the other tasks of the answered group.
func (s *Session) Siblings() []string { return Siblings(s.Tasks, s.A.TaskGroup, s.A.TaskKey) }

// Roster is the run's roster: the answered workers (the default roster when
// none is answered) and every provider a worker-role --role-model names, in
// that order.
func (s *Session) Roster() []string {
	out := append([]string(nil), s.A.Workers...)
	if len(out) == 0 {
		out = s.defaultRoster()
	}
	for _, rm := range s.A.RoleModels {
		if r, p, _, ok := splitRoleModel(rm); ok && slices.Contains(workerRoles, r) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func (s *Session) defaultRoster() []string {
	var out []string
	for _, id := range DefaultRoster {
		if _, err := s.Catalog.Provider(id); err == nil {
			out = append(out, id)
		}
	}
	return out
}

func (s *Session) providerIDs() []string {
	var out []string
	for _, p := range s.Catalog.Providers() {
		out = append(out, p.ID)
	}
	return out
}

// ProvidersFor lists the providers that may run role.
func (s *Session) ProvidersFor(role string) []*workers.Provider {
	var out []*workers.Provider
	for _, p := range s.Catalog.Providers() {
		if p.SupportsRole(role) {
			out = append(out, p)
		}
	}
	return out
}

// EnsureDefault gives step its default answer unless it has been answered.
func (s *Session) EnsureDefault(id StepID) {
	if s.set[id] {
		return
	}
	a := &s.A
	switch id {
	case StepTaskGroup:
		if t := s.CurrentTask(); t != nil {
			a.TaskGroup = t.Group
		}
	case StepTaskType:
		a.TaskType = DefaultTaskType(s.CurrentTask())
		if a.TaskType == "" {
			a.TaskType = TaskTypes[0]
		}
	case StepRelatedTasks:
		a.RelatedTasks = &RelatedTasks{Mode: RelatedNone}
	case StepWorkers:
		a.Workers = s.defaultRoster()
	case StepLeadModel:
		if p, err := s.Catalog.Provider(a.LeadProvider); err == nil {
			a.LeadModel = p.DefaultModel("leader")
		}
	case StepExecutor:
		roster := s.Roster()
		switch {
		case slices.Contains(roster, s.DefaultExecutor) && s.providerSupports(s.DefaultExecutor, "implementer"):
			a.Executor = s.DefaultExecutor
		case slices.Contains(roster, "claude"):
			a.Executor = "claude"
		case len(roster) > 0:
			a.Executor = roster[0]
		}
	case StepExecutorModel:
		// The executor's default model is the one its worker id already
		// carries as a verifier, so the default never splits the id.
		if s.implementerModel() == "" {
			if peer := s.PeerModel(); peer != "" {
				s.SetImplementerModel(peer)
			}
		}
	case StepReportLanguage:
		a.ReportLanguage = s.Lang
	case StepSaveDefaults:
		a.SaveDefaults = "none"
	}
}

// Apply validates step against the answers so far and marks it answered.
// It normalises what it accepts (canonical roles, model ids, trimmed text).
func (s *Session) Apply(id StepID) error {
	if err := s.validate(id); err != nil {
		return err
	}
	s.set[id] = true
	return nil
}

// MarkAnswered records that the user answered step, even if Apply then
// refuses the answer: showing the step again keeps it instead of putting the
// default back.
func (s *Session) MarkAnswered(id StepID) { s.set[id] = true }

// Forget drops the answer to step, so it takes its default again (the lead
// model after the lead provider changed, the executor model after the
// executor changed).
func (s *Session) Forget(id StepID) { delete(s.set, id) }

// SetWorkers answers the roster with ws (kept in the catalog's order by the
// caller). A provider taken out of the roster takes its worker-role models
// with it, or they would put it back.
func (s *Session) SetWorkers(ws []string) {
	if ws == nil {
		ws = []string{}
	}
	s.A.Workers = ws
	kept := []string{}
	for _, rm := range s.A.RoleModels {
		if r, p, _, ok := splitRoleModel(rm); ok && slices.Contains(workerRoles, r) && len(ws) > 0 && !slices.Contains(ws, p) {
			continue
		}
		kept = append(kept, rm)
	}
	s.A.RoleModels = kept
}
