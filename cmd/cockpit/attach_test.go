package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/state"
)

// detachScript is the lead of TestDetachAndAttach: a batch of slow
// workers, then (after go1) await, reclaim and a verifier that hangs, then
// whatever reaches the lead pane's input lands in typed.txt.
const detachScript = `#!/bin/sh
set -u
cd %[4]s
step() { : > "$1.done"; while [ ! -f "$2" ]; do sleep 0.05; done; }
cockpit team dispatch --jobs-file %[2]s > d1.out 2>&1
step s1 go1
cockpit team await > a1.out 2>&1
cockpit team reclaim > r1.out 2>&1
cockpit team dispatch --dispatch-kind reverify-r1 --jobs-file %[3]s > d2.out 2>&1
: > s2.done
exec cat > typed.txt
`

// waitJoined waits for text on the screen with its rows joined (a long
// line the terminal wrapped: capture-pane -J joins it as written, keeping
// a space it wrapped at) and returns that screen.
func (s *tmuxSession) waitJoined(text string, d time.Duration) string {
	s.t.Helper()
	var scr string
	if !poll(d, func() bool { scr = s.screen("-J"); return strings.Contains(strings.ReplaceAll(scr, "\n", ""), text) }) {
		s.t.Fatalf("timed out after %s waiting for %q; screen:\n%s", d, text, scr)
	}
	return scr
}

// engineList is `cockpit ls --json` for the test's registry.
func engineList(t *testing.T, reg string) []engineInfo {
	t.Helper()
	res := cockpit(t, t.TempDir(), []string{"COCKPIT_REGISTRY=" + reg}, "ls", "--json")
	if res.code != 0 {
		t.Fatalf("ls --json: %d %s", res.code, res.stderr)
	}
	var infos []engineInfo
	if err := json.Unmarshal([]byte(res.stdout), &infos); err != nil {
		t.Fatalf("ls --json printed %q: %v", res.stdout, err)
	}
	return infos
}

// attachClient runs `cockpit attach args...` in its own terminal (tmux
// server) on the test's registry; its exit status lands in the returned
// file.
func attachClient(t *testing.T, reg string, cols, rows int, args ...string) (*tmuxSession, string) {
	t.Helper()
	exit := exitFile(t)
	return newTmux(t, cols, rows, nil, fmt.Sprintf("env COCKPIT_REGISTRY=%s %s attach %s; echo $? > %s; sleep 600",
		reg, cockpitBin, strings.Join(args, " "), exit)), exit
}

