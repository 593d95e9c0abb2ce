package setup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Outcome is what the wizard decided: the answers, normalised, and the
// okstra render-bundle arguments that carry them.
type Outcome struct {
	Lang         string   `json:"lang"`
	TaskKey      string   `json:"taskKey"`
	TaskGroup    string   `json:"taskGroup"`
	TaskType     string   `json:"taskType"`
	RelatedMode  string   `json:"relatedTasksMode"`
	RelatedTasks []string `json:"relatedTasks"`
	// RelatedEcho is the one-line echo of the related-tasks answer, as
	// okstra's echo_suffixes word it.
	RelatedEcho    string   `json:"relatedTasksEcho"`
	Directive      string   `json:"directive"`
	Workers        []string `json:"workers"`
	RoleModels     []string `json:"roleModels"`
	RoleCounts     []string `json:"roleCounts"`
	LeadProvider   string   `json:"leadProvider"`
	LeadModel      string   `json:"leadModel"`
	Executor       string   `json:"executor,omitempty"`
	ReportLanguage string   `json:"reportLanguage"`
	// RenderArgv are the arguments of `okstra render-bundle`, in order and
	// without the command itself. An empty string is a value on purpose: it
	// means "use the phase default"; pass every token verbatim.
	RenderArgv []string `json:"renderArgv"`

	// Actions are the config commands the lead runs after rendering.
	Actions []Action `json:"-"`
	// Warnings are notes about the project the wizard read (a task
	// manifest it could not read).
	Warnings []string `json:"-"`
}

// Action is one command the lead runs for the user: `okstra <command> <key>
// "<value>" --scope <scope>` (today only "config set"). A lead that meets an
// unknown command, key or scope stops and reports the output instead.
type Action struct {
	Command string `json:"command"`
	Key     string `json:"key"`
	Value   string `json:"value"`
	Scope   string `json:"scope"`
}

// Outcome builds the outcome from the answers. Call it once every step
// applies cleanly.
func (s *Session) Outcome() *Outcome {
	a := s.A
	o := &Outcome{
		Lang: s.Lang, TaskKey: a.TaskKey, TaskGroup: a.TaskGroup, TaskType: a.TaskType,
		Directive: a.Directive, Workers: nonNil(a.Workers), RoleCounts: nonNil(a.RoleCounts),
		LeadProvider: a.LeadProvider, LeadModel: a.LeadModel, ReportLanguage: a.ReportLanguage,
		RelatedMode: RelatedNone, RelatedTasks: []string{},
	}
	if a.RelatedTasks != nil {
		o.RelatedMode = a.RelatedTasks.Mode
		o.RelatedTasks = nonNil(a.RelatedTasks.Tasks)
	}
	tasks := strings.Join(o.RelatedTasks, ",")
	switch o.RelatedMode {
	case RelatedGroup:
		o.RelatedEcho = s.Texts.T("steps.related_tasks.echo_suffixes.siblings", "tasks", tasks)
	case RelatedInput:
		o.RelatedEcho = s.Texts.T("steps.related_tasks.echo_suffixes.free_input", "tasks", tasks)
	default:
		o.RelatedEcho = s.Texts.T("steps.related_tasks.echo_suffixes.skip")
	}
	// An implementer model belongs to an implementation run only.
	o.RoleModels = []string{}
	for _, rm := range a.RoleModels {
		if r, _, _, ok := splitRoleModel(rm); ok && r == "implementer" && a.TaskType != implementation {
			continue
		}
		o.RoleModels = append(o.RoleModels, rm)
	}
	if a.TaskType == implementation {
		o.Executor = a.Executor
	}
	argv := []string{
		"--task-key", o.TaskKey,
		"--task-type", o.TaskType,
		"--task-group", o.TaskGroup,
		"--related-tasks", tasks,
		"--directive", o.Directive,
		"--workers", strings.Join(o.Workers, ","),
	}
	for _, rm := range o.RoleModels {
		argv = append(argv, "--role-model", rm)
	}
	for _, rc := range o.RoleCounts {
		argv = append(argv, "--role-count", rc)
	}
	argv = append(argv, "--lead-provider", o.LeadProvider, "--lead-model", o.LeadModel)
	if a.TaskType == implementation {
		argv = append(argv, "--executor", o.Executor)
	}
	argv = append(argv, "--report-language", o.ReportLanguage)
	o.RenderArgv = argv

	o.Actions = []Action{}
	if scope := a.SaveDefaults; scope == "project" || scope == "global" {
		for _, kv := range [][2]string{{"report-language", o.ReportLanguage}, {"lead-provider", o.LeadProvider}, {"lead-model", o.LeadModel}} {
			if kv[1] != "" {
				o.Actions = append(o.Actions, Action{Command: "config set", Key: kv[0], Value: kv[1], Scope: scope})
			}
		}
	}
	o.Warnings = nonNil(s.Warnings)
	return o
}

