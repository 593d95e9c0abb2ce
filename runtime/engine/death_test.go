package engine

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/workers"
)

// dyingEngineEnv names what a child engine that is killed serves
// (TestMain): "<project root>\n<run manifest>\n<prompt>\n<fake bin dir>\n<config dir>".
const dyingEngineEnv = "COCKPIT_TEST_DYING_ENGINE"

// wrapperEnv makes the test binary `cockpit worker exec` (TestMain).
const wrapperEnv = "COCKPIT_TEST_WRAPPER"

// runWrapper is `cockpit worker exec` when the test binary is started as
// one in a pane.
func runWrapper() {
	if os.Getenv(wrapperEnv) == "1" && len(os.Args) > 2 && os.Args[1] == "worker" && os.Args[2] == "exec" {
		os.Exit(workers.Exec(os.Args[3:], os.Stdin, os.Stdout, os.Stderr))
	}
}

// runDyingEngine is the child of TestEngineDeathIsNotAClosedPane: an
// engine with one worker pane running the real wrapper on the fake codex,
// serving until it is killed.
func runDyingEngine(spec string) {
	f := strings.Split(spec, "\n")
	run, err := state.LoadRun(f[0], f[1])
	if err != nil {
		fmt.Println("child:", err)
		os.Exit(1)
	}
	c, err := Start(Config{Run: run, NoServer: true})
	if err != nil {
		fmt.Println("child:", err)
		os.Exit(1)
	}
	res, err := c.OpenPane(control.OpenPaneParams{
		Argv:  []string{os.Args[0], "worker", "exec", "codex", f[0], "gpt-6.1-sol", f[2], "--presentation", "quiet"},
		Env:   []string{"PATH=" + fixture.PathWith(f[3]), "XDG_CONFIG_HOME=" + f[4], wrapperEnv + "=1", "GORACE=atexit_sleep_ms=0"},
		Title: "Codex analyser", DispatchID: "dispatch-002",
	})
	if err != nil {
		fmt.Println("child:", err)
		os.Exit(1)
	}
	fmt.Println("ready", res.PID)
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	os.Exit(0)
}

// TestEngineDeathIsNotAClosedPane: when the engine dies (SIGKILL) its
// panes' terminals hang up and the wrappers in them get SIGHUP, as when a
// pane is closed; the wrapper's terminal status says the engine died, not
// "the pane was closed" (issue 19, "reasons that mislead").
func TestEngineDeathIsNotAClosedPane(t *testing.T) {
	root := fixture.Copy(t)
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, "hang")
	prompt := filepath.Join(root, fixture.CodexPrompt)
	child, stdin, line := startChild(t, dyingEngineEnv+"="+strings.Join([]string{root, fixture.RunManifest, prompt, fixture.FakeBin(t), t.TempDir()}, "\n"))
	defer stdin.Close()
	killed := false
	t.Cleanup(func() {
		if !killed {
			_ = child.Process.Kill()
			_ = child.Wait()
		}
	})
	var wrapper int
	if _, err := fmt.Sscanf(line, "ready %d", &wrapper); err != nil {
		t.Fatalf("the child engine did not start: %q %v", line, err)
	}
	t.Cleanup(func() { _ = syscall.Kill(wrapper, syscall.SIGKILL) })
	sidecar := state.SidecarPath(prompt)
	testenv.Wait(t, "the worker's CLI runs", 15*time.Second, func() bool {
		sc, err := state.ReadSidecar(sidecar, fixture.CodexPrompt)
		return err == nil && sc != nil && sc.Status == state.StatusStarted && sc.ChildPID > 0
	})
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	killed = true
	var sc *state.Sidecar
	var err error
	testenv.Wait(t, "the wrapper's terminal status", 15*time.Second, func() bool {
		sc, err = state.ReadSidecar(sidecar, fixture.CodexPrompt)
		return err == nil && sc != nil && state.IsTerminal(sc.Status)
	})
	if sc.Status != state.StatusError || !strings.HasPrefix(sc.Reason, "wrapper got SIGHUP (the cockpit engine or dispatcher that ran it died)") {
		t.Fatalf("after the engine's death the sidecar says %s: %q; want the engine's death named, not a closed pane", sc.Status, sc.Reason)
	}
}

// TestClosedPaneIsAClosedPane: a worker pane the engine closes on purpose
// (reclaim, teardown) ends its wrapper with "the pane was closed": its
// SIGHUP comes while the pane's terminal is still open, which tells it
// from the engine's death.
func TestClosedPaneIsAClosedPane(t *testing.T) {
	t.Parallel() // beside TestFrozenEventsClientIsDropped's wait
	root := fixture.Copy(t)
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, "hang")
	prompt := filepath.Join(root, fixture.CodexPrompt)
	run, err := state.LoadRun(root, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Start(Config{Run: run, NoServer: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.OpenPane(control.OpenPaneParams{
		Argv:  []string{os.Args[0], "worker", "exec", "codex", root, "gpt-6.1-sol", prompt, "--presentation", "quiet"},
		Env:   []string{"PATH=" + fixture.PathWith(fixture.FakeBin(t)), "XDG_CONFIG_HOME=" + t.TempDir(), wrapperEnv + "=1", "GORACE=atexit_sleep_ms=0"},
		Title: "Codex analyser", DispatchID: "dispatch-002",
	})
	if err != nil {
		t.Fatal(err)
	}
	sidecar := state.SidecarPath(prompt)
	testenv.Wait(t, "the worker's CLI runs", 15*time.Second, func() bool {
		sc, err := state.ReadSidecar(sidecar, fixture.CodexPrompt)
		return err == nil && sc != nil && sc.Status == state.StatusStarted && sc.ChildPID > 0
	})
	if closed, err := c.ClosePanes(control.ClosePanesParams{PaneIDs: []string{res.PaneID}, Reason: "test"}); err != nil || len(closed.Closed) != 1 {
		t.Fatalf("close-panes: %v %v", closed, err)
	}
	sc, err := state.ReadSidecar(sidecar, fixture.CodexPrompt)
	if err != nil || sc == nil || !state.IsTerminal(sc.Status) {
		t.Fatalf("after its pane closed the sidecar is %+v (%v)", sc, err)
	}
	if !strings.HasPrefix(sc.Reason, "wrapper got SIGHUP (the pane was closed)") {
		t.Fatalf("a pane closed on purpose: the sidecar says %q", sc.Reason)
	}
}
