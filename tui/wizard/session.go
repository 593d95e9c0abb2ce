package wizard

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/okstra/cockpit/state"
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
	// set marks steps whose answer was given (by the file, or by the user
	// completing the step); the others take their default.
	set map[StepID]bool
}

// NewSession makes a session with empty answers.
func NewSession(lang string, texts *Texts, cat *workers.Catalog, tasks []Task, warnings []string) *Session {
	return &Session{Lang: lang, Texts: texts, Catalog: cat, Tasks: tasks, Warnings: warnings, set: map[StepID]bool{}}
}

// StepError is an answer the wizard refuses. Step says which; Msg is one
// line in the wizard's language, except the two roster refusals, which are
// okstra's exact English text.
type StepError struct {
	Step StepID
	Msg  string
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

// task returns the known task with the answered key, or nil.
func (s *Session) task() *Task {
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

// ensureDefault gives step its default answer unless it has been answered.
func (s *Session) ensureDefault(id StepID) {
	if s.set[id] {
		return
	}
	a := &s.A
	switch id {
	case StepTaskGroup:
		if t := s.task(); t != nil {
			a.TaskGroup = t.Group
		}
	case StepTaskType:
		a.TaskType = DefaultTaskType(s.task())
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
		case slices.Contains(roster, "claude"):
			a.Executor = "claude"
		case len(roster) > 0:
			a.Executor = roster[0]
		}
	case StepExecutorModel:
		// The executor's default model is the one its worker id already
		// carries as a verifier, so the default never splits the id.
		if s.implementerModel() == "" {
			if peer := s.peerModel(); peer != "" {
				s.setImplementerModel(peer)
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

// validKey reports whether s is a task key: a letter or digit, then up to
// 127 letters, digits, '.', '_' or '-'. (A regexp with {0,127} compiles into
// 127 copies of its class at every program start.)
func validKey(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || (c != '.' && c != '_' && c != '-')) {
			return false
		}
	}
	return true
}

func (s *Session) validate(id StepID) error {
	a := &s.A
	switch id {
	case StepTaskKey:
		a.TaskKey = strings.TrimSpace(a.TaskKey)
		if a.TaskKey == "" {
			return s.fail(id, "task_key_empty")
		}
		if !validKey(a.TaskKey) {
			return s.fail(id, "task_key_syntax", "value", a.TaskKey)
		}
	case StepTaskGroup:
		a.TaskGroup = strings.TrimSpace(a.TaskGroup)
		if a.TaskGroup != "" && !validKey(a.TaskGroup) {
			return s.fail(id, "group_syntax", "value", a.TaskGroup)
		}
	case StepTaskType:
		a.TaskType = strings.TrimSpace(a.TaskType)
		if !IsTaskType(a.TaskType) {
			return s.fail(id, "task_type_unknown", "value", a.TaskType, "list", strings.Join(TaskTypes, ", "))
		}
	case StepRelatedTasks:
		if a.RelatedTasks == nil || a.RelatedTasks.Mode == "" {
			a.RelatedTasks = &RelatedTasks{Mode: RelatedNone}
		}
		switch a.RelatedTasks.Mode {
		case RelatedNone:
			a.RelatedTasks.Tasks = nil
		case RelatedGroup:
			sib := s.Siblings()
			if len(sib) == 0 {
				g := a.TaskGroup
				if g == "" {
					g = "\"\""
				}
				return s.fail(id, "related_no_group", "group", g)
			}
			a.RelatedTasks.Tasks = sib
		case RelatedInput:
		default:
			return s.fail(id, "related_mode", "value", a.RelatedTasks.Mode)
		}
	case StepRelatedInput:
		var keys []string
		for _, t := range a.RelatedTasks.Tasks {
			for _, k := range SplitTaskKeys(t) {
				if !validKey(k) {
					return s.fail(id, "task_key_syntax", "value", k)
				}
				if k == a.TaskKey {
					return s.fail(id, "related_self", "value", k)
				}
				if !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
		if len(keys) == 0 {
			return s.fail(id, "related_empty")
		}
		a.RelatedTasks.Tasks = keys
	case StepDirective:
		a.Directive = strings.TrimSpace(a.Directive)
	case StepWorkers:
		known := s.providerIDs()
		var ws []string
		for _, w := range a.Workers {
			w = strings.ToLower(strings.TrimSpace(w))
			if !slices.Contains(known, w) {
				return s.fail(id, "provider_unknown", "value", w, "list", strings.Join(known, ", "))
			}
			if !slices.Contains(ws, w) {
				ws = append(ws, w)
			}
		}
		// The catalog's order, so the form and a file give the same --workers.
		sort.SliceStable(ws, func(i, j int) bool { return slices.Index(known, ws[i]) < slices.Index(known, ws[j]) })
		if ws == nil {
			ws = []string{}
		}
		a.Workers = ws
	case StepRoleModels:
		return s.validateRoleModels(id)
	case StepRoleCount:
		return s.validateRoleCounts(id)
	case StepLeadProvider:
		a.LeadProvider = strings.ToLower(strings.TrimSpace(a.LeadProvider))
		if a.LeadProvider == "" {
			if a.LeadModel != "" && s.set[StepLeadModel] {
				return &StepError{Step: StepLeadModel, Msg: s.Texts.T("errors.lead_model_without_provider", "value", a.LeadModel)}
			}
			a.LeadModel = ""
			return nil
		}
		if !s.providerSupports(a.LeadProvider, "leader") {
			return s.fail(id, "provider_unknown", "value", a.LeadProvider, "list", strings.Join(ids(s.ProvidersFor("leader")), ", "))
		}
	case StepLeadModel:
		m, err := s.selectableModel(id, a.LeadProvider, strings.TrimSpace(a.LeadModel))
		if err != nil {
			return err
		}
		a.LeadModel = m
	case StepExecutor:
		return s.validateExecutor(id)
	case StepExecutorModel:
		return s.validateExecutorModel(id)
	case StepReportLanguage:
		a.ReportLanguage = strings.ToLower(strings.TrimSpace(a.ReportLanguage))
		if a.ReportLanguage != "" && !slices.Contains(Languages, a.ReportLanguage) {
			return s.fail(id, "report_language", "value", a.ReportLanguage)
		}
	case StepSaveDefaults:
		if a.SaveDefaults == "" {
			a.SaveDefaults = "none"
		}
		if !slices.Contains([]string{"none", "project", "global"}, a.SaveDefaults) {
			return s.fail(id, "save_defaults", "value", a.SaveDefaults)
		}
	}
	return nil
}

// SplitTaskKeys splits typed related tasks on commas and white space.
func SplitTaskKeys(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
}

func ids(ps []*workers.Provider) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func (s *Session) providerSupports(id, role string) bool {
	p, err := s.Catalog.Provider(id)
	return err == nil && p.SupportsRole(role)
}

// selectableModel checks that model (an id or an execution value) is a
// selectable model of provider and returns its id.
func (s *Session) selectableModel(step StepID, provider, model string) (string, error) {
	p, err := s.Catalog.Provider(provider)
	if err != nil {
		return "", s.fail(step, "provider_unknown", "value", provider, "list", strings.Join(s.providerIDs(), ", "))
	}
	var list []string
	for _, m := range p.SelectableModels() {
		list = append(list, m.ID)
		if m.ID == model || m.ExecutionValue == model {
			return m.ID, nil
		}
	}
	return "", s.fail(step, "model_not_selectable", "value", model, "provider", provider, "list", strings.Join(list, ", "))
}

// splitRoleModel splits role=provider/model.
func splitRoleModel(v string) (role, provider, model string, ok bool) {
	role, rest, ok1 := strings.Cut(v, "=")
	provider, model, ok2 := strings.Cut(rest, "/")
	if !ok1 || !ok2 || role == "" || provider == "" || model == "" {
		return "", "", "", false
	}
	return role, provider, model, true
}

func (s *Session) validateRoleModels(id StepID) error {
	var out []string
	seen := map[string]bool{}
	for _, v := range s.A.RoleModels {
		r, p, m, ok := splitRoleModel(strings.TrimSpace(v))
		if !ok {
			return s.fail(id, "role_model_syntax", "value", v)
		}
		role, err := state.NormalizeRole(r)
		if err != nil {
			return s.fail(id, "role_unknown", "value", r, "list", strings.Join(state.CanonicalRoles, ", "))
		}
		p = strings.ToLower(p)
		if !s.providerSupports(p, role) {
			return s.fail(id, "provider_unknown", "value", p, "list", strings.Join(ids(s.ProvidersFor(role)), ", "))
		}
		mid, err := s.selectableModel(id, p, m)
		if err != nil {
			return err
		}
		if seen[role+"/"+p] {
			return s.fail(id, "role_model_twice", "role", role, "provider", p)
		}
		seen[role+"/"+p] = true
		out = append(out, role+"="+p+"/"+mid)
	}
	if out == nil {
		out = []string{}
	}
	s.A.RoleModels = out
	return nil
}

func (s *Session) validateRoleCounts(id StepID) error {
	var out []string
	seen := map[string]bool{}
	for _, v := range s.A.RoleCounts {
		r, n, ok := strings.Cut(strings.TrimSpace(v), "=")
		if !ok || r == "" {
			return s.fail(id, "role_count_syntax", "value", v)
		}
		role, err := state.NormalizeRole(r)
		if err != nil {
			return s.fail(id, "role_unknown", "value", r, "list", strings.Join(state.CanonicalRoles, ", "))
		}
		k, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil || k < 1 || k > 16 {
			return s.fail(id, "count_syntax", "value", n)
		}
		if seen[role] {
			return s.fail(id, "role_count_twice", "role", role)
		}
		seen[role] = true
		out = append(out, fmt.Sprintf("%s=%d", role, k))
	}
	if out == nil {
		out = []string{}
	}
	s.A.RoleCounts = out
	return nil
}

// RosterError is okstra's _reject_executor_outside_roster refusal, word for
// word: roster is listed sorted, or "empty".
func RosterError(executor string, roster []string) string {
	r := append([]string(nil), roster...)
	sort.Strings(r)
	list := strings.Join(r, ", ")
	if list == "" {
		list = "empty"
	}
	return fmt.Sprintf("--executor %s is not in this run's roster (%s); the executor is dispatched as a worker, so give it a roster slot — --role-model verifier=%s/<model> — or pick an executor already in the roster.", executor, list, executor)
}

// SplitModelError is okstra's _reject_split_worker_models refusal, word for
// word, with Python's repr of each value.
func SplitModelError(worker, executorValue, verifierValue string) string {
	return fmt.Sprintf("worker %s is the executor on %s and a verifier on %s; one worker id carries one model. Give both roles the same model, or pick a different --executor provider.", pyRepr(worker), pyRepr(executorValue), pyRepr(verifierValue))
}

// pyRepr renders s as Python's repr() renders a str: single quotes unless
// the text holds a single quote and no double quote.
func pyRepr(s string) string {
	q := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteByte(q)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

func (s *Session) validateExecutor(id StepID) error {
	a := &s.A
	a.Executor = strings.ToLower(strings.TrimSpace(a.Executor))
	if a.TaskType != implementation {
		if a.Executor != "" {
			return s.fail(id, "executor_only_implementation", "type", a.TaskType)
		}
		return nil
	}
	if !s.providerSupports(a.Executor, "implementer") {
		return s.fail(id, "provider_unknown", "value", a.Executor, "list", strings.Join(ids(s.ProvidersFor("implementer")), ", "))
	}
	if roster := s.Roster(); !slices.Contains(roster, a.Executor) {
		return &StepError{Step: id, Msg: RosterError(a.Executor, roster)}
	}
	return nil
}

// implementerModel is the model id an implementer --role-model gives the
// executor, or "".
func (s *Session) implementerModel() string {
	for _, rm := range s.A.RoleModels {
		if r, p, m, ok := splitRoleModel(rm); ok && r == "implementer" && p == s.A.Executor {
			return m
		}
	}
	return ""
}

// setImplementerModel replaces the implementer --role-model: none when model
// is the executor's catalog default for implementer.
func (s *Session) setImplementerModel(model string) {
	var out []string
	for _, rm := range s.A.RoleModels {
		if r, _, _, ok := splitRoleModel(rm); ok && r == "implementer" {
			continue
		}
		out = append(out, rm)
	}
	if p, err := s.Catalog.Provider(s.A.Executor); err == nil && model != "" && model != p.DefaultModel("implementer") {
		out = append(out, "implementer="+s.A.Executor+"/"+model)
	}
	if out == nil {
		out = []string{}
	}
	s.A.RoleModels = out
}

// ExecutorModel is the model id the executor implements with: its
// implementer --role-model, else its provider's default for implementer.
func (s *Session) ExecutorModel() string {
	if m := s.implementerModel(); m != "" {
		return m
	}
	if p, err := s.Catalog.Provider(s.A.Executor); err == nil {
		return p.DefaultModel("implementer")
	}
	return ""
}

// peerModel is the model id the executor's worker id carries as a verifier:
// its verifier --role-model, else its provider's default for verifier; ""
// when the executor is not in the roster.
func (s *Session) peerModel() string {
	a := &s.A
	if !slices.Contains(s.Roster(), a.Executor) {
		return ""
	}
	for _, rm := range a.RoleModels {
		if r, p, m, ok := splitRoleModel(rm); ok && r == "verifier" && p == a.Executor {
			return m
		}
	}
	if p, err := s.Catalog.Provider(a.Executor); err == nil {
		return p.DefaultModel("verifier")
	}
	return ""
}

func (s *Session) executionValue(provider, model string) string {
	if p, err := s.Catalog.Provider(provider); err == nil {
		if m, ok := p.Model(model); ok {
			return m.ExecutionValue
		}
	}
	return model
}

func (s *Session) validateExecutorModel(id StepID) error {
	a := &s.A
	for _, rm := range a.RoleModels {
		if r, p, _, ok := splitRoleModel(rm); ok && r == "implementer" && p != a.Executor {
			return s.fail(id, "implementer_not_executor", "provider", p, "executor", a.Executor)
		}
	}
	peer := s.peerModel()
	if peer == "" {
		return nil
	}
	execValue := s.executionValue(a.Executor, s.ExecutorModel())
	peerValue := s.executionValue(a.Executor, peer)
	if execValue != peerValue {
		return &StepError{Step: id, Msg: SplitModelError(a.Executor, execValue, peerValue)}
	}
	return nil
}

// roleModelFor returns the model a --role-model gives role on provider, or "".
func (s *Session) roleModelFor(role, provider string) string {
	for _, rm := range s.A.RoleModels {
		if r, p, m, ok := splitRoleModel(rm); ok && r == role && p == provider {
			return m
		}
	}
	return ""
}

// setRoleModels replaces every --role-model of role with picks (provider →
// model id; "" means the phase default and adds nothing), in roster order.
func (s *Session) setRoleModels(role string, roster []string, picks map[string]string) {
	var out []string
	for _, rm := range s.A.RoleModels {
		if r, _, _, ok := splitRoleModel(rm); ok && r == role {
			continue
		}
		out = append(out, rm)
	}
	for _, p := range roster {
		if m := picks[p]; m != "" {
			out = append(out, role+"="+p+"/"+m)
		}
	}
	if out == nil {
		out = []string{}
	}
	s.A.RoleModels = out
}

// roleCountFor returns the count a --role-count gives role, or "".
func (s *Session) roleCountFor(role string) string {
	for _, rc := range s.A.RoleCounts {
		if r, n, ok := strings.Cut(rc, "="); ok && r == role {
			return n
		}
	}
	return ""
}

// setRoleCount replaces the --role-count of role; "" removes it.
func (s *Session) setRoleCount(role, n string) {
	var out []string
	for _, rc := range s.A.RoleCounts {
		if r, _, ok := strings.Cut(rc, "="); ok && r == role {
			continue
		}
		out = append(out, rc)
	}
	if n = strings.TrimSpace(n); n != "" {
		out = append(out, role+"="+n)
	}
	if out == nil {
		out = []string{}
	}
	s.A.RoleCounts = out
}
