package setup

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/workers"
)

// Options are the flags of `cockpit wizard` (docs/WIZARD.md).
type Options struct {
	// ProjectRoot is where .okstra/tasks/ and .cockpit/providers.json are
	// read from (--project-root; "" means the working directory).
	ProjectRoot string
	// Lang is --lang: ko or en; "" reads LC_ALL, LC_MESSAGES, LANG.
	Lang string
	// AnswersFile is --answers: a JSON file of answers that runs the wizard
	// without a form.
	AnswersFile string
	// JSON is --json: print the machine document instead of the summary.
	JSON bool
	// Getenv reads the environment; nil means os.Getenv. Tests replace it.
	Getenv func(string) string
	// Catalog is the provider catalog; nil loads it with
	// workers.LoadCatalog on the project root.
	Catalog *workers.Catalog
}

// Env reads the environment variable k through Getenv.
func (o *Options) Env(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

func (o *Options) root() string {
	if o.ProjectRoot == "" {
		return "."
	}
	return o.ProjectRoot
}

// Load sets up what both the headless path and the form need: the
// language and its texts, the catalog and the project's tasks.
func Load(opts Options) (*Session, error) {
	if st, err := os.Stat(opts.root()); err != nil || !st.IsDir() {
		return nil, &state.Error{Field: "--project-root", Msg: fmt.Sprintf("%s is not a directory; pass the project's root", opts.root())}
	}
	lang, err := DetectLang(opts.Lang, opts.Env)
	if err != nil {
		return nil, err
	}
	texts, err := LoadTexts(lang)
	if err != nil {
		return nil, err
	}
	cat := opts.Catalog
	if cat == nil {
		if cat, err = workers.LoadCatalog(opts.root()); err != nil {
			return nil, err
		}
	}
	tasks, warnings := LoadTasks(opts.root())
	s := NewSession(lang, texts, cat, tasks, warnings)
	if e := strings.ToLower(strings.TrimSpace(opts.Env("OKSTRA_DEFAULT_EXECUTOR"))); e != "" {
		s.DefaultExecutor = e
	}
	return s, nil
}

// answersKeys maps the members of an answers file to the steps they answer.
var answersKeys = map[string][]StepID{
	"taskKey": {StepTaskKey}, "taskGroup": {StepTaskGroup}, "taskType": {StepTaskType},
	"relatedTasks": {StepRelatedTasks, StepRelatedInput}, "directive": {StepDirective},
	"workers": {StepWorkers}, "roleModels": {StepRoleModels}, "roleCounts": {StepRoleCount},
	"leadProvider": {StepLeadProvider}, "leadModel": {StepLeadModel}, "executor": {StepExecutor},
	"reportLanguage": {StepReportLanguage}, "saveDefaults": {StepSaveDefaults},
}

// Run runs the wizard without a form, from opts.AnswersFile. Members the
// file leaves out take the default the form would preselect, so a file and
// a user who presses enter through the same choices get the same outcome.
// An answer the wizard refuses is an error naming the file and the member.
func Run(opts Options) (*Outcome, error) {
	if opts.AnswersFile == "" {
		return nil, &state.Error{Field: "--answers", Msg: "is required to run the wizard without a terminal; pass a JSON file of answers"}
	}
	data, err := os.ReadFile(opts.AnswersFile)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &state.Error{File: opts.AnswersFile, Msg: "does not exist; pass a JSON file of answers with --answers"}
		}
		return nil, fmt.Errorf("read answers: %w", err)
	}
	s, err := Load(opts)
	if err != nil {
		return nil, err
	}
	return s.runAnswers(opts.AnswersFile, data)
}

// RunAnswers is Run on answers already in memory; name labels errors.
func RunAnswers(opts Options, name string, data []byte) (*Outcome, error) {
	s, err := Load(opts)
	if err != nil {
		return nil, err
	}
	return s.runAnswers(name, data)
}

func (s *Session) runAnswers(name string, data []byte) (*Outcome, error) {
	// The shape is the schema's (assets/schemas/wizard-answers.schema.json):
	// exact member names, JSON types, the forms of keys, roles and counts,
	// the choices; what follows is what a schema cannot say.
	if err := s.checkFile(name, data); err != nil {
		return nil, err
	}
	var present map[string]json.RawMessage
	if err := json.Unmarshal(data, &present); err != nil {
		return nil, &state.Error{File: name, Msg: fmt.Sprintf("is not a JSON object of answers (%v)", err)}
	}
	if err := json.Unmarshal(data, &s.A); err != nil {
		return nil, &state.Error{File: name, Msg: fmt.Sprintf("is not a JSON object of answers (%v)", err)}
	}
	for k := range present {
		for _, id := range answersKeys[k] {
			s.set[id] = true
		}
	}
	if s.set[StepRoleModels] {
		// An implementer model in the file is the executor model answer.
		for _, rm := range s.A.RoleModels {
			if r, _, _, ok := splitRoleModel(rm); ok && (r == "implementer" || r == "executor") {
				s.set[StepExecutorModel] = true
			}
		}
	}
	for i := 0; ; i++ {
		steps := s.Steps()
		if i >= len(steps) {
			break
		}
		id := steps[i]
		if id == StepConfirm {
			continue
		}
		s.EnsureDefault(id)
		if err := s.Apply(id); err != nil {
			return nil, s.fileError(name, err)
		}
	}
	// An executor on a run that has none is a mistake worth naming, not an
	// answer to drop.
	if s.set[StepExecutor] && !s.Applies(StepExecutor) {
		if err := s.validate(StepExecutor); err != nil {
			return nil, s.fileError(name, err)
		}
	}
	return s.Outcome(), nil
}

// fileError names the answers file and the member a step error is about.
func (s *Session) fileError(name string, err error) error {
	var se *StepError
	if errors.As(err, &se) {
		return &state.Error{File: name, Field: answerField[se.Step], Msg: se.Msg}
	}
	return err
}