// TestDetachAndAttach is issue 11's run that outlives its terminal, in real
// terminals: open with a lead that dispatches slow workers; ctrl+b d — the
// client exits 0 with the line that says how to come back, and the workers
// go on to completed sidecars; ls shows the engine; attach shows the same
// titles and timeline; a second, read-only client at another size cannot
// type into the lead pane while the first can; killing the read-only
// client's terminal leaves the engine and its panes alone; a second open
// attaches and says its lead command is ignored; q e ends the run:
// terminal sidecars, no engine, no socket.
func TestDetachAndAttach(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root, env := paneRun(t)
	sock := strings.TrimPrefix(env[0], "COCKPIT_SOCKET=")
	// The workers work until the test releases them, once the client has
	// detached: they go on, and complete, without a screen.
	for _, p := range []string{fixture.CodexPrompt, fixture.AntigravityPrompt, fixture.ClaudePrompt} {
		fixture.SetBehaviour(t, root, p, "until-workers.release")
	}
	releaseWorkers := func() {
		if err := os.WriteFile(filepath.Join(root, "workers.release"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.WriteFile(filepath.Join(root, "workers.release"), nil, 0o644) })
	fixture.SetBehaviour(t, root, fixture.ReverifyPrompt, "hang")
	l := openLead(t, root, env, fixture.PathWith(fixture.FakeBin(t)), 160, 48, func(work string) string {
		return fmt.Sprintf(detachScript, fixture.RunManifest, fixture.JobsInitial, fixture.JobsReverify, work)
	})
	s, reg := l.s, l.registry
	titles := func(scr string) bool {
		return titleLine(scr, "Codex analyser") != "" && titleLine(scr, "Antigravity analyser") != "" && titleLine(scr, "Claude analyser") != ""
	}
	l.waitStep("s1")
	s.waitScreen("three worker panes", 10*time.Second, titles)
	if l.sidecarDone(fixture.ClaudePrompt) {
		t.Fatal("a slow worker finished before the detach; the test cannot show they go on")
	}

	// 1. Detach: the client exits 0 and says how to come back.
	s.keys("C-b", "d")
	if code := readExit(t, l.exit, 20*time.Second); code != "0" {
		t.Fatalf("open exited %s after ctrl+b d:\n%s", code, s.screen())
	}
	scr := s.waitJoined("ends the run", 5*time.Second)
	if want := fmt.Sprintf("detached from dev-10860-002 (%s); `cockpit attach dev-10860-002` comes back, `cockpit stop dev-10860-002` ends the run", fixture.RunManifest); !strings.Contains(strings.ReplaceAll(scr, "\n", ""), want) {
		t.Errorf("the come-back line is not %q:\n%s", want, scr)
	}
	// The workers go on without a screen.
	releaseWorkers()
	waitFor(t, "the workers to complete while detached", 40*time.Second, func() bool {
		return l.sidecarDone(fixture.CodexPrompt) && l.sidecarDone(fixture.AntigravityPrompt) && l.sidecarDone(fixture.ClaudePrompt)
	})
	for _, p := range []string{fixture.CodexPrompt, fixture.AntigravityPrompt, fixture.ClaudePrompt} {
		sc, _ := state.ReadSidecar(filepath.Join(root, state.SidecarPath(p)), "s")
		if sc == nil || sc.Status != state.StatusCompleted {
			t.Fatalf("%s: sidecar %+v, want completed", p, sc)
		}
	}

	// 2. ls shows the engine, with no screen.
	infos := engineList(t, reg)
	if len(infos) != 1 || infos[0].RunManifest != fixture.RunManifest || infos[0].ProjectRoot != root || infos[0].Screens != 0 || infos[0].Panes != 4 || infos[0].Error != "" {
		t.Fatalf("ls --json: %+v", infos)
	}
	pid := infos[0].PID

	// 3. attach (no flags: the only engine) shows the same titles and the timeline.
	a, exitA := attachClient(t, reg, 160, 48)
	a.waitScreen("the worker panes again", 10*time.Second, titles)
	a.waitFor("phase-4-dispatch worker=Claude worker", 10*time.Second)
	l.proceed("go1")
	l.waitStep("s2")
	a.waitScreen("the verifier pane", 20*time.Second, func(scr string) bool {
		return titleLine(scr, "Codex verifier") != "" && titleLine(scr, "Claude analyser") == ""
	})

	// 4. A read-only client at another size: it shows the panes, and
	// cannot type into the lead pane.
	b, exitB := attachClient(t, reg, 100, 30, "--read-only")
	scrB := b.waitScreen("the verifier pane on the read-only client", 10*time.Second, func(scr string) bool {
		return titleLine(scr, "Codex verifier") != "" && strings.Contains(scr, "read-only")
	})
	for i, line := range strings.Split(strings.TrimRight(scrB, "\n"), "\n") {
		if w := len([]rune(line)); w > 100 {
			t.Errorf("row %d of the 100-column client is %d wide", i, w)
		}
	}
	if n := engineList(t, reg)[0].Screens; n != 2 {
		t.Errorf("ls counts %d screens, want 2", n)
	}
	b.keys("Enter")
	b.waitFor("read-only screen", 5*time.Second)
	b.typeText("from-b")
	b.keys("Enter")
	// The writable client types into the lead pane (focused at start).
	a.keys("Enter")
	a.typeText("from-a")
	a.keys("Enter")
	waitFor(t, "the writable client's line in the lead's input", 10*time.Second, func() bool {
		return strings.Contains(l.file("typed.txt"), "from-a")
	})
	if got := l.file("typed.txt"); strings.Contains(got, "from-b") {
		t.Fatalf("the read-only client typed into the lead pane: %q", got)
	}
	a.keys("C-b")

	// 5. Killing the read-only client's terminal leaves the engine alone.
	if out, err := b.cmd("kill-server").CombinedOutput(); err != nil {
		t.Fatalf("kill the read-only client's tmux: %v: %s", err, out)
	}
	waitFor(t, "the killed client's screen to go", 10*time.Second, func() bool {
		in := engineList(t, reg)
		return len(in) == 1 && in[0].Screens == 1
	})
	if in := engineList(t, reg); in[0].PID != pid || in[0].Panes != 2 {
		t.Fatalf("after a client's terminal was killed: %+v (engine pid %d before)", in, pid)
	}
	_ = exitB
	if l.sidecarDone(fixture.ReverifyPrompt) {
		t.Fatal("the hanging verifier ended when a client's terminal was killed")
	}

	// 6. open on a run an engine serves attaches to it, saying its lead
	// command is not used.
	exitC := exitFile(t)
	c := newTmux(t, 120, 40, nil, fmt.Sprintf("env PATH=%s %s COCKPIT_REGISTRY=%s %s open --project-root %s --run-manifest %s --lead -- /bin/false; echo $? > %s; sleep 600",
		fixture.PathWith(fixture.FakeBin(t)), strings.Join(env, " "), reg, cockpitBin, root, fixture.RunManifest, exitC))
	c.waitScreen("the verifier pane on the second open", 10*time.Second, func(scr string) bool { return titleLine(scr, "Codex verifier") != "" })
	c.keys("C-b", "d")
	if code := readExit(t, exitC, 20*time.Second); code != "0" {
		t.Fatalf("the second open exited %s after ctrl+b d", code)
	}
	c.waitJoined("the lead command is ignored", 5*time.Second)
	if in := engineList(t, reg); len(in) != 1 || in[0].PID != pid {
		t.Fatalf("a second open started an engine: %+v", in)
	}

	// 7. q e ends the run: every pane closed with a terminal sidecar, the
	// engine gone with its socket.
	a.keys("q")
	a.waitFor("Detach, or end the run?", 5*time.Second)
	a.keys("e")
	if code := readExit(t, exitA, 30*time.Second); code != "0" {
		t.Fatalf("attach exited %s after q e:\n%s", code, a.screen())
	}
	l.waitEngineGone()
	if !l.sidecarDone(fixture.ReverifyPrompt) {
		t.Error("the verifier has no terminal sidecar after the run ended")
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("the socket %s is still there (%v)", sock, err)
	}
	if in := engineList(t, reg); len(in) != 0 {
		t.Errorf("ls after the run ended: %+v", in)
	}
}

// TestEngineKilledUnderAClient: SIGKILL of the engine ends an attached
// client with one line and a non-zero status, and the next open
// reconciles the run (a new engine settles what the dead one left).
func TestEngineKilledUnderAClient(t *testing.T) {
	t.Parallel()
	root, env := paneRun(t)
	fixture.Behaviours{Codex: "hang", Antigravity: "ok", Claude: "ok"}.Set(t, root)
	l := openLead(t, root, env, fixture.PathWith(fixture.FakeBin(t)), 120, 40, func(work string) string {
		return fmt.Sprintf("#!/bin/sh\ncd %s\ncockpit team dispatch --jobs-file %s > d1.out 2>&1\n: > s1.done\nexec sleep 600\n", work, fixture.JobsInitial)
	})
	l.waitStep("s1")
	l.s.waitScreen("the worker panes", 10*time.Second, func(scr string) bool { return titleLine(scr, "Codex analyser") != "" })
	pids := registeredPIDs(l.registry)
	if len(pids) != 1 {
		t.Fatalf("registered engines: %v", pids)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := readExit(t, l.exit, 20*time.Second); code == "0" {
		t.Fatalf("open exited 0 when its engine was killed")
	}
	scr := l.s.waitJoined("the engine is gone", 5*time.Second)
	if !strings.Contains(strings.ReplaceAll(scr, "\n", ""), "cockpit open --project-root "+root) {
		t.Errorf("the client does not say how to reconcile:\n%s", scr)
	}
	// The next open reconciles: a new engine, the hung worker's dispatch
	// settled or followed, the screen up.
	exit := exitFile(t)
	s := newTmux(t, 120, 40, nil, fmt.Sprintf("cd %s && env PATH=%s %s COCKPIT_REGISTRY=%s %s open --project-root %s --run-manifest %s; echo $? > %s; sleep 600",
		l.work, fixture.PathWith(fixture.FakeBin(t)), strings.Join(env, " "), l.registry, cockpitBin, root, fixture.RunManifest, exit))
	s.waitFor("● 1 lead", 20*time.Second)
	waitFor(t, "a new engine", 10*time.Second, func() bool { p := registeredPIDs(l.registry); return len(p) == 1 && p[0] != pids[0] })
	s.keys("C-b", "q") // the screen types into the lead: prefix first
	s.waitFor("Detach, or end the run?", 5*time.Second)
	s.keys("e")
	if code := readExit(t, exit, 30*time.Second); code != "0" {
		t.Fatalf("the second open exited %s after q e", code)
	}
	l.waitEngineGone()
	ts := readTeamState(t, root)
	for _, d := range ts.WorkerDispatches {
		if !state.IsTerminal(d.Status) {
			t.Errorf("%s is %s after the run ended", d.DispatchID, d.Status)
		}
	}
}

// TestServeListedAndStopped: two `serve` engines register; ls lists both
// with their status; attach and stop without flags refuse to choose (exit
// 2, the engines listed on stderr); stop --socket ends one — serve exits 0
// once it is gone — and ls lists the other; with none left, attach and stop
// say so (exit 1).
func TestServeListedAndStopped(t *testing.T) {
	t.Parallel()
	reg := engineRegistry(t)
	rootA, envA := paneRun(t)
	rootB, envB := paneRun(t)
	a := startServe(t, rootA, append(envA, "COCKPIT_REGISTRY="+reg))
	b := startServe(t, rootB, append(envB, "COCKPIT_REGISTRY="+reg))
	regEnv := []string{"COCKPIT_REGISTRY=" + reg}
	infos := engineList(t, reg)
	if len(infos) != 2 {
		t.Fatalf("ls lists %d engines: %+v", len(infos), infos)
	}
	roots := map[string]bool{}
	for _, in := range infos {
		roots[in.ProjectRoot] = true
		if in.Error != "" || in.RunManifest != fixture.RunManifest || in.Panes != 0 || in.Screens != 0 || in.Gates == nil || in.Started.IsZero() {
			t.Errorf("ls: %+v", in)
		}
	}
	if !roots[rootA] || !roots[rootB] {
		t.Fatalf("ls lists roots %v, want %s and %s", roots, rootA, rootB)
	}
	// Two engines of the same run in two projects: the second name gets a
	// suffix, as a second demo's does.
	names := map[string]string{}
	for _, in := range infos {
		names[in.ProjectRoot] = in.Name
	}
	if names[rootA] == names[rootB] || !strings.HasPrefix(names[rootA], "dev-10860-002") || !strings.HasPrefix(names[rootB], "dev-10860-002") {
		t.Fatalf("engine names %v", names)
	}
	plain := cockpit(t, rootA, regEnv, "ls")
	if plain.code != 0 || !strings.Contains(plain.stdout, "DONE") || !strings.Contains(plain.stdout, names[rootA]+" ") || !strings.Contains(plain.stdout, names[rootB]+" ") {
		t.Fatalf("ls: %d\n%s%s", plain.code, plain.stdout, plain.stderr)
	}
	for _, l := range strings.Split(plain.stdout, "\n") {
		if len([]rune(l)) > 80 {
			t.Errorf("ls prints a line of %d columns: %q", len([]rune(l)), l)
		}
	}
	for _, cmd := range []string{"stop", "attach"} {
		several := cockpit(t, rootA, regEnv, cmd)
		if several.code != 2 || !strings.Contains(several.stderr, "cockpit "+cmd+": 2 engines are running; name one: `cockpit "+cmd+" NAME`") || !strings.Contains(several.stderr, names[rootA]) || !strings.Contains(several.stderr, names[rootB]) {
			t.Fatalf("%s with two engines: %d\n%s", cmd, several.code, several.stderr)
		}
		// A prefix both names share is ambiguous; a name nobody has is not found.
		if r := cockpit(t, rootA, regEnv, cmd, "dev-10860"); r.code != 2 || !strings.Contains(r.stderr, `cockpit `+cmd+`: "dev-10860" names 2 engines; give more of the name`) {
			t.Fatalf("%s dev-10860: %d\n%s", cmd, r.code, r.stderr)
		}
		if r := cockpit(t, rootA, regEnv, cmd, "nope"); r.code != 1 || !strings.Contains(r.stderr, `cockpit `+cmd+`: no engine is named "nope" (nor has that pid); running: `) {
			t.Fatalf("%s nope: %d\n%s", cmd, r.code, r.stderr)
		}
	}
	// Without a terminal, attach to a chosen engine says it needs one.
	// (By the socket, the name, or the engine's pid, as tmux -t takes a
	// session's id.)
	for _, args := range [][]string{{"--socket", strings.TrimPrefix(envA[0], "COCKPIT_SOCKET=")}, {names[rootA]}, {fmt.Sprint(a.cmd.Process.Pid)}, {"-t", fmt.Sprint(b.cmd.Process.Pid)}} {
		if r := cockpit(t, rootA, regEnv, append([]string{"attach"}, args...)...); r.code != 1 || !strings.Contains(r.stderr, "cockpit attach: the screen needs a terminal on stdin and stdout") {
			t.Fatalf("attach %v without a terminal: %d %s", args, r.code, r.stderr)
		}
	}
	stop := cockpit(t, rootA, regEnv, "stop", names[rootA], "--json")
	if stop.code != 0 || !strings.Contains(stop.stdout, `"stopped": true`) || !strings.Contains(stop.stdout, `"name": "`+names[rootA]+`"`) {
		t.Fatalf("stop NAME: %d\n%s%s", stop.code, stop.stdout, stop.stderr)
	}
	select {
	case <-a.done:
	case <-time.After(10 * time.Second):
		t.Fatal("serve is still running after stop returned")
	}
	if code := a.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("serve exited %d after stop", code)
	}
	if in := engineList(t, reg); len(in) != 1 || in[0].ProjectRoot != rootB {
		t.Fatalf("ls after one stop: %+v", in)
	}
	// The run's flags (and its COCKPIT_SOCKET, as in its lead pane) name
	// the other one, and stop says so.
	sockB := strings.TrimPrefix(envB[0], "COCKPIT_SOCKET=")
	if r := cockpit(t, rootB, append(regEnv, envB...), runArgs(rootB, "stop")...); r.code != 0 ||
		r.stdout != fmt.Sprintf("stopped the engine %s (pid %d) of %s, resolved from --run-manifest %s and $COCKPIT_SOCKET, %s\n", names[rootB], b.cmd.Process.Pid, fixture.RunManifest, fixture.RunManifest, sockB) {
		t.Fatalf("stop --run-manifest: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	<-b.done
	// Nothing left: stop has nothing to stop, attach points at open and
	// demo, a stop by the run says where it looked.
	if r := cockpit(t, rootA, regEnv, "stop"); r.code != 1 || r.stderr != "cockpit stop: no cockpit engine is running; nothing to stop (`cockpit ls` lists the running ones)\n" {
		t.Errorf("stop with no engine: %d %s", r.code, r.stderr)
	}
	if r := cockpit(t, rootA, regEnv, "attach"); r.code != 1 || !strings.Contains(r.stderr, "cockpit attach: no cockpit engine is running; `cockpit open --project-root <dir> --run-manifest <path>` starts one for a run, `cockpit demo` one to try") {
		t.Errorf("attach with no engine: %d %s", r.code, r.stderr)
	}
	if r := cockpit(t, rootA, regEnv, runArgs(rootA, "stop")...); r.code != 1 || !strings.Contains(r.stderr, "cockpit stop: no engine answers at ") || !strings.Contains(r.stderr, "(resolved from --run-manifest "+fixture.RunManifest+", whose socket is ") {
		t.Errorf("stop --run-manifest with no engine: %d %s", r.code, r.stderr)
	}
	if r := cockpit(t, rootA, regEnv, "ls"); r.code != 0 || !strings.HasPrefix(r.stdout, "no cockpit engine is running") {
		t.Errorf("ls with no engine: %d %q", r.code, r.stdout)
	}
}

// TestOpenEngineFailsToStart: an engine that cannot start (its socket would
// be in a shared directory) says why on its ready pipe; open prints that
// one line and exits 1, and nothing stays registered.
func TestOpenEngineFailsToStart(t *testing.T) {
	t.Parallel()
	root, _ := paneRun(t)
	reg := engineRegistry(t)
	exit := exitFile(t)
	shared := testenv.ShortDir(t) // made shared, as /tmp is, whatever TMPDIR is
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(shared, "cockpit.sock")
	s := newTmux(t, 120, 40, nil, fmt.Sprintf("env PATH=%s COCKPIT_SOCKET=%s COCKPIT_REGISTRY=%s %s open --project-root %s --run-manifest %s; echo $? > %s; sleep 600",
		fixture.PathWith(fixture.FakeBin(t)), sock, reg, cockpitBin, root, fixture.RunManifest, exit))
	if code := readExit(t, exit, 20*time.Second); code != "1" {
		t.Fatalf("open exited %s when its engine could not start:\n%s", code, s.screen())
	}
	s.waitJoined("cockpit open: socket directory "+shared+" is shared", 5*time.Second)
	if p := registeredPIDs(reg); len(p) != 0 {
		t.Fatalf("engines registered: %v", p)
	}
}
