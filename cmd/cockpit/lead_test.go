package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/watch"
	"github.com/okstra/cockpit/state"
)

// leadSession is `cockpit open` on a run in a real terminal (tmux), its
// lead pane running a shell script that drives the lead contract step by
// step: the script writes <step>.done when a step is over and waits for a
// file the test writes (proceed) before the next; each command's output
// and status land in <name>.out and <name>.code in work.
type leadSession struct {
	t          *testing.T
	s          *tmuxSession
	root, work string
	exit       string // the file the screen's exit status lands in
	registry   string // the test's own engine registry (COCKPIT_REGISTRY)
}

// openLead writes script(work) into a new work dir and opens the cockpit
// on root with it as the lead, in a cols×rows terminal, PATH set to path,
// env added.
func openLead(t *testing.T, root string, env []string, path string, cols, rows int, script func(work string) string) *leadSession {
	t.Helper()
	l := &leadSession{t: t, root: root, work: t.TempDir(), exit: exitFile(t), registry: engineRegistry(t)}
	lead := filepath.Join(l.work, "lead.sh")
	if err := os.WriteFile(lead, []byte(script(l.work)), 0o755); err != nil {
		t.Fatal(err)
	}
	env = append(env, "COCKPIT_REGISTRY="+l.registry)
	l.s = newTmux(t, cols, rows, nil, fmt.Sprintf("cd %s && env PATH=%s %s %s open --project-root %s --run-manifest %s --lead -- /bin/sh %s; echo $? > %s; sleep 600",
		l.work, path, strings.Join(env, " "), cockpitBin, root, fixture.RunManifest, lead, l.exit))
	return l
}

// engineRegistry is a test's own engine registry; when the test ends,
// every engine still registered there is stopped (SIGTERM: it closes its
// panes) and waited for.
func engineRegistry(t testing.TB) string {
	t.Helper()
	dir := testenv.ShortDir(t)
	t.Cleanup(func() {
		for _, pid := range registeredPIDs(dir) {
			_ = syscall.Kill(pid, syscall.SIGTERM)
			if !poll(30*time.Second, func() bool { return !watch.ProcessAlive(pid) }) {
				t.Errorf("engine pid %d outlived its test's SIGTERM", pid)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return dir
}

// registeredPIDs are the pids of the live engines in a registry dir (the
// entries whose lock is held).
func registeredPIDs(dir string) []int {
	des, _ := os.ReadDir(dir)
	var pids []int
	for _, de := range des {
		name := de.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		f.Close()
		if err == nil {
			continue // nobody holds it: a stale entry
		}
		if pid, err := strconv.Atoi(strings.TrimSuffix(name, ".json")); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitEngineGone waits until no engine is registered for the test.
func (l *leadSession) waitEngineGone() {
	l.t.Helper()
	waitFor(l.t, "the engine to exit", 30*time.Second, func() bool { return len(registeredPIDs(l.registry)) == 0 })
}

// file is a file the lead wrote in work ("" if none yet).
func (l *leadSession) file(name string) string {
	data, _ := os.ReadFile(filepath.Join(l.work, name))
	return string(data)
}

// waitStep waits until the lead finished step name.
func (l *leadSession) waitStep(name string) {
	l.t.Helper()
	defer func() {
		if l.t.Failed() {
			l.t.Logf("d1.out: %s\nscreen:\n%s", l.file("d1.out"), l.s.screen())
		}
	}()
	waitFor(l.t, "the lead's step "+name, 60*time.Second, func() bool {
		_, err := os.Stat(filepath.Join(l.work, name+".done"))
		return err == nil
	})
}

// proceed lets the lead go on past the wait for name.
func (l *leadSession) proceed(name string) {
	l.t.Helper()
	if err := os.WriteFile(filepath.Join(l.work, name), nil, 0o644); err != nil {
		l.t.Fatal(err)
	}
}

// ok fails unless every named lead command exited 0.
func (l *leadSession) ok(names ...string) {
	l.t.Helper()
	for _, n := range names {
		if code := strings.TrimSpace(l.file(n + ".code")); code != "0" {
			l.t.Fatalf("the lead's %s exited %s:\n%s", n, code, l.file(n+".out"))
		}
	}
}

// sidecarDone reports whether the worker of prompt wrote a terminal
// sidecar.
func (l *leadSession) sidecarDone(prompt string) bool {
	sc, _ := state.ReadSidecar(filepath.Join(l.root, state.SidecarPath(prompt)), "s")
	return sc != nil && state.IsTerminal(sc.Status)
}

// progressLines are the PROGRESS lines of a command's output.
func progressLines(out string) []string {
	// The JSON commands (team dispatch by default, worker-dispatch, --json):
	// their progressLines.
	var doc struct {
		ProgressLines []string `json:"progressLines"`
	}
	if t := strings.TrimSpace(out); strings.HasPrefix(t, "{") && json.Unmarshal([]byte(t), &doc) == nil {
		return doc.ProgressLines
	}
	var ls []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "PROGRESS: ") {
			ls = append(ls, l)
		}
	}
	return ls
}
