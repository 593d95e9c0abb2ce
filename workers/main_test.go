package workers

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/state"
)

// envTestMain makes the test binary act as the cockpit binary's `worker exec`
// and `worker sim` commands, so the wrapper runs as a real process (signals
// to it are real) and the sim provider's argv, which runs os.Executable(),
// reaches RunSim.
const envTestMain = "COCKPIT_WORKERS_TEST_MAIN"

// testGrace is the kill grace the wrapper processes of these tests use.
const testGrace = 500 * time.Millisecond

func TestMain(m *testing.M) {
	if os.Getenv(envTestMain) == "1" && len(os.Args) > 2 && os.Args[1] == "worker" {
		switch os.Args[2] {
		case "exec":
			os.Exit(Exec(os.Args[3:], os.Stdin, os.Stdout, os.Stderr))
		case "sim":
			os.Exit(RunSim(os.Args[3:], os.Stdin, os.Stdout, os.Stderr))
		}
		fmt.Fprintf(os.Stderr, "test main: unknown worker command %q\n", os.Args[2])
		os.Exit(2)
	}
	// No test may read the developer's own providers.json.
	cfg, err := os.MkdirTemp("", "workers-config-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "make temp dir:", err)
		os.Exit(1)
	}
	os.Setenv("XDG_CONFIG_HOME", cfg)
	// The parallel tests wait on wrappers and fake CLIs (idle timeouts,
	// signal escalations): -short runs eight at a time.
	testenv.ParallelShort(8)
	code := testenv.Private(m).Run()
	_ = os.RemoveAll(cfg)
	fixture.Cleanup()
	os.Exit(code)
}

// syncBuffer is a bytes.Buffer safe to write from a process's copier and
// read from the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// wrapper is a `worker exec` process under test.
type wrapper struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	done           chan struct{}
	code           int
	started        time.Time
}

// wrapperEnv is the environment of a wrapper process: the fakes first on
// PATH, a short kill grace, and the test-main switch.
func wrapperEnv(t *testing.T, extra ...string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PATH" || k == EnvKillGrace || k == envTestMain || k == "GORACE" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"PATH="+fixture.PathWith(fixture.FakeBin(t)),
		EnvKillGrace+"="+testGrace.String(),
		envTestMain+"=1",
		// A race-enabled binary otherwise sleeps a second before exiting 0.
		"GORACE=atexit_sleep_ms=0",
	)
	return append(env, extra...)
}

// startWrapper starts `worker exec args...` as a process of its own.
func startWrapper(t *testing.T, env []string, args ...string) *wrapper {
	t.Helper()
	w := &wrapper{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	w.cmd = exec.Command(os.Args[0], append([]string{"worker", "exec"}, args...)...)
	w.cmd.Env = env
	w.cmd.Stdout, w.cmd.Stderr = w.stdout, w.stderr
	w.started = time.Now()
	if err := w.cmd.Start(); err != nil {
		t.Fatalf("start wrapper: %v", err)
	}
	go func() {
		_ = w.cmd.Wait()
		w.code = w.cmd.ProcessState.ExitCode()
		if ws, ok := w.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			w.code = 128 + int(ws.Signal())
		}
		close(w.done)
	}()
	t.Cleanup(func() {
		select {
		case <-w.done:
		default:
			_ = w.cmd.Process.Kill()
			<-w.done
		}
	})
	return w
}

// wait waits for the wrapper to exit and returns its exit status.
func (w *wrapper) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	timeout = testenv.Scale(timeout)
	select {
	case <-w.done:
		return w.code
	case <-time.After(timeout):
		t.Fatalf("wrapper still running after %v\nstdout:\n%s\nstderr:\n%s", timeout, w.stdout, w.stderr)
	}
	return -1
}