// nonNil copies s; the copy of nothing is an empty list, so JSON shows [].
func nonNil(s []string) []string {
	out := make([]string, len(s))
	copy(out, s)
	return out
}

// Document is the --json output: {"outcome": {...}, "actions": [...],
// "warnings": [...]}.
type Document struct {
	Outcome  *Outcome `json:"outcome"`
	Actions  []Action `json:"actions"`
	Warnings []string `json:"warnings"`
}

// JSON renders the --json document, indented, with a final newline.
func (o *Outcome) JSON() string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(Document{Outcome: o, Actions: nonNilActions(o.Actions), Warnings: nonNil(o.Warnings)})
	return b.String()
}

func nonNilActions(a []Action) []Action {
	if a == nil {
		return []Action{}
	}
	return a
}

// Render renders the outcome for the user (a readable summary in lang) or,
// with asJSON, the --json document.
func Render(o *Outcome, lang string, asJSON bool) (string, error) {
	if asJSON {
		return o.JSON(), nil
	}
	t, err := LoadTexts(lang)
	if err != nil {
		return "", err
	}
	return Summary(t, o, SummaryStyle{}, 0), nil
}

// shellQuote quotes one argv token for a POSIX shell, so the summary's
// command line can be pasted as is.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=,:@+", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// wrapCommand indents a shell command (its tokens already quoted) and, when
// width > 0, breaks it between arguments — a flag stays with its value —
// with a trailing backslash, so a copied line still runs.
func wrapCommand(words []string, indent string, width int) string {
	if width <= 0 {
		return indent + strings.Join(words, " ")
	}
	var units []string
	for i := 0; i < len(words); i++ {
		if strings.HasPrefix(words[i], "--") && i+1 < len(words) && !strings.HasPrefix(words[i+1], "--") {
			// A flag and its value stay together, unless together they
			// do not fit a continuation line: then the value goes on
			// its own line, never cut.
			if pair := words[i] + " " + words[i+1]; displayWidth(indent)+4+displayWidth(pair)+2 <= width {
				units = append(units, pair)
				i++
				continue
			}
		}
		units = append(units, words[i])
	}
	var lines []string
	cur := indent
	for _, u := range units {
		switch {
		case cur == indent:
			cur += u
		case displayWidth(cur)+1+displayWidth(u)+2 > width:
			lines = append(lines, cur+" \\")
			cur = indent + "    " + u
		default:
			cur += " " + u
		}
	}
	// A value wider than a line (a long directive, in Korean as in
	// English) is shown whole, wrapped at its spaces under itself, never
	// cut: the command printed after the form, unwrapped, is the one to
	// copy.
	var out []string
	for _, l := range append(lines, cur) {
		if displayWidth(l) <= width {
			out = append(out, l)
			continue
		}
		cont := strings.HasSuffix(l, " \\")
		body := strings.TrimSuffix(l, " \\")
		pad := body[:len(body)-len(strings.TrimLeft(body, " "))]
		parts := wrapValue(strings.TrimLeft(body, " "), width-len(pad)-2)
		for i, p := range parts {
			if i > 0 {
				p = "  " + p
			}
			if cont && i == len(parts)-1 {
				p += " \\"
			}
			out = append(out, pad+p)
		}
	}
	return strings.Join(out, "\n")
}

// commandWords are the render-bundle call's tokens, shell-quoted.
func (o *Outcome) commandWords() []string {
	words := []string{"okstra", "render-bundle"}
	for _, a := range o.RenderArgv {
		words = append(words, shellQuote(a))
	}
	return words
}

// CommandLine is the render-bundle call of the outcome, shell-quoted.
func (o *Outcome) CommandLine() string { return strings.Join(o.commandWords(), " ") }

// SummaryStyle styles the summary: Label the row labels and headings,
// Muted the "phase default" and "none" values. A nil func leaves the text
// plain; the form passes its colours, Render none.
type SummaryStyle struct {
	Label, Muted func(string) string
}

