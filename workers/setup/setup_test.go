package setup

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/okstra/cockpit/workers"
)

const fixtureRoot = "testdata/project"

// scenario is one scripted setup: its answers file and the render-bundle
// arguments and actions it must produce. testdata/scenarios.json holds them;
// tui/wizard's tests drive the form through the same three.
type scenario struct {
	Name    string   `json:"name"`
	Answers string   `json:"answers"` // testdata-relative
	Argv    []string `json:"argv"`
	Actions []Action `json:"actions"`
}

func loadScenarios(t *testing.T) []scenario {
	t.Helper()
	var scs []scenario
	data, err := os.ReadFile("testdata/scenarios.json")
	if err == nil {
		err = json.Unmarshal(data, &scs)
	}
	if err != nil || len(scs) != 3 {
		t.Fatalf("testdata/scenarios.json: %v (%d scenarios)", err, len(scs))
	}
	for i := range scs {
		scs[i].Answers = filepath.Join("testdata", scs[i].Answers)
	}
	return scs
}

func testOptions(lang string) Options {
	return Options{
		ProjectRoot: fixtureRoot,
		Lang:        lang,
		Catalog:     workers.BuiltinCatalog(),
		Getenv:      func(string) string { return "" },
	}
}

func TestScenariosThroughAnswers(t *testing.T) {
	for _, sc := range loadScenarios(t) {
		for _, lang := range Languages {
			t.Run(sc.Name+"_"+lang, func(t *testing.T) {
				opts := testOptions(lang)
				opts.AnswersFile = sc.Answers
				o, err := Run(opts)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(o.RenderArgv, sc.Argv) {
					t.Fatalf("renderArgv\n got %q\nwant %q", o.RenderArgv, sc.Argv)
				}
				if !reflect.DeepEqual(o.Actions, sc.Actions) {
					t.Fatalf("actions\n got %+v\nwant %+v", o.Actions, sc.Actions)
				}
				if o.Lang != lang {
					t.Fatalf("lang %s", o.Lang)
				}
				// The JSON document carries the same argv, empty strings kept.
				var doc struct {
					Outcome struct {
						RenderArgv []string `json:"renderArgv"`
					} `json:"outcome"`
					Actions []map[string]string `json:"actions"`
				}
				if err := json.Unmarshal([]byte(o.JSON()), &doc); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(doc.Outcome.RenderArgv, sc.Argv) || len(doc.Actions) != len(sc.Actions) {
					t.Fatalf("--json document:\n%s", o.JSON())
				}
				for i, a := range doc.Actions {
					if a["command"] != sc.Actions[i].Command || a["key"] != sc.Actions[i].Key || a["scope"] != sc.Actions[i].Scope {
						t.Fatalf("action %d: %v", i, a)
					}
				}
			})
		}
	}
}

