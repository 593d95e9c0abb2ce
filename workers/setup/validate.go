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