// Summary renders the outcome as the rows the user reads, the render-bundle
// command line, the actions and the warnings. A width above zero wraps the
// command line between arguments.
func Summary(t *Texts, o *Outcome, st SummaryStyle, width int) string {
	plain := func(s string) string { return s }
	label, muted := st.Label, st.Muted
	if label == nil {
		label = plain
	}
	if muted == nil {
		muted = plain
	}
	orDefault := func(v string) string {
		if v == "" {
			return muted(t.T("phase_default"))
		}
		return v
	}
	list := func(v []string) string {
		if len(v) == 0 {
			return muted(t.T("phase_default"))
		}
		return strings.Join(v, ", ")
	}
	var rows [][2]string
	add := func(k, v string) { rows = append(rows, [2]string{t.T("summary." + k), v}) }
	add("task_key", o.TaskKey)
	add("task_group", orNone(t, o.TaskGroup, muted))
	add("task_type", o.TaskType)
	// The tasks alone: the row's label already says what they are
	// (RelatedEcho, okstra's "related-tasks: …" echo, stays in the JSON).
	add("related_tasks", orNone(t, strings.Join(o.RelatedTasks, ", "), muted))
	add("directive", orNone(t, o.Directive, muted))
	add("workers", list(o.Workers))
	add("role_models", list(o.RoleModels))
	add("role_counts", list(o.RoleCounts))
	lead := orDefault(o.LeadProvider)
	if o.LeadProvider != "" {
		lead = o.LeadProvider + "/" + orDefault(o.LeadModel)
	}
	add("lead", lead)
	if o.Executor != "" {
		add("executor", o.Executor)
	}
	add("report_language", orDefault(o.ReportLanguage))
	labelWidth := 0
	for _, r := range rows {
		labelWidth = max(labelWidth, displayWidth(r[0]))
	}
	var b strings.Builder
	for _, r := range rows {
		// A long value wraps at its spaces under itself, never inside
		// a word: a model name is never split.
		for i, l := range wrapValue(r[1], width-labelWidth-2) {
			if i == 0 {
				b.WriteString(label(padRight(r[0], labelWidth)) + "  " + l + "\n")
			} else {
				b.WriteString(strings.Repeat(" ", labelWidth+2) + l + "\n")
			}
		}
	}
	b.WriteString("\n" + label(t.T("summary.render")) + "\n" + wrapCommand(o.commandWords(), "  ", width) + "\n")
	for _, l := range wrapValue(t.T("summary.render_note"), width-2) {
		b.WriteString("  " + muted(l) + "\n")
	}
	if len(o.Actions) > 0 {
		b.WriteString("\n" + label(t.T("summary.actions")) + "\n")
		for _, l := range wrapValue(t.T("summary.actions_note"), width-2) {
			b.WriteString("  " + muted(l) + "\n")
		}
		for _, a := range o.Actions {
			fmt.Fprintf(&b, "  okstra %s %s %s --scope %s\n", a.Command, a.Key, shellQuote(a.Value), a.Scope)
		}
	}
	if len(o.Warnings) > 0 {
		b.WriteString("\n" + label(t.T("summary.warnings")) + "\n")
		for _, w := range o.Warnings {
			b.WriteString("  " + w + "\n")
		}
	}
	return b.String()
}

func orNone(t *Texts, v string, muted func(string) string) string {
	if v == "" {
		return muted(t.T("none"))
	}
	return v
}

// displayWidth is the number of cells s takes (Hangul takes two).
func displayWidth(s string) int { return ansi.StringWidth(s) }

// padRight pads s with spaces to width cells.
func padRight(s string, width int) string {
	if w := displayWidth(s); w < width {
		return s + strings.Repeat(" ", width-w)
	}
	return s
}

// wrapValue splits v at spaces into lines of at most width cells; a word
// wider than that stays whole on its own line. width <= 0: one line.
func wrapValue(v string, width int) []string {
	if width <= 0 || displayWidth(v) <= width {
		return []string{v}
	}
	var lines []string
	cur := ""
	for _, w := range strings.Split(v, " ") {
		switch {
		case cur == "":
			cur = w
		case displayWidth(cur)+1+displayWidth(w) > width:
			lines = append(lines, cur)
			cur = w
		default:
			cur += " " + w
		}
	}
	return append(lines, cur)
}
