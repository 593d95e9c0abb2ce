package wizard

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/huh/v2"

	"github.com/okstra/cockpit/workers/setup"
)

// buildForm makes the form of step, prefilled from the session's answers,
// and the function that copies the form's values back into them.
func (m *Model) buildForm(step setup.StepID) (*huh.Form, func()) {
	s, t, a := m.s, m.s.Texts, &m.s.A
	key := "steps." + string(step)
	title := func(args ...string) string { return t.T(key+".title", args...) }
	desc := func(args ...string) string { return m.wrapDesc(t.T(key+".description", args...)) }
	form := func(fields ...huh.Field) *huh.Form { return huh.NewForm(huh.NewGroup(fields...)) }
	sel := func(v *string, opts []huh.Option[string], args ...string) *huh.Form {
		return form(huh.NewSelect[string]().Title(title(args...)).Description(desc(args...)).Options(opts...).Value(v))
	}
	input := func(v *string, args ...string) *huh.Input {
		return huh.NewInput().Title(title(args...)).Description(desc(args...)).Placeholder(t.T(key + ".placeholder")).Value(v)
	}
	role := setup.PhaseRole(a.TaskType)

	switch step {
	case setup.StepTaskKey:
		v := a.TaskKey
		var keys []string
		for _, task := range s.Tasks {
			keys = append(keys, task.Key)
		}
		return form(input(&v).Suggestions(keys)), func() { a.TaskKey = v }

	case setup.StepTaskGroup:
		v := a.TaskGroup
		groups := setup.Groups(s.Tasks)
		list := strings.Join(groups, ", ")
		if list == "" {
			list = t.T("none")
		}
		return form(input(&v, "groups", list).Suggestions(groups)), func() { a.TaskGroup = v }

	case setup.StepTaskType:
		v := a.TaskType
		var opts []huh.Option[string]
		for _, tt := range setup.TaskTypes {
			opts = append(opts, huh.NewOption(t.T(key+".options."+tt), tt))
		}
		d := desc()
		if task := s.CurrentTask(); task != nil && task.Next != nil {
			if setup.DefaultTaskType(task) != "" {
				d += " " + t.T(key+".pointer_ready", "phase", task.Next.Phase, "rationale", task.Next.Rationale)
			} else {
				d += " " + t.T(key+".pointer_other", "status", task.Next.Status)
			}
		}
		f := form(huh.NewSelect[string]().Title(title()).Description(m.wrapDesc(d)).Options(opts...).Value(&v))
		return f, func() { a.TaskType = v }

	case setup.StepRelatedTasks:
		v := setup.RelatedNone
		var keep []string
		if a.RelatedTasks != nil {
			v, keep = a.RelatedTasks.Mode, a.RelatedTasks.Tasks
		}
		opts := []huh.Option[string]{huh.NewOption(t.T(key+".options.__skip__"), setup.RelatedNone)}
		if sib := s.Siblings(); len(sib) > 0 {
			label := t.T(key+".labels.siblings", "snippet", snippet(sib, 3)) +
				t.T(key+".labels.siblings_count", "count", strconv.Itoa(len(sib)))
			opts = append(opts, huh.NewOption(label, setup.RelatedGroup))
		}
		opts = append(opts, huh.NewOption(t.T(key+".options.__free_input__"), setup.RelatedInput))
		return sel(&v, opts), func() {
			r := &setup.RelatedTasks{Mode: v}
			if v == setup.RelatedInput {
				r.Tasks = keep
			}
			a.RelatedTasks = r
		}

	case setup.StepRelatedInput:
		v := strings.Join(a.RelatedTasks.Tasks, ", ")
		return form(input(&v)), func() { a.RelatedTasks.Tasks = []string{v} }

	case setup.StepDirective:
		v := a.Directive
		return form(input(&v)), func() { a.Directive = v }

	case setup.StepWorkers:
		v := append([]string(nil), a.Workers...)
		var opts []huh.Option[string]
		for _, p := range s.Catalog.Providers() {
			if p.SupportsRole(role) {
				opts = append(opts, huh.NewOption(p.DisplayLabel+" ("+p.ID+")", p.ID))
			}
		}
		// The title and description go on the group: huh's multi-select
		// sizes its list as if they took room inside it, and hides as
		// many options as they have lines.
		ms := huh.NewMultiSelect[string]().Options(opts...).Value(&v).Filterable(false)
		f := huh.NewForm(huh.NewGroup(ms).Title(title("role", role)).Description(desc("role", role)))
		return f, func() {
			// Keep the catalog's order, whatever order they were picked in.
			var out []string
			for _, o := range opts {
				if slices.Contains(v, o.Value) {
					out = append(out, o.Value)
				}
			}
			s.SetWorkers(out)
		}

	case setup.StepRoleModels:
		roster := s.Roster()
		picks := make(map[string]*string, len(roster))
		var fields []huh.Field
		for i, pid := range roster {
			p, err := s.Catalog.Provider(pid)
			if err != nil {
				continue
			}
			v := s.RoleModelFor(role, pid)
			picks[pid] = &v
			opts := []huh.Option[string]{huh.NewOption(t.T("phase_default_with", "value", p.DefaultModel(role)), "")}
			for _, mdl := range p.SelectableModels() {
				opts = append(opts, huh.NewOption(modelLabel(mdl.Display, mdl.ID), mdl.ID))
			}
			f := huh.NewSelect[string]().Title(t.T(key+".field", "provider", pid, "role", role)).Options(opts...).Value(&v)
			if i == 0 {
				f.Description(desc("role", role))
			}
			fields = append(fields, f)
		}
		if len(fields) == 0 {
			fields = append(fields, huh.NewNote().Title(title("role", role)).Description(t.T("none")))
		}
		g := huh.NewGroup(fields...).Title(title("role", role))
		return huh.NewForm(g), func() {
			out := map[string]string{}
			for p, v := range picks {
				out[p] = *v
			}
			s.SetRoleModels(role, roster, out)
		}

	case setup.StepRoleCount:
		v := s.RoleCountFor(role)
		// No CharLimit: huh narrows the field to it and cuts the
		// placeholder; the session refuses anything but 1–16.
		return form(input(&v, "role", role)), func() { s.SetRoleCount(role, v) }

	case setup.StepLeadProvider:
		v := a.LeadProvider
		opts := []huh.Option[string]{huh.NewOption(t.T("phase_default"), "")}
		for _, p := range s.ProvidersFor("leader") {
			opts = append(opts, huh.NewOption(p.DisplayLabel+" ("+p.ID+")", p.ID))
		}
		return sel(&v, opts), func() {
			if v != a.LeadProvider {
				a.LeadModel = ""
				s.Forget(setup.StepLeadModel)
			}
			a.LeadProvider = v
		}

	case setup.StepLeadModel:
		v := a.LeadModel
		var opts []huh.Option[string]
		if p, err := s.Catalog.Provider(a.LeadProvider); err == nil {
			for _, mdl := range p.SelectableModels() {
				opts = append(opts, huh.NewOption(modelLabel(mdl.Display, mdl.ID), mdl.ID))
			}
		}
		return sel(&v, opts, "provider", a.LeadProvider), func() { a.LeadModel = v }

	case setup.StepExecutor:
		// Only the roster's providers: the executor is dispatched as a
		// worker. Another provider is a roster change, so the last choice
		// goes back to the roster step (complete).
		v := a.Executor
		var opts []huh.Option[string]
		for _, p := range s.ProvidersFor("implementer") {
			if slices.Contains(s.Roster(), p.ID) {
				opts = append(opts, huh.NewOption(p.DisplayLabel+" ("+p.ID+")", p.ID))
			}
		}
		opts = append(opts, huh.NewOption(t.T(key+".options.change_roster"), changeRoster))
		roster := strings.Join(s.Roster(), ", ")
		return sel(&v, opts, "roster", roster), func() {
			if v == changeRoster {
				m.toRoster = true
				return
			}
			if v != a.Executor {
				s.Forget(setup.StepExecutorModel)
				s.SetImplementerModel("")
			}
			a.Executor = v
		}

	case setup.StepExecutorModel:
		v := s.ExecutorModel()
		var opts []huh.Option[string]
		if p, err := s.Catalog.Provider(a.Executor); err == nil {
			for _, mdl := range p.SelectableModels() {
				opts = append(opts, huh.NewOption(modelLabel(mdl.Display, mdl.ID), mdl.ID))
			}
		}
		return sel(&v, opts, "provider", a.Executor, "peer", s.PeerModel()), func() { s.SetImplementerModel(v) }

	case setup.StepReportLanguage:
		v := a.ReportLanguage
		opts := []huh.Option[string]{
			huh.NewOption(t.T("phase_default"), ""),
			huh.NewOption(t.T(key+".options.ko"), "ko"),
			huh.NewOption(t.T(key+".options.en"), "en"),
		}
		return sel(&v, opts), func() { a.ReportLanguage = v }

	case setup.StepSaveDefaults:
		v := a.SaveDefaults
		var opts []huh.Option[string]
		for _, o := range []string{"none", "project", "global"} {
			opts = append(opts, huh.NewOption(t.T(key+".options."+o), o))
		}
		return sel(&v, opts), func() { a.SaveDefaults = v }
	}
	return form(huh.NewNote().Title(string(step))), func() {}
}

// snippet shows the first n keys, with an ellipsis when there are more.
func snippet(keys []string, n int) string {
	if len(keys) <= n {
		return strings.Join(keys, ", ")
	}
	return strings.Join(keys[:n], ", ") + ", …"
}

func modelLabel(display, id string) string {
	if display == "" || display == id {
		return id
	}
	return display + " (" + id + ")"
}

// changeRoster is the executor step's last choice: back to the roster step.
const changeRoster = "__roster__"

// wrapDesc wraps a step's description at its spaces to the form's width,
// so huh, which also breaks lines at '-', '.' and ',', never has to: a
// model name (gpt-6.1-sol) is never split.
func (m *Model) wrapDesc(s string) string {
	w, _ := m.formSize()
	w -= 2 // the field's border and padding (huh wraps at the same width)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			switch {
			case line == "":
				line = word
			case displayWidth(line)+1+displayWidth(word) > w:
				out = append(out, line)
				line = word
			default:
				line += " " + word
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