func TestRenderSummaryAndJSON(t *testing.T) {
	opts := testOptions("ko")
	opts.AnswersFile = "testdata/answers/group.json"
	o, err := Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	ko, err := Render(o, "ko", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{
		"task-key       dev-10001",
		"related tasks  dev-10002, dev-10003, dev-10004, dev-10860\n", // not "related-tasks: …" after its own label
		"리포트 언어    phase 기본값",
		"okstra render-bundle\n  okstra render-bundle --task-key dev-10001 --task-type improvement-discovery --task-group billing --related-tasks dev-10002,dev-10003,dev-10004,dev-10860 --directive '' --workers antigravity,claude,codex --lead-provider '' --lead-model '' --report-language ''",
	} {
		if !strings.Contains(ko, part) {
			t.Fatalf("summary lacks %q:\n%s", part, ko)
		}
	}
	if strings.Contains(ko, "related-tasks:") {
		t.Fatalf("the summary repeats related-tasks:\n%s", ko)
	}
	js, _ := Render(o, "ko", true)
	if js != o.JSON() || !strings.HasPrefix(js, "{\n  \"outcome\": {") || !strings.Contains(js, `"actions": []`) || !strings.Contains(js, `"warnings": []`) {
		t.Fatalf("json:\n%s", js)
	}
}

// TestRosterErrorsThroughAnswers reaches okstra's two roster refusals from a
// file of answers; the messages are okstra's, word for word.
func TestRosterErrorsThroughAnswers(t *testing.T) {
	outside := "--executor grok is not in this run's roster (claude, codex); the executor is dispatched as a worker, so give it a roster slot — --role-model verifier=grok/<model> — or pick an executor already in the roster."
	split := "worker 'codex' is the executor on 'gpt-6.1-sol' and a verifier on 'gpt-6-astra'; one worker id carries one model. Give both roles the same model, or pick a different --executor provider."
	for _, lang := range Languages {
		for _, c := range []struct {
			name, body, want string
		}{
			{"outside", `{"taskKey": "dev-10860", "workers": ["claude", "codex"], "executor": "grok"}`, "answers.json: executor: " + outside},
			{"split", `{"taskKey": "dev-10860", "workers": ["claude", "codex"], "roleModels": ["verifier=codex/gpt-6-astra", "implementer=codex/gpt-6.1-sol"], "executor": "codex"}`, "answers.json: roleModels: " + split},
			{"split by alias", `{"taskKey": "dev-10860", "workers": ["codex"], "roleModels": ["verifier=codex/gpt-6-luna", "executor=codex/gpt-6-astra"], "executor": "codex"}`,
				"answers.json: roleModels: worker 'codex' is the executor on 'gpt-6-astra' and a verifier on 'gpt-6-luna'; one worker id carries one model. Give both roles the same model, or pick a different --executor provider."},
		} {
			t.Run(lang+"_"+c.name, func(t *testing.T) {
				_, err := RunAnswers(testOptions(lang), "answers.json", []byte(c.body))
				if err == nil || err.Error() != c.want {
					t.Fatalf("error\n got %v\nwant %s", err, c.want)
				}
			})
		}
	}
	// The fix the first message names works: a roster slot for grok.
	o, err := RunAnswers(testOptions("en"), "answers.json", []byte(`{"taskKey": "dev-10860", "workers": ["claude", "codex"], "roleModels": ["verifier=grok/grok-code-fast-1"], "executor": "grok"}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.Executor != "grok" || !strings.Contains(strings.Join(o.RenderArgv, " "), "--role-model verifier=grok/grok-code-fast-1 --lead-provider") {
		t.Fatalf("argv %q", o.RenderArgv)
	}
	if got := RosterError("kimi", nil); got != "--executor kimi is not in this run's roster (empty); the executor is dispatched as a worker, so give it a roster slot — --role-model verifier=kimi/<model> — or pick an executor already in the roster." {
		t.Fatalf("empty roster: %s", got)
	}
}

func TestAnswersRefusals(t *testing.T) {
	cases := []struct {
		lang, body, want string
	}{
		{"en", `{"taskKey": ""}`, "a.json: taskKey: is empty; type the task key, e.g. dev-10860"},
		{"ko", `{"taskKey": ""}`, "a.json: taskKey: 비어 있습니다; task-key 를 입력하세요 (예: dev-10860)"},
		{"en", `{}`, "a.json: taskKey: is empty"},
		{"en", `{"taskKey": "../etc"}`, `a.json: taskKey: "../etc" is not a task key`},
		{"en", `{"taskKey": "x", "taskGroup": "a b"}`, `a.json: taskGroup: "a b" is not a group name`},
		{"en", `{"taskKey": "x", "taskType": "analysis"}`, `a.json: taskType: "analysis" is not a task type; expected one of requirements-discovery, error-analysis,`},
		{"en", `{"taskKey": "ops-7", "relatedTasks": {"mode": "group"}}`, `a.json: relatedTasks.mode: "group" needs a task group with other tasks; this task's group ops has none`},
		{"en", `{"taskKey": "x", "relatedTasks": {"mode": "all"}}`, `a.json: relatedTasks.mode: "all" is not a related-tasks choice`},
		{"en", `{"taskKey": "x", "relatedTasks": {"mode": "input"}}`, `a.json: relatedTasks.tasks: is empty; type at least one task key`},
		{"en", `{"taskKey": "x", "relatedTasks": {"mode": "input", "tasks": ["ops-7", "x"]}}`, `a.json: relatedTasks.tasks: names this task (x)`},
		// Issue 17 item 9: a related task that does not exist is refused.
		{"en", `{"taskKey": "x", "relatedTasks": {"mode": "input", "tasks": ["ops-7", "dev-99999"]}}`, `a.json: relatedTasks.tasks: "dev-99999" is no task of this project (no .okstra/tasks/dev-99999); name an existing task, or choose no related tasks`},
		{"en", `{"taskKey": "x", "workers": ["codex", "gpt"]}`, `a.json: workers: "gpt" is not a provider; known: antigravity, claude, codex, grok, kimi, sim`},
		{"en", `{"taskKey": "x", "roleModels": ["codex/gpt-6-astra"]}`, `a.json: roleModels[0]: "codex/gpt-6-astra" is not role=provider/model`},
		{"en", `{"taskKey": "x", "roleModels": ["boss=codex/gpt-6-astra"]}`, `a.json: roleModels: "boss" is not a role; known: leader, analyser,`},
		{"en", `{"taskKey": "x", "roleModels": ["analyser=codex/gpt-6-sol"]}`, `a.json: roleModels: "gpt-6-sol" is not a selectable model of codex; choose one of gpt-6.1-sol, gpt-6-astra, gpt-6-luna`},
		{"en", `{"taskKey": "x", "roleModels": ["analyser=codex/gpt-6-astra", "analyser=codex/gpt-6-luna"]}`, `a.json: roleModels: gives analyser on codex twice`},
		{"en", `{"taskKey": "x", "roleCounts": ["analyser=0"]}`, `a.json: roleCounts[0]: "0" is not a number from 1 to 16`},
		{"en", `{"taskKey": "x", "roleCounts": ["analyser"]}`, `a.json: roleCounts[0]: "analyser" is not role=N`},
		{"en", `{"taskKey": "x", "roleCounts": ["analyser=2", "analyser=3"]}`, `a.json: roleCounts: gives analyser twice`},
		{"en", `{"taskKey": "x", "leadModel": "opus"}`, `a.json: leadModel: is opus but there is no lead provider`},
		{"en", `{"taskKey": "x", "leadProvider": "claude", "leadModel": "gpt-6-astra"}`, `a.json: leadModel: "gpt-6-astra" is not a selectable model of claude; choose one of opus, sonnet`},
		{"en", `{"taskKey": "x", "taskType": "feature-analysis", "executor": "codex"}`, `a.json: executor: is set but the task type is feature-analysis`},
		{"en", `{"taskKey": "x", "taskType": "implementation", "executor": "codex", "workers": ["codex"], "roleModels": ["implementer=claude/opus"]}`, `a.json: roleModels: gives implementer on claude, but the executor is codex`},
		{"en", `{"taskKey": "x", "reportLanguage": "fr"}`, `a.json: reportLanguage: "fr" is not a report language`},
		{"en", `{"taskKey": "x", "saveDefaults": "always"}`, `a.json: saveDefaults: "always" is not a choice`},
		{"en", `{"taskKey": "x", "tasktype": "implementation"}`, `a.json: tasktype: is not an answer the wizard knows`},
		{"en", `{"taskKey": 7}`, `a.json: taskKey: is a JSON number; expected string`},
		{"en", `[1]`, `a.json: is not a JSON object of answers`},
		// Issue 20: the shape is the schema's, the JSON path exact.
		{"en", `{"taskKey": "x", "roleCounts": ["analyser=2", "critic=17"]}`, `a.json: roleCounts[1]: "17" is not a number from 1 to 16; leave it empty for the phase default`},
		{"en", `{"taskKey": "x", "relatedTasks": {"mode": "input", "tasks": ["ops-7", 3]}}`, `a.json: relatedTasks.tasks[1]: is a JSON number; expected string`},
		{"en", `{"taskKey": "x", "relatedTasks": {"mode": "input", "task": ["ops-7"]}}`, `a.json: relatedTasks.task: is not an answer the wizard knows; see docs/WIZARD.md for the members`},
		{"en", `{"taskKey": "x", "reportLanguage": 5}`, `a.json: reportLanguage: is a JSON number; expected string`},
		{"en", `{"taskKey": "x", "workers": "codex"}`, `a.json: workers: is a JSON string; expected array`},
		{"en", `{"taskKey": "x", "TaskType": "implementation"}`, `a.json: TaskType: is not an answer the wizard knows`},
		{"en", `{"taskKey": "x",}`, `a.json: is not a JSON object of answers (`},
		{"ko", `{"taskKey": "x", "roleCounts": ["analyser"]}`, `a.json: roleCounts[0]: "analyser" 는`},
	}
	for _, c := range cases {
		_, err := RunAnswers(testOptions(c.lang), "a.json", []byte(c.body))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s\n got %v\nwant %s…", c.body, err, c.want)
		}
	}
	opts := testOptions("en")
	opts.AnswersFile = "testdata/answers/missing.json"
	if _, err := Run(opts); err == nil || err.Error() != "testdata/answers/missing.json: does not exist; pass a JSON file of answers with --answers" {
		t.Fatalf("missing file: %v", err)
	}
	opts = testOptions("fr")
	opts.AnswersFile = "testdata/answers/group.json"
	if _, err := Run(opts); err == nil || err.Error() != `--lang: is "fr"; expected ko or en` {
		t.Fatalf("bad lang: %v", err)
	}
	opts = testOptions("en")
	opts.ProjectRoot = "testdata/nope"
	opts.AnswersFile = "testdata/answers/group.json"
	if _, err := Run(opts); err == nil || !strings.HasPrefix(err.Error(), "--project-root: testdata/nope is not a directory") {
		t.Fatalf("bad root: %v", err)
	}
}

func TestDefaults(t *testing.T) {
	// dev-10860's pointer is ready: implementation is preselected; the
	// executor is claude (in the default roster) on its verifier model.
	o, err := RunAnswers(testOptions("en"), "a.json", []byte(`{"taskKey": "dev-10860"}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.TaskType != "implementation" || o.TaskGroup != "billing" || o.Executor != "claude" || o.ReportLanguage != "en" || len(o.RoleModels) != 0 {
		t.Fatalf("defaults: %+v", o)
	}
	// Pending, terminal, blocked and legacy pointers preselect nothing from
	// the pointer: the first task type.
	for _, key := range []string{"dev-10001", "dev-10002", "ops-7", "dev-10004", "new-task"} {
		o, err := RunAnswers(testOptions("ko"), "a.json", []byte(`{"taskKey": "`+key+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		if o.TaskType != "requirements-discovery" || o.ReportLanguage != "ko" {
			t.Fatalf("%s: task type %s, language %s", key, o.TaskType, o.ReportLanguage)
		}
	}
	// Explicit phase defaults stay empty strings.
	o, err = RunAnswers(testOptions("en"), "a.json", []byte(`{"taskKey": "new-task", "workers": [], "reportLanguage": ""}`))
	if err != nil {
		t.Fatal(err)
	}
	argv := strings.Join(o.RenderArgv, "|")
	if !strings.Contains(argv, "|--workers||--lead-provider||--lead-model||--report-language|") {
		t.Fatalf("argv %q", o.RenderArgv)
	}
}

func TestLanguageAndTasks(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		flag string
		env  map[string]string
		want string
	}{
		{"", map[string]string{"LANG": "ko_KR.UTF-8"}, "ko"},
		{"", map[string]string{"LANG": "en_US.UTF-8"}, "en"},
		{"", map[string]string{"LANG": "ko_KR.UTF-8", "LC_ALL": "C"}, "en"},
		{"", map[string]string{"LC_MESSAGES": "ko"}, "ko"},
		{"", nil, "en"},
		{"en", map[string]string{"LANG": "ko_KR.UTF-8"}, "en"},
		{"KO", nil, "ko"},
		{"ko_KR.UTF-8", nil, "ko"},
	} {
		got, err := DetectLang(c.flag, env(c.env))
		if err != nil || got != c.want {
			t.Fatalf("DetectLang(%q, %v) = %s, %v; want %s", c.flag, c.env, got, err, c.want)
		}
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, ".okstra", "tasks", "broken", "task-manifest.json")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	badPtr := filepath.Join(dir, ".okstra", "tasks", "odd", "task-manifest.json")
	if err := os.MkdirAll(filepath.Dir(badPtr), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(badPtr, []byte(`{"workflow": {"nextRecommendedPhase": {"phase": "x", "status": "soon"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tasks, warnings := LoadTasks(dir)
	if len(tasks) != 1 || tasks[0].Key != "odd" || len(warnings) != 2 {
		t.Fatalf("tasks %+v warnings %q", tasks, warnings)
	}
	if !strings.HasPrefix(warnings[0], ".okstra/tasks/broken/task-manifest.json: not readable as JSON") ||
		!strings.Contains(warnings[1], ".okstra/tasks/odd/task-manifest.json: workflow.nextRecommendedPhase.status") {
		t.Fatalf("warnings %q", warnings)
	}
	o, err := RunAnswers(Options{ProjectRoot: dir, Lang: "en", Catalog: workers.BuiltinCatalog()}, "a.json", []byte(`{"taskKey": "odd"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Warnings) != 2 || !strings.Contains(o.JSON(), `"warnings": [`) {
		t.Fatalf("warnings not carried: %+v", o.Warnings)
	}
}

// TestPromptFilesAgree checks that both languages have the same keys and the
// same placeholders, and that okstra's related-tasks texts are kept.
func TestPromptFilesAgree(t *testing.T) {
	ko, err := LoadTexts("ko")
	if err != nil {
		t.Fatal(err)
	}
	en, err := LoadTexts("en")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ko.Keys(), ",") != strings.Join(en.Keys(), ",") {
		t.Fatalf("key sets differ:\nko %v\nen %v", ko.Keys(), en.Keys())
	}
	for _, k := range ko.Keys() {
		if a, b := placeholders(ko.Raw(k)), placeholders(en.Raw(k)); a != b {
			t.Errorf("%s: placeholders differ: ko %s, en %s", k, a, b)
		}
	}
	for k, want := range map[string]string{
		"steps.related_tasks.labels.siblings":        "같은 group 의 다른 task 전부 사용: {snippet}",
		"steps.related_tasks.labels.siblings_count":  " — 총 {count}개",
		"steps.related_tasks.options.__free_input__": "직접 입력",
		"steps.related_tasks.echo_suffixes.skip":     "related-tasks: (none)",
	} {
		if got := ko.Raw(k); got != want {
			t.Errorf("ko %s = %q, want okstra's %q", k, got, want)
		}
	}
	// Every step has its texts.
	for _, id := range allSteps {
		if ko.Raw("steps."+string(id)+".title") == "steps."+string(id)+".title" {
			t.Errorf("no title for step %s", id)
		}
	}
}

func placeholders(s string) string {
	var out []string
	for {
		i := strings.Index(s, "{")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "}")
		if j < 0 {
			break
		}
		out = append(out, s[i:i+j+1])
		s = s[i+j+1:]
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// TestNoFormLibrary holds the line that lets `cockpit wizard --answers` run
// without the form: nothing this package imports, directly or not, is the
// form library or the screen's.
func TestNoFormLibrary(t *testing.T) {
	goBin, err := exec.LookPath("go") // go test puts its own first on PATH
	if err != nil {
		t.Fatalf("find the go command: %v", err)
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/okstra/cockpit/workers") {
		t.Fatalf("go list -deps lists no workers package; read:\n%s", out)
	}
	for _, d := range deps {
		for _, banned := range []string{"charm.land/huh", "charm.land/bubbletea", "charm.land/lipgloss", "github.com/okstra/cockpit/tui"} {
			if d == banned || strings.HasPrefix(d, banned+"/") {
				t.Errorf("workers/setup depends on %s", d)
			}
		}
	}
}

// TestTaskDirWithoutManifest (issue 17 item 9): a task directory with no
// task-manifest.json yet is a task of the project: its key is suggested
// (Tasks) and may be named as related; a key with no directory may not.
func TestTaskDirWithoutManifest(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".okstra/tasks/new-1", ".okstra/tasks/.hidden", ".okstra/tasks/old-2"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".okstra/tasks/old-2/task-manifest.json"), []byte(`{"taskKey": "old-2", "taskGroup": "g"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tasks, warnings := LoadTasks(root)
	var keys []string
	for _, tk := range tasks {
		keys = append(keys, tk.Key)
	}
	if strings.Join(keys, " ") != "new-1 old-2" || len(warnings) != 0 {
		t.Fatalf("tasks %v, warnings %v", keys, warnings)
	}
	opts := testOptions("en")
	opts.ProjectRoot = root
	out, err := RunAnswers(opts, "a.json", []byte(`{"taskKey": "x", "relatedTasks": {"mode": "input", "tasks": ["new-1", "old-2"]}}`))
	if err != nil || strings.Join(out.RelatedTasks, ",") != "new-1,old-2" {
		t.Fatalf("related tasks without a manifest: %+v, %v", out, err)
	}
	if _, err := RunAnswers(opts, "a.json", []byte(`{"taskKey": "x", "relatedTasks": {"mode": "input", "tasks": ["new-3"]}}`)); err == nil || !strings.Contains(err.Error(), `"new-3" is no task of this project`) {
		t.Fatalf("a task with no directory: %v", err)
	}
}

// TestSummarySaysNothingWasWritten (issue 17 item 9): the summary says the
// wizard wrote nothing and who runs the printed commands, beside the
// render-bundle line and beside the config actions of "save as defaults".
func TestSummarySaysNothingWasWritten(t *testing.T) {
	for lang, want := range map[string][2]string{
		"en": {"The wizard wrote nothing: the lead runs this command to set the task up.", "Nothing is saved yet: the lead runs these after the command above (or run them yourself)."},
		"ko": {"마법사는 아무것도 쓰지 않았습니다", "아직 저장되지 않았습니다"},
	} {
		out, err := RunAnswers(testOptions(lang), "a.json", []byte(`{"taskKey": "x", "leadProvider": "claude", "reportLanguage": "en", "saveDefaults": "project"}`))
		if err != nil {
			t.Fatal(err)
		}
		text, err := Render(out, lang, false)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, want[0]) || !strings.Contains(text, want[1]) || !strings.Contains(text, "okstra config set lead-provider claude --scope project") {
			t.Errorf("%s summary:\n%s", lang, text)
		}
	}
}

// TestDefaultExecutorFromEnv (issue 18 item 12): the executor preselected
// is $OKSTRA_DEFAULT_EXECUTOR when the roster has it, as okstra's
// _default("OKSTRA_DEFAULT_EXECUTOR", "claude"); else claude, else the
// roster's first.
func TestDefaultExecutorFromEnv(t *testing.T) {
	for env, want := range map[string]string{"": "claude", "codex": "codex", " Codex ": "codex", "grok": "claude"} {
		opts := testOptions("en")
		opts.Getenv = func(k string) string {
			if k == "OKSTRA_DEFAULT_EXECUTOR" {
				return env
			}
			return ""
		}
		out, err := RunAnswers(opts, "a.json", []byte(`{"taskKey": "x", "taskType": "implementation", "workers": ["claude", "codex"]}`))
		if err != nil {
			t.Fatalf("OKSTRA_DEFAULT_EXECUTOR=%q: %v", env, err)
		}
		if out.Executor != want {
			t.Errorf("OKSTRA_DEFAULT_EXECUTOR=%q: executor %q, want %q", env, out.Executor, want)
		}
	}
}

// TestClaudeDefaultsAgreeWithOkstra (issue 18 item 5): claude's default
// model is opus for every role (seed 000's roster table, the catalog's), so
// claude as executor and as a verifier carries one model: the split-model
// check passes and the wizard adds no implementer role model of its own;
// the lead's default model is opus too.
func TestClaudeDefaultsAgreeWithOkstra(t *testing.T) {
	out, err := RunAnswers(testOptions("en"), "a.json", []byte(`{"taskKey": "x", "taskType": "implementation", "workers": ["claude"], "executor": "claude", "leadProvider": "claude"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.RoleModels) != 0 || out.LeadModel != "opus" || out.Executor != "claude" {
		t.Fatalf("roleModels %v, leadModel %q, executor %q", out.RoleModels, out.LeadModel, out.Executor)
	}
}
