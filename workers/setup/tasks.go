package setup

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/okstra/cockpit/state"
)

// TaskTypes are okstra's eleven task types, in lifecycle order: the wizard
// offers them in this order.
var TaskTypes = []string{
	"requirements-discovery",
	"error-analysis",
	"implementation-option-selection",
	"implementation-planning",
	"implementation",
	"final-verification",
	"release-handoff",
	"improvement-discovery",
	"project-analysis",
	"feature-analysis",
	"change-impact-analysis",
}

// IsTaskType reports whether s is one of TaskTypes.
func IsTaskType(s string) bool {
	for _, t := range TaskTypes {
		if t == s {
			return true
		}
	}
	return false
}

// Task is a task found under .okstra/tasks/.
type Task struct {
	Key   string
	Group string
	// Manifest is the task manifest's path, project-relative.
	Manifest string
	// Next is the manifest's next-phase pointer; nil when it has none.
	Next *state.NextPhase
}

// TaskManifestPath is where a task's manifest lives:
// <project root>/.okstra/tasks/<task-key>/task-manifest.json.
func TaskManifestPath(projectRoot, key string) string {
	return filepath.Join(projectRoot, ".okstra", "tasks", key, "task-manifest.json")
}

// LoadTasks reads every .okstra/tasks/*/task-manifest.json of the project,
// sorted by key. A task's key is the manifest's taskKey (the directory name
// when absent); its group is taskGroup (or group). A manifest that cannot be
// read is skipped with a warning naming the file; the wizard still runs.
func LoadTasks(projectRoot string) ([]Task, []string) {
	matches, _ := filepath.Glob(filepath.Join(projectRoot, ".okstra", "tasks", "*", "task-manifest.json"))
	sort.Strings(matches)
	var tasks []Task
	var warnings []string
	for _, m := range matches {
		rel, err := filepath.Rel(projectRoot, m)
		if err != nil {
			rel = m
		}
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(m)
		if err == nil {
			err = json.Unmarshal(data, new(any))
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: not readable as JSON (%v); skipped", rel, err))
			continue
		}
		t := Task{Key: filepath.Base(filepath.Dir(m)), Manifest: rel}
		if msg := checkManifest(data); msg != "" {
			// The shape is task-manifest.schema.json's; a manifest off it
			// is the task its directory names, without a group.
			warnings = append(warnings, fmt.Sprintf("%s: %s; read as task %s without a group", rel, msg, t.Key))
		} else {
			var doc struct {
				TaskKey   string  `json:"taskKey"`
				TaskGroup *string `json:"taskGroup"`
				Group     string  `json:"group"`
			}
			json.Unmarshal(data, &doc) // its shape checked just above
			if doc.TaskKey != "" {
				t.Key = doc.TaskKey
			}
			t.Group = doc.Group
			if doc.TaskGroup != nil {
				t.Group = *doc.TaskGroup
			}
		}
		next, err := state.ReadNextPhase(m, rel)
		if err != nil {
			warnings = append(warnings, err.Error()+"; no task type is preselected from it")
		}
		t.Next = next
		tasks = append(tasks, t)
	}
	// A task directory without a manifest yet (okstra makes the directory
	// first, or a run was set up by hand) is still a task of the project:
	// its key is suggested and may be named as related.
	dirs, _ := os.ReadDir(filepath.Join(projectRoot, ".okstra", "tasks"))
	for _, d := range dirs {
		if !d.IsDir() || strings.HasPrefix(d.Name(), ".") || !IsTaskKey(d.Name()) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(projectRoot, ".okstra", "tasks", d.Name(), "task-manifest.json")); err == nil {
			continue // read above (or named in a warning)
		}
		tasks = append(tasks, Task{Key: d.Name()})
	}
	sort.SliceStable(tasks, func(i, j int) bool { return tasks[i].Key < tasks[j].Key })
	return tasks, warnings
}

// HasTask reports whether key is a task of the project (a manifest's key
// or a task directory's name).
func HasTask(tasks []Task, key string) bool {
	for _, t := range tasks {
		if t.Key == key {
			return true
		}
	}
	return false
}

// DefaultTaskType is the task type the previous run of task points at: its
// next-phase pointer's phase, only when the pointer's status is ready and the
// phase is one of TaskTypes. okstra's "release-handoff(stage-group)" reads as
// release-handoff. "" otherwise (the pointer's phase says nothing about
// launchability unless its status is ready).
func DefaultTaskType(t *Task) string {
	if t == nil || t.Next == nil || t.Next.Status != state.PointerReady {
		return ""
	}
	p := t.Next.Phase
	if p == "release-handoff(stage-group)" {
		p = "release-handoff"
	}
	if IsTaskType(p) {
		return p
	}
	return ""
}

// Groups lists the distinct non-empty groups of tasks, sorted.
func Groups(tasks []Task) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range tasks {
		if t.Group != "" && !seen[t.Group] {
			seen[t.Group] = true
			out = append(out, t.Group)
		}
	}
	sort.Strings(out)
	return out
}

// Siblings lists the keys of the other tasks of group, sorted; none for an
// empty group.
func Siblings(tasks []Task, group, self string) []string {
	if group == "" {
		return nil
	}
	var out []string
	for _, t := range tasks {
		if t.Group == group && t.Key != self {
			out = append(out, t.Key)
		}
	}
	return out
}
