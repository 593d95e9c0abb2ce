package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDanglingSymlinkOutOfRootIsRefused: a link whose target does not exist
// yet must not pass as a path inside the root (a write through it would
// land outside), and a lock file planted as a symlink is not followed.
func TestDanglingSymlinkOutOfRootIsRefused(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	outside := filepath.Join(dir, "outside")
	os.MkdirAll(filepath.Join(root, "state"), 0o755)
	os.MkdirAll(outside, 0o755)
	os.Symlink(filepath.Join(outside, "ts.json"), filepath.Join(root, "state", "team-state.json"))
	r, err := OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Resolve("state/team-state.json", "teamStatePath"); err == nil || !strings.Contains(err.Error(), "symlink to a missing target") {
		t.Fatalf("a dangling link out of the root: %v", err)
	}
	ledger := filepath.Join(root, "state", "ledger.jsonl")
	os.Symlink(filepath.Join(outside, "planted.lock"), LockPath(ledger))
	ev, _ := NewEvent("test", "complete", "", nil, "")
	if err := AppendEvents(ledger, ev); err == nil {
		t.Fatal("the lock went through a planted symlink")
	}
	if _, err := os.Stat(filepath.Join(outside, "planted.lock")); err == nil {
		t.Fatal("a file was created outside the root through the lock's symlink")
	}
}
