package setup

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/workers"
)

// stepChecks hold an answer to what the wizard accepts, by step. Each
// normalises the answer (trimmed text, canonical roles, model ids), holds
// it to its member's schema (checkMember: the shape) and then checks what
// a schema cannot say: the catalog, the roles, the project's tasks.
var stepChecks = map[StepID]func(*Session, StepID) error{
	StepTaskKey:        (*Session).checkTaskKey,
	StepTaskGroup:      (*Session).checkTaskGroup,
	StepTaskType:       (*Session).checkTaskType,
	StepRelatedTasks:   (*Session).checkRelatedMode,
	StepRelatedInput:   (*Session).checkRelatedInput,
	StepDirective:      (*Session).checkDirective,
	StepWorkers:        (*Session).checkWorkers,
	StepRoleModels:     (*Session).validateRoleModels,
	StepRoleCount:      (*Session).validateRoleCounts,
	StepLeadProvider:   (*Session).checkLeadProvider,
	StepLeadModel:      (*Session).checkLeadModel,
	StepExecutor:       (*Session).validateExecutor,
	StepExecutorModel:  (*Session).validateExecutorModel,
	StepReportLanguage: (*Session).checkReportLanguage,
	StepSaveDefaults:   (*Session).checkSaveDefaults,
}

func (s *Session) validate(id StepID) error {
	if check := stepChecks[id]; check != nil {
		return check(s, id)
	}
	return nil
}

// IsTaskKey reports whether k is a task key, as the answers schema says
// ($defs/taskKey).
func IsTaskKey(k string) bool {
	sch, err := schemaAt("/$defs/taskKey")
	return err == nil && sch.Validate(k) == nil
}

func (s *Session) checkTaskKey(id StepID) error {
	s.A.TaskKey = strings.TrimSpace(s.A.TaskKey)
	return s.checkMember(id, "/properties/taskKey", s.A.TaskKey)
}

func (s *Session) checkTaskGroup(id StepID) error {
	s.A.TaskGroup = strings.TrimSpace(s.A.TaskGroup)
	return s.checkMember(id, "/properties/taskGroup", s.A.TaskGroup)
}

func (s *Session) checkTaskType(id StepID) error {
	s.A.TaskType = strings.TrimSpace(s.A.TaskType)
	return s.checkMember(id, "/properties/taskType", s.A.TaskType)
}

func (s *Session) checkRelatedMode(id StepID) error {
	a := &s.A
	if a.RelatedTasks == nil || a.RelatedTasks.Mode == "" {
		a.RelatedTasks = &RelatedTasks{Mode: RelatedNone}
	}
	if err := s.checkMember(id, "/properties/relatedTasks/properties/mode", a.RelatedTasks.Mode); err != nil {
		return err
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
	}
	return nil
}

// checkRelatedInput: each typed string may hold several keys; each is a
// task key (the schema's), not this task, and a task of the project.
func (s *Session) checkRelatedInput(id StepID) error {
	var keys []string
	for _, t := range s.A.RelatedTasks.Tasks {
		for _, k := range SplitTaskKeys(t) {
			if err := s.checkMember(id, "/$defs/taskKey", k); err != nil {
				return err
			}
			if k == s.A.TaskKey {
				return s.fail(id, "related_self", "value", k)
			}
			if !HasTask(s.Tasks, k) {
				return s.fail(id, "related_unknown", "value", k)
			}
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	if len(keys) == 0 {
		return s.fail(id, "related_empty")
	}
	s.A.RelatedTasks.Tasks = keys
	return nil
}

func (s *Session) checkDirective(StepID) error {
	s.A.Directive = strings.TrimSpace(s.A.Directive)
	return nil
}

// checkWorkers: providers of the catalog, each once, in the catalog's
// order, so the form and a file give the same --workers.
func (s *Session) checkWorkers(id StepID) error {
	known := s.providerIDs()
	ws := []string{}
	for _, w := range s.A.Workers {
		w = strings.ToLower(strings.TrimSpace(w))
		if !slices.Contains(known, w) {
			return s.fail(id, "provider_unknown", "value", w, "list", strings.Join(known, ", "))
		}
		if !slices.Contains(ws, w) {
			ws = append(ws, w)
		}
	}
	sort.SliceStable(ws, func(i, j int) bool { return slices.Index(known, ws[i]) < slices.Index(known, ws[j]) })
	s.A.Workers = ws
	return nil
}

func (s *Session) checkLeadProvider(id StepID) error {
	a := &s.A
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
	return nil
}

func (s *Session) checkLeadModel(id StepID) error {
	m, err := s.selectableModel(id, s.A.LeadProvider, strings.TrimSpace(s.A.LeadModel))
	if err != nil {
		return err
	}
	s.A.LeadModel = m
	return nil
}

func (s *Session) checkReportLanguage(id StepID) error {
	s.A.ReportLanguage = strings.ToLower(strings.TrimSpace(s.A.ReportLanguage))
	return s.checkMember(id, "/properties/reportLanguage", s.A.ReportLanguage)
}

func (s *Session) checkSaveDefaults(id StepID) error {
	if s.A.SaveDefaults == "" {
		s.A.SaveDefaults = "none"
	}
	return s.checkMember(id, "/properties/saveDefaults", s.A.SaveDefaults)
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
		v = strings.TrimSpace(v)
		if err := s.checkMember(id, "/properties/roleModels/items", v); err != nil {
			return err
		}
		r, p, m, _ := splitRoleModel(v)
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
		v = strings.TrimSpace(v)
		if err := s.checkMember(id, "/properties/roleCounts/items", v); err != nil {
			return err
		}
		r, n, _ := strings.Cut(v, "=")
		role, err := state.NormalizeRole(r)
		if err != nil {
			return s.fail(id, "role_unknown", "value", r, "list", strings.Join(state.CanonicalRoles, ", "))
		}
		k, _ := strconv.Atoi(strings.TrimSpace(n)) // 1 to 16: the schema's
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
