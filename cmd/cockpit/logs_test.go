package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/runtime/engine"
	"github.com/okstra/cockpit/state"
)

// lockedLines collects a process's output lines.
type lockedLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *lockedLines) has(sub string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestLogsPrintsAndFollowsTheEngineLog: `cockpit logs` prints the last
// lines of the run's engine log for people (time, level, message, fields
// in order) or as written (--json); -f follows it across a rotation until
// interrupted (exit 0).
func TestLogsPrintsAndFollowsTheEngineLog(t *testing.T) {
	t.Parallel() // waits on cockpit processes of its own
	root := fixture.Copy(t)
	run, err := state.LoadRun(root, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	path := engineLog(run)
	lf, err := engine.OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	log := engine.NewLogger(lf)
	log.Info("pane opened", "pane", "pane-1", "dispatch", "dispatch-004")
	log.Info("dispatch settled", "dispatch", "dispatch-004", "status", "error", "reason", "the CLI exited 1")
	res := cockpit(t, root, nil, runArgs(root, "logs", "-n", "1")...)
	if res.code != 0 {
		t.Fatalf("logs: %d %s", res.code, res.stderr)
	}
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], ` INFO  dispatch settled dispatch=dispatch-004 status=error reason="the CLI exited 1"`) {
		t.Fatalf("logs -n 1 printed %q", res.stdout)
	}
	res = cockpit(t, root, nil, runArgs(root, "logs", "--json")...)
	if n := strings.Count(res.stdout, "\n"); n != 2 || !strings.HasPrefix(res.stdout, `{"time":`) {
		t.Fatalf("logs --json printed %q", res.stdout)
	}

	bg := exec.Command(cockpitBin, runArgs(root, "logs", "-f", "-n", "0")...)
	bg.Dir, bg.Env = root, cockpitEnv(t, nil)
	out, err := bg.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bg.Start(); err != nil {
		t.Fatal(err)
	}
	var got lockedLines
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			got.mu.Lock()
			got.lines = append(got.lines, sc.Text())
			got.mu.Unlock()
		}
	}()
	waitFor(t, "logs -f prints the log", 10*time.Second, func() bool { return got.has("dispatch settled") })
	log.Info("screen attached", "screen", "screen-1")
	waitFor(t, "logs -f prints an appended line", 10*time.Second, func() bool { return got.has("screen attached screen=screen-1") })
	// Rotation: the name now leads to a new file.
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	lf2, err := engine.OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lf2.Close()
	engine.NewLogger(lf2).Info("engine closing: closing every pane")
	waitFor(t, "logs -f follows the rotated log", 10*time.Second, func() bool { return got.has("engine closing") })
	if err := bg.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-read
	if err := bg.Wait(); err != nil {
		t.Fatalf("logs -f after SIGINT: %v", err)
	}
}

// TestLogsRefusesASymlinkedLog: a log planted as a symlink is not read
// through; the error names it.
func TestLogsRefusesASymlinkedLog(t *testing.T) {
	root := fixture.Copy(t)
	run, err := state.LoadRun(root, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "outside"), engineLog(run)); err != nil {
		t.Fatal(err)
	}
	res := cockpit(t, root, nil, runArgs(root, "logs")...)
	if res.code != 1 || !strings.Contains(res.stderr, engineLog(run)+" is a symlink") {
		t.Fatalf("logs of a symlinked log: %d %q", res.code, res.stderr)
	}
}

func TestFlagsLogs(t *testing.T) {
	var got *LogsOptions
	runF := func(o *LogsOptions) error { got = o; return nil }
	f := testFactory(map[string]string{envProjectRoot: "/p", envRunManifest: "m.json"})
	if err := parse(t, NewCmdLogs(f, runF), "-f", "-n", "7", "--json"); err != nil {
		t.Fatal(err)
	}
	if !got.Follow || got.Lines != 7 || !got.JSON || got.Run.ProjectRoot != "/p" || got.Run.RunManifest != "m.json" {
		t.Fatalf("options %+v", got)
	}
	if err := parse(t, NewCmdLogs(f, runF)); err != nil || got.Lines != 50 || got.Follow {
		t.Fatalf("defaults %+v, %v", got, err)
	}
	if err := parse(t, NewCmdLogs(f, runF), "-n", "-1"); !isUsage(err, "--lines -1: give a count of lines, or 0 for the whole log") {
		t.Fatalf("-n -1: %v", err)
	}
	if err := parse(t, NewCmdLogs(f, runF), "extra"); err == nil {
		t.Fatal("an argument was accepted")
	}
}

// TestEngineDaemonLogs: the background engine appends its log through no
// planted symlink (spawning is refused, the link's target untouched), and
// logs as JSON lines to the run's cockpit-engine.log: its start and its
// close.
func TestEngineDaemonLogs(t *testing.T) {
	root := fixture.Copy(t)
	run, err := state.LoadRun(root, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	reg := engineRegistry(t) // stops whatever is left registered there
	t.Setenv("COCKPIT_REGISTRY", reg)
	sock := filepath.Join(reg, "cockpit.sock")
	args := engineArgs(root, fixture.RunManifest, sock, 0, 0, "ctrl+b", nil)
	outside := filepath.Join(root, "outside.txt")
	if err := os.WriteFile(outside, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := engineLog(run)
	if err := os.Symlink(outside, path); err != nil {
		t.Fatal(err)
	}
	if err := spawnEngine(cockpitBin, args, path); err == nil || !strings.Contains(err.Error(), path+" is a symlink") {
		t.Fatalf("spawning with a symlinked log: %v", err)
	}
	if data, _ := os.ReadFile(outside); string(data) != "precious\n" {
		t.Fatalf("the symlink's target was written: %q", data)
	}
	os.Remove(path)
	if err := spawnEngine(cockpitBin, args, path); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the engine logs its start", 10*time.Second, func() bool {
		data, _ := os.ReadFile(path)
		return strings.Contains(string(data), `"msg":"engine started"`)
	})
	if res := cockpit(t, root, nil, "stop", "--socket", sock); res.code != 0 {
		t.Fatalf("stop: %d %s", res.code, res.stderr)
	}
	waitFor(t, "the engine logs its close", 10*time.Second, func() bool {
		data, _ := os.ReadFile(path)
		return strings.Contains(string(data), `"msg":"engine closed"`)
	})
}
