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

	"github.com/rogpeppe/go-internal/testscript"
	"go.uber.org/goleak"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/testenv"
)

// cockpitBin is the cockpit under test: this test binary, which
// testscript.Main puts on PATH as "cockpit" and which, started under that
// name (or as "okstra", through the shim the cockpit makes), runs the real
// main. No go build: the tests run the code they were compiled with.
var cockpitBin string

func TestMain(m *testing.M) {
	if os.Getenv(envBenchPane) != "" { // a pane program of the attached-screen benchmarks
		os.Exit(benchPaneMain(os.Args[1:]))
	}
	if isOkstraName(os.Args[0]) { // the okstra shim is a symlink to cockpitBin
		main()
	}
	testscript.Main(testenv.Private(setupM{m}), map[string]func(){"cockpit": main})
}

// setupM finds the cockpit testscript.Main installed before the tests run;
// after them it removes the fake providers and fails the run if a
// goroutine outlived the tests (Main in process, the engine's helpers).
type setupM struct{ m *testing.M }

func (s setupM) Run() int {
	p, err := exec.LookPath("cockpit")
	if err != nil {
		fmt.Fprintln(os.Stderr, "find the cockpit testscript installed:", err)
		return 1
	}
	cockpitBin = p
	defer fixture.Cleanup()
	// The parallel tests wait on cockpit processes, fake workers and
	// engines: -short runs eight at a time.
	testenv.ParallelShort(8)
	code := s.m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak: goroutines outlived the tests:", err)
			return 1
		}
	}
	return code
}

type result struct {
	stdout, stderr string
	code           int
}

// cockpit runs the binary in root with the fake providers first on PATH.
func cockpit(t *testing.T, root string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(cockpitBin, args...)
	cmd.Dir, cmd.Env = root, cockpitEnv(t, env)
	return runProcess(t, cmd)
}

// cockpitEnv is the environment the tests run the cockpit in: the test's
// own without the cockpit's variables, the fake providers first on PATH,
// then env.
func cockpitEnv(t testing.TB, env []string) []string {
	return append(append(cleanEnv(), "PATH="+fixture.PathWith(fixture.FakeBin(t))), env...)
}

// runProcess runs cmd to its end: its output and exit status.
func runProcess(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", cmd.Args, err)
	}
	return result{out.String(), errb.String(), code}
}

// startDispatch starts `cockpit worker-dispatch` on the run's initial jobs
// in the background and waits for it at the end of the test.
func startDispatch(t *testing.T, root string) *exec.Cmd {
	t.Helper()
	bg := exec.Command(cockpitBin, runArgs(root, "worker-dispatch", "--jobs-file", fixture.JobsInitial)...)
	bg.Dir, bg.Env = root, cockpitEnv(t, nil)
	if err := bg.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bg.Wait() })
	return bg
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
	out, err := hashTree(root)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// hashTree hashes every file under root (a symlink by its target), by
// root-relative path.
func hashTree(root string) (map[string][32]byte, error) {
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
	return out, err
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

// pollEvery is how often poll looks again.
const pollEvery = 20 * time.Millisecond

// poll looks at cond until it holds (true) or d passes (false): the one
// wait-until of these tests. They use it only to wait for another
// process's effect, never to pace the code under test.
func poll(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(testenv.Scale(d))
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
	return true
}

// waitFor polls cond until it holds, failing the test after d.
func waitFor(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	if !poll(d, cond) {
		t.Fatalf("timed out after %s waiting for %s", d, what)
	}
}
