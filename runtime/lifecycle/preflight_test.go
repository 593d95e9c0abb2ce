package lifecycle

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/workers"
)

// TestPlanBatchRunsTheWrappersPreflight: a job the worker wrapper would
// refuse (here a prompt without a Result Path, and codex outside a git work
// tree) refuses the batch before anything starts, with the wrapper's own
// line — not a dispatch settled later as "exited before writing its status
// sidecar" (issue 19).
func TestPlanBatchRunsTheWrappersPreflight(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := fixture.Copy(t)
	// A prompt rewritten by hand: its digests no longer apply, so they go.
	digests := regexp.MustCompile(`(?m)^\s*"(promptDigest|metadataDigest)": "[^"]*",\n`)
	for _, f := range []string{fixture.JobsInitial, strings.TrimSuffix(fixture.AntigravityPrompt, ".md") + ".meta.json"} {
		p := filepath.Join(root, f)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, digests.ReplaceAll(data, nil), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prompt := filepath.Join(root, fixture.AntigravityPrompt)
	data, err := os.ReadFile(prompt)
	if err != nil {
		t.Fatal(err)
	}
	noResult := regexp.MustCompile(`(?m)^\*\*Result Path:\*\*.*\n`).ReplaceAll(data, nil)
	if err := os.WriteFile(prompt, noResult, 0o644); err != nil {
		t.Fatal(err)
	}
	plan := func() error {
		run, err := state.LoadRun(root, fixture.RunManifest)
		if err != nil {
			t.Fatal(err)
		}
		cat, err := workers.LoadCatalog(root)
		if err != nil {
			t.Fatal(err)
		}
		_, err = PlanBatch(run, cat, fixture.JobsInitial, "")
		return err
	}
	err = plan()
	if err == nil || !strings.Contains(err.Error(), "jobs[1]: the worker wrapper would refuse it: prompt") || !strings.Contains(err.Error(), "has no **Result Path:** line") {
		t.Fatalf("PlanBatch: %v", err)
	}

	if err := os.WriteFile(prompt, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, ".git")); err != nil {
		t.Fatal(err)
	}
	err = plan()
	if err == nil || !strings.Contains(err.Error(), "jobs[0]: the worker wrapper would refuse it: project-root") || !strings.Contains(err.Error(), "run `git init` in it") {
		t.Fatalf("PlanBatch outside git: %v", err)
	}
}
