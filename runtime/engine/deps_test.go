package engine

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// TestEngineDoesNotImportTeam: the engine reaches the dispatch lifecycle
// through runtime/lifecycle only; runtime/team is what the lead's commands
// do, and nothing the engine imports, directly or not, imports it (issue
// 20, "one dispatch lifecycle"). `go list -deps ./runtime/engine` says the
// same; this walks the module's own imports with go/build.
func TestEngineDoesNotImportTeam(t *testing.T) {
	const module = "github.com/okstra/cockpit"
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{} // package → who imports it
	var walk func(path, from string)
	walk = func(path, from string) {
		if _, ok := seen[path]; ok {
			return
		}
		seen[path] = from
		if path == module+"/runtime/team" {
			chain := []string{path}
			for p := from; p != ""; p = seen[p] {
				chain = append(chain, p)
			}
			t.Fatalf("the engine imports runtime/team: %s", strings.Join(chain, " ← "))
		}
		pkg, err := build.ImportDir(filepath.Join(root, strings.TrimPrefix(path, module)), 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				walk(imp, path)
			}
		}
	}
	walk(module+"/runtime/engine", "")
	if len(seen) < 5 {
		t.Fatalf("the walk found only %d packages of the module; it is not reading the engine's imports", len(seen))
	}
}
