package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/okstra/cockpit/runtime/internal/runtest"
)

// TestNextPhaseOfAMissingTaskManifestIsNone: a task manifest the run names
// but that does not exist (yet) has no next phase and is no problem; one
// that exists and is broken is (the check goes by fs.ErrNotExist through
// state.Error, not by the error's text).
func TestNextPhaseOfAMissingTaskManifestIsNone(t *testing.T) {
	run, _ := runtest.StartedRun(t, 0)
	run.Manifest.TaskManifestPath = "task/task-manifest.json"
	np, err := readNextPhase(run)
	if np != nil || err != nil {
		t.Fatalf("missing task manifest: %+v, %v; want none and no error", np, err)
	}
	p := filepath.Join(run.Root.Dir(), "task/task-manifest.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readNextPhase(run); err == nil {
		t.Fatal("a broken task manifest read as none")
	}
	if err := os.WriteFile(p, []byte(`{"workflow":{"nextRecommendedPhase":{"phase":"implementation","status":"pending","rationale":"r"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if np, err := readNextPhase(run); err != nil || np == nil || np.Phase != "implementation" {
		t.Fatalf("next phase %+v, %v", np, err)
	}
}
