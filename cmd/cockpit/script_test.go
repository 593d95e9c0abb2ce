package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/okstra/cockpit/internal/fixture"
)

// TestScripts runs the readable end-to-end scripts in testdata/script
// (testscript: one txtar file a story, the expected output beside the
// commands). `cockpit` in a script is this test binary (TestMain). Every
// script starts in a fresh copy of the fixture project, $ROOT, with
// $COCKPIT_PROJECT_ROOT and $COCKPIT_RUN_MANIFEST set as in a lead pane;
// $MANIFEST, $JOBS, $TEAMSTATE and $RUNDIR name its files.
//
// The bad-input contract reads better here than as a Go table: each case
// is the few lines that break one file or flag, the command, and the one
// line it must print, with `snapshot`/`unchanged` around it for "no file
// changed".
func TestScripts(t *testing.T) {
	t.Parallel() // the scripts wait on cockpit processes beside the other waiting tests
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			root := filepath.Join(env.WorkDir, "project")
			if err := copyFixture(root); err != nil {
				return err
			}
			env.Setenv("ROOT", root)
			env.Setenv("RUNDIR", fixture.RunDir)
			env.Setenv("MANIFEST", fixture.RunManifest)
			env.Setenv("JOBS", fixture.JobsInitial)
			env.Setenv("TEAMSTATE", fixture.TeamState)
			env.Setenv(envProjectRoot, root)
			env.Setenv(envRunManifest, fixture.RunManifest)
			env.Cd = root
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fixture":   cmdFixture,
			"jsonset":   cmdJSONSet,
			"jsondel":   cmdJSONDel,
			"snapshot":  cmdSnapshot,
			"unchanged": cmdUnchanged,
			"errline":   cmdErrLine,
			"chop":      cmdChop,
		},
	})
}

// copyFixture copies the fixture project to root, replacing what is there.
func copyFixture(root string) error {
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	if err := os.CopyFS(root, os.DirFS(filepath.Join(fixture.Dir(), "project"))); err != nil {
		return err
	}
	// A git work tree, as fixture.Copy makes it: codex exec refuses others.
	return os.Mkdir(filepath.Join(root, ".git"), 0o755)
}

// fixture: start the next case on a fresh copy of the fixture project.
func cmdFixture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: fixture")
	}
	ts.Check(copyFixture(ts.Getenv("ROOT")))
}

// chop file: drop the last byte of a file under $ROOT — the newline
// txtar ends every file with, to make a document cut off mid-way.
func cmdChop(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: chop file")
	}
	p := filepath.Join(ts.Getenv("ROOT"), args[0])
	data, err := os.ReadFile(p)
	ts.Check(err)
	if len(data) == 0 {
		ts.Fatalf("chop: %s is empty", args[0])
	}
	ts.Check(os.WriteFile(p, data[:len(data)-1], 0o644))
}

// jsonset file path value: set the member at the dotted path (array
// indexes as numbers, e.g. jobs.0.provider) of a JSON file under $ROOT;
// value is read as JSON when it parses, as a string otherwise.
func cmdJSONSet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: jsonset file path value")
	}
	var v any
	if err := json.Unmarshal([]byte(args[2]), &v); err != nil {
		v = args[2]
	}
	editJSONPath(ts, args[0], args[1], func(parent any, key string) {
		switch p := parent.(type) {
		case map[string]any:
			p[key] = v
		case []any:
			i, _ := strconv.Atoi(key)
			p[i] = v
		}
	})
}

// jsondel file path: delete the member at the dotted path.
func cmdJSONDel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: jsondel file path")
	}
	editJSONPath(ts, args[0], args[1], func(parent any, key string) {
		if p, ok := parent.(map[string]any); ok {
			delete(p, key)
		}
	})
}

func editJSONPath(ts *testscript.TestScript, file, path string, set func(parent any, key string)) {
	p := filepath.Join(ts.Getenv("ROOT"), file)
	data, err := os.ReadFile(p)
	ts.Check(err)
	var doc any
	ts.Check(json.Unmarshal(data, &doc))
	keys := strings.Split(path, ".")
	parent := doc
	for _, k := range keys[:len(keys)-1] {
		switch c := parent.(type) {
		case map[string]any:
			parent = c[k]
		case []any:
			i, err := strconv.Atoi(k)
			ts.Check(err)
			parent = c[i]
		default:
			ts.Fatalf("%s: %s is not an object or array", file, k)
		}
	}
	set(parent, keys[len(keys)-1])
	out, err := json.MarshalIndent(doc, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(p, out, 0o644))
}

// snapshot: note every file under $ROOT (in $WORK/.snapshot), for
// unchanged.
func cmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: snapshot")
	}
	tree, err := hashTree(ts.Getenv("ROOT"))
	ts.Check(err)
	data, err := json.Marshal(tree)
	ts.Check(err)
	ts.Check(os.WriteFile(filepath.Join(ts.Getenv("WORK"), ".snapshot"), data, 0o644))
}

// unchanged: no file under $ROOT was added, removed or changed since
// snapshot.
func cmdUnchanged(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: unchanged")
	}
	data, err := os.ReadFile(filepath.Join(ts.Getenv("WORK"), ".snapshot"))
	ts.Check(err)
	var before map[string][32]byte
	ts.Check(json.Unmarshal(data, &before))
	now, err := hashTree(ts.Getenv("ROOT"))
	ts.Check(err)
	if d := diffSnapshots(before, now); len(d) > 0 {
		ts.Fatalf("files changed: %v", d)
	}
}

// errline text: the last command printed exactly one line on stderr,
// "cockpit <cmd>: <reason>", holding text (literally), and nothing on
// stdout.
func cmdErrLine(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: errline text")
	}
	stderr, stdout := ts.ReadFile("stderr"), ts.ReadFile("stdout")
	msg := strings.TrimSuffix(stderr, "\n")
	switch {
	case msg == "" || strings.Contains(msg, "\n") || !strings.HasSuffix(stderr, "\n"):
		ts.Fatalf("want one error line, got %q", stderr)
	case !strings.HasPrefix(msg, "cockpit "):
		ts.Fatalf("error line does not name the command: %q", msg)
	case !strings.Contains(msg, args[0]):
		ts.Fatalf("error line %q does not say %q", msg, args[0])
	case stdout != "":
		ts.Fatalf("stdout %q beside the error", stdout)
	}
}
