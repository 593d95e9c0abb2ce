package setup

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/okstra/cockpit/assets"
)

// Issue 20: the answers' shape is assets/schemas/wizard-answers.schema.json.
// The form holds an answer to its member's part of the schema, so a value
// the form refuses is refused by a file in the same words (the file's error
// adds the file and the JSON path).
func TestFormAndFileRefuseAlike(t *testing.T) {
	for _, c := range []struct {
		step  StepID
		set   func(*Answers)
		file  string
		field string
	}{
		{StepTaskKey, func(a *Answers) { a.TaskKey = "../etc" }, `{"taskKey": "../etc"}`, "taskKey"},
		{StepTaskKey, func(a *Answers) { a.TaskKey = "  " }, `{"taskKey": ""}`, "taskKey"},
		{StepTaskGroup, func(a *Answers) { a.TaskGroup = "a b" }, `{"taskKey": "x", "taskGroup": "a b"}`, "taskGroup"},
		{StepTaskType, func(a *Answers) { a.TaskType = "analysis" }, `{"taskKey": "x", "taskType": "analysis"}`, "taskType"},
		{StepRelatedTasks, func(a *Answers) { a.RelatedTasks = &RelatedTasks{Mode: "all"} }, `{"taskKey": "x", "relatedTasks": {"mode": "all"}}`, "relatedTasks.mode"},
		{StepRelatedInput, func(a *Answers) { a.RelatedTasks = &RelatedTasks{Mode: RelatedInput, Tasks: []string{"ops-7, ../x"}} }, `{"taskKey": "x", "relatedTasks": {"mode": "input", "tasks": ["ops-7, ../x"]}}`, "relatedTasks.tasks"},
		{StepRoleModels, func(a *Answers) { a.RoleModels = []string{"analyser=codex/gpt-6-astra", "codex"} }, `{"taskKey": "x", "roleModels": ["analyser=codex/gpt-6-astra", "codex"]}`, "roleModels[1]"},
		{StepRoleCount, func(a *Answers) { a.RoleCounts = []string{"=2"} }, `{"taskKey": "x", "roleCounts": ["=2"]}`, "roleCounts[0]"},
		{StepRoleCount, func(a *Answers) { a.RoleCounts = []string{"critic=99"} }, `{"taskKey": "x", "roleCounts": ["critic=99"]}`, "roleCounts[0]"},
		{StepReportLanguage, func(a *Answers) { a.ReportLanguage = "fr" }, `{"taskKey": "x", "reportLanguage": "fr"}`, "reportLanguage"},
		{StepSaveDefaults, func(a *Answers) { a.SaveDefaults = "always" }, `{"taskKey": "x", "saveDefaults": "always"}`, "saveDefaults"},
	} {
		for _, lang := range Languages {
			s, err := Load(testOptions(lang))
			if err != nil {
				t.Fatal(err)
			}
			s.A.TaskKey = "x"
			c.set(&s.A)
			var se *StepError
			if err := s.Apply(c.step); !errors.As(err, &se) || se.Step != c.step {
				t.Errorf("%s %s: the form accepts it (%v)", lang, c.step, err)
				continue
			}
			_, ferr := RunAnswers(testOptions(lang), "a.json", []byte(c.file))
			if want := "a.json: " + c.field + ": " + se.Msg; ferr == nil || ferr.Error() != want {
				t.Errorf("%s %s:\n file %v\n form %s", lang, c.step, ferr, want)
			}
		}
	}
}

// The form's task types, in the order it offers them, are the schema's.
func TestTaskTypesAreTheSchemas(t *testing.T) {
	data, err := assets.FS.ReadFile("schemas/" + answersSchema)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Properties["taskType"].Enum; !slices.Equal(got, TaskTypes) {
		t.Fatalf("the schema's task types %v, the form's %v", got, TaskTypes)
	}
	// Every member of Answers is a member of the schema, and back.
	var members []string
	for k := range doc.Properties {
		members = append(members, k)
	}
	var fields []string
	for k := range answersKeys {
		fields = append(fields, k)
	}
	slices.Sort(members)
	slices.Sort(fields)
	if !slices.Equal(members, fields) {
		t.Fatalf("schema members %v, answers %v", members, fields)
	}
	for _, k := range []string{"dev-10860", "a", "A.b_c-9", strings.Repeat("k", 128)} {
		if !IsTaskKey(k) {
			t.Errorf("IsTaskKey(%q) = false", k)
		}
	}
	for _, k := range []string{"", "-a", ".x", "a b", "a/b", strings.Repeat("k", 129)} {
		if IsTaskKey(k) {
			t.Errorf("IsTaskKey(%q) = true", k)
		}
	}
}

// A task manifest's members the wizard reads are held to
// task-manifest.schema.json: one off it is named (file, JSON path, what is
// wrong) and read as the task its directory names, without a group —
// before, a number for taskKey or a list for taskGroup was dropped
// silently.
func TestTaskManifestShape(t *testing.T) {
	root := t.TempDir()
	for key, body := range map[string]string{
		"good":    `{"taskKey": "good", "taskGroup": "g", "extra": {"okstra": "writes more"}}`,
		"old":     `{"group": "g"}`,
		"numkey":  `{"taskKey": 5, "taskGroup": "g"}`,
		"badkey":  `{"taskKey": "../x"}`,
		"listgrp": `{"taskGroup": ["g"]}`,
	} {
		dir := filepath.Join(root, ".okstra", "tasks", key)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "task-manifest.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tasks, warnings := LoadTasks(root)
	groups := map[string]string{}
	for _, tk := range tasks {
		groups[tk.Key] = tk.Group
	}
	if want := map[string]string{"good": "g", "old": "g", "numkey": "", "badkey": "", "listgrp": ""}; !maps.Equal(groups, want) {
		t.Errorf("tasks and groups %v, want %v", groups, want)
	}
	want := []string{
		`.okstra/tasks/badkey/task-manifest.json: taskKey: is "../x", which is not of the expected form ^([A-Za-z0-9][A-Za-z0-9._-]{0,127})?$; read as task badkey without a group`,
		".okstra/tasks/listgrp/task-manifest.json: taskGroup: is a JSON array; expected string; read as task listgrp without a group",
		".okstra/tasks/numkey/task-manifest.json: taskKey: is a JSON number; expected string; read as task numkey without a group",
	}
	if len(warnings) != len(want) {
		t.Fatalf("warnings %q", warnings)
	}
	for i, w := range want {
		if !strings.HasPrefix(warnings[i], w) || strings.Contains(warnings[i], "\n") {
			t.Errorf("warning %q, want %q…", warnings[i], w)
		}
	}
}

// The schemas the wizard compiles trusted are valid against their draft's
// metaschema.
func TestSchemasAreValid(t *testing.T) {
	c, err := newCompiler(false)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{answersSchema, taskManifestSchema} {
		if _, err := c.Compile(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
