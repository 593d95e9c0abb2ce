package setup

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

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

// SetImplementerModel replaces the implementer --role-model: none when model
// is the executor's catalog default for implementer.
func (s *Session) SetImplementerModel(model string) {
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

// PeerModel is the model id the executor's worker id carries as a verifier:
// its verifier --role-model, else its provider's default for verifier; ""
// when the executor is not in the roster.
func (s *Session) PeerModel() string {
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
	peer := s.PeerModel()
	if peer == "" {
		return nil
	}
	execValue := s.executionValue(a.Executor, s.ExecutorModel())
	peerValue := s.executionValue(a.Executor, peer)
	if execValue != peerValue {
		return &StepError{Step: id, Msg: SplitModelError(a.Executor, execValue, peerValue),
			Form: s.Texts.T("errors.split_worker_models_form", "worker", pyRepr(a.Executor), "executor", pyRepr(execValue), "verifier", pyRepr(peerValue))}
	}
	return nil
}

// RoleModelFor returns the model a --role-model gives role on provider, or "".
func (s *Session) RoleModelFor(role, provider string) string {
	for _, rm := range s.A.RoleModels {
		if r, p, m, ok := splitRoleModel(rm); ok && r == role && p == provider {
			return m
		}
	}
	return ""
}

// SetRoleModels replaces every --role-model of role with picks (provider →
// model id; "" means the phase default and adds nothing), in roster order.
func (s *Session) SetRoleModels(role string, roster []string, picks map[string]string) {
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

// RoleCountFor returns the count a --role-count gives role, or "".
func (s *Session) RoleCountFor(role string) string {
	for _, rc := range s.A.RoleCounts {
		if r, n, ok := strings.Cut(rc, "="); ok && r == role {
			return n
		}
	}
	return ""
}

// SetRoleCount replaces the --role-count of role; "" removes it.
func (s *Session) SetRoleCount(role, n string) {
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