// runWrapper runs `worker exec args...` to the end.
func runWrapper(t *testing.T, env []string, args ...string) *wrapper {
	t.Helper()
	w := startWrapper(t, env, args...)
	w.wait(t, 30*time.Second)
	return w
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	timeout = testenv.Scale(timeout) // longer under -race and under load
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// gated is the fake behaviour that works until the test releases it
// (release(t, root, name)): "until-<name>", released anyway when t ends so
// that a failed test leaves no fake working.
func gated(t *testing.T, root, name string) string {
	t.Cleanup(func() { os.WriteFile(filepath.Join(root, name), nil, 0o644) })
	return "until-" + name
}

// release lets the fake that gated(t, root, name) holds finish.
func release(t *testing.T, root, name string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, name), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readSidecar reads the sidecar of prompt (absolute), failing the test when
// it cannot be read; nil when it does not exist.
func readSidecar(t *testing.T, prompt string) *state.Sidecar {
	t.Helper()
	sc, err := state.ReadSidecar(state.SidecarPath(prompt), prompt)
	if err != nil {
		t.Fatalf("read sidecar: %v", err)
	}
	return sc
}

// waitChild waits until the sidecar of prompt says started with a child pid
// and returns it.
func waitChild(t *testing.T, prompt string) *state.Sidecar {
	t.Helper()
	var sc *state.Sidecar
	waitFor(t, "a started sidecar with childPid", 15*time.Second, func() bool {
		s, err := state.ReadSidecar(state.SidecarPath(prompt), prompt)
		if err == nil && s != nil && s.Status == state.StatusStarted && s.ChildPID > 0 {
			sc = s
			return true
		}
		return false
	})
	return sc
}

// waitLog waits until the log of prompt contains want.
func waitLog(t *testing.T, prompt, want string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%q in the log", want), 15*time.Second, func() bool {
		data, _ := os.ReadFile(state.LogPath(prompt))
		return strings.Contains(string(data), want)
	})
}

func readLog(t *testing.T, prompt string) string {
	t.Helper()
	data, err := os.ReadFile(state.LogPath(prompt))
	if err != nil {
		t.Fatalf("read log: %v", err)
	}
	return string(data)
}

// terminal checks the sidecar of prompt is terminal with status and exit
// code, and that its reason contains every fragment.
func terminal(t *testing.T, prompt string, status state.Status, code int, fragments ...string) *state.Sidecar {
	t.Helper()
	sc := readSidecar(t, prompt)
	if sc == nil {
		t.Fatalf("no sidecar at %s", state.SidecarPath(prompt))
	}
	if sc.Status != status {
		t.Fatalf("sidecar status = %q (reason %q), want %q", sc.Status, sc.Reason, status)
	}
	if sc.ExitCode == nil || *sc.ExitCode != code {
		t.Fatalf("sidecar exitCode = %v, want %d", sc.ExitCode, code)
	}
	if sc.EndedAt == "" {
		t.Fatalf("terminal sidecar has no endedAt")
	}
	for _, f := range fragments {
		if !strings.Contains(sc.Reason, f) {
			t.Fatalf("sidecar reason %q does not contain %q", sc.Reason, f)
		}
	}
	return sc
}

// groupGone reports whether no process of group pgid is left.
func groupGone(pgid int) bool {
	if syscall.Kill(-pgid, 0) == syscall.ESRCH {
		return true
	}
	// Killed members of an orphaned group stay zombies until init reaps
	// them (which some containers' init never does): those are gone too.
	// Wait a moment for the kill to land, then look at what is left.
	deadline := time.Now().Add(2 * time.Second)
	for {
		if liveMembers(pgid) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// liveMembers counts the processes of group pgid that are not zombies.
func liveMembers(pgid int) int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces.
		rest := string(data[strings.LastIndexByte(string(data), ')')+2:])
		f := strings.Fields(rest)
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			n++
		}
	}
	return n
}

// abs joins a project-relative path to root.
func abs(root, rel string) string { return filepath.Join(root, rel) }

// codexArgs are the wrapper arguments that run the fixture's codex job
// without invocation metadata.
func codexArgs(root string, extra ...string) []string {
	return append([]string{"codex", root, "gpt-6.1-sol", abs(root, fixture.CodexPrompt)}, extra...)
}

// writeFile writes data to root/rel, creating directories.
func writeFile(t *testing.T, root, rel, data string) string {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// noRunFiles fails when the wrapper left a sidecar or log for prompt.
func noRunFiles(t *testing.T, prompt string) {
	t.Helper()
	for _, p := range []string{state.SidecarPath(prompt), state.LogPath(prompt)} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s exists after a refused preflight", p)
		}
	}
}
