package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
)

// cockpitBin is the binary under test, built once by TestMain.
var cockpitBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cockpit-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cockpitBin = filepath.Join(dir, "cockpit")
	build := exec.Command("go", "build", "-o", cockpitBin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build cockpit: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	fixture.Cleanup()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

// cockpit runs the binary in root with the fake providers first on PATH.
func cockpit(t *testing.T, root string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(cockpitBin, args...)
	cmd.Dir = root
	cmd.Env = append(cleanEnv(), "PATH="+fixture.PathWith(fixture.FakeBin(t)))
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run cockpit %v: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

// cleanEnv is the test's environment without the cockpit's own variables,
// so a developer's shell inside a cockpit pane does not leak into tests.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "COCKPIT_") || strings.HasPrefix(kv, "PATH=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func runArgs(root string, args ...string) []string {
	return append(args, "--project-root", root, "--run-manifest", fixture.RunManifest)
}

// snapshotFiles hashes every file under root.
func snapshotFiles(t *testing.T, root string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			out[rel] = sha256.Sum256([]byte("symlink:" + target))
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = sha256.Sum256(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffSnapshots(a, b map[string][32]byte) []string {
	var d []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			d = append(d, "removed "+k)
		} else if w != v {
			d = append(d, "changed "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, "added "+k)
		}
	}
	return d
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// editJSON rewrites a JSON file of the fixture copy through fn.
func editJSON(t *testing.T, path string, fn func(map[string]any)) {
	t.Helper()
	var doc map[string]any
	readJSONFile(t, path, &doc)
	fn(doc)
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func ledgerLines(t *testing.T, root string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, fixture.LeadEvents))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l == "" {
			continue
		}
		var ev struct {
			ProgressLine string `json:"progressLine"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("ledger line %q: %v", l, err)
		}
		lines = append(lines, ev.ProgressLine)
	}
	return lines
}

// waitFor polls cond until it holds or the deadline passes. Tests use it
// only to wait for another process's effect, never to pace the code under
// test.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
