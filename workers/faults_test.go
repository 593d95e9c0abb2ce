package workers

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/state"
)

// TestVerdict is the terminal status as a function of how a run ended.
func TestVerdict(t *testing.T) {
	const noRes = "exited 0 but wrote no result at r.md"
	for _, tc := range []struct {
		name string
		e    ending
		want verdict
	}{
		{"completed", ending{result: true}, verdict{state.StatusCompleted, 0, ""}},
		{"exit 1 with its line", ending{code: 1, lastLine: "boom: cannot"}, verdict{state.StatusError, 1, "exit status 1: boom: cannot"}},
		{"exit 1 silent", ending{code: 1}, verdict{state.StatusError, 1, "exit status 1"}},
		{"no result", ending{noResult: noRes}, verdict{state.StatusError, 0, noRes}},
		{"no result with a line", ending{noResult: noRes, lastLine: "Raw mode is not supported"}, verdict{state.StatusError, 0, noRes + "; its last output line: Raw mode is not supported"}},
		{"killed from outside", ending{sig: syscall.SIGKILL, lastLine: "x"}, verdict{state.StatusError, 137, "killed by signal SIGKILL: x"}},
		{"idle", ending{stop: stopTimeout, idle: 30 * time.Second, sig: syscall.SIGTERM}, verdict{state.StatusTimeout, 124, "no output for 30s (idle timeout); the CLI was stopped by SIGTERM"}},
		{"idle, ignored", ending{stop: stopTimeout, idle: 5 * time.Second, sent: syscall.SIGTERM, escalated: true, sig: syscall.SIGKILL, grace: time.Second},
			verdict{state.StatusTimeout, 124, "no output for 5s (idle timeout); the CLI ignored SIGTERM and was killed with SIGKILL after 1s"}},
		{"pane closed", ending{stop: stopSignal, stopSig: syscall.SIGHUP, sent: syscall.SIGHUP, sig: syscall.SIGHUP},
			verdict{state.StatusError, 129, "wrapper got SIGHUP (the pane was closed); the CLI was stopped by SIGHUP"}},
		{"engine died", ending{stop: stopSignal, stopSig: syscall.SIGHUP, sent: syscall.SIGHUP, sig: syscall.SIGHUP, orphaned: true},
			verdict{state.StatusError, 129, "wrapper got SIGHUP (the cockpit engine or dispatcher that ran it died); the CLI was stopped by SIGHUP"}},
		{"second signal", ending{stop: stopSignal, stopSig: syscall.SIGHUP, sent: syscall.SIGHUP, insisted: syscall.SIGTERM, escalated: true, sig: syscall.SIGKILL},
			verdict{state.StatusError, 129, "wrapper got SIGHUP (the pane was closed); the CLI ignored SIGHUP and was killed with SIGKILL on a second signal (SIGTERM)"}},
		{"signal, but done", ending{stop: stopSignal, stopSig: syscall.SIGTERM, sent: syscall.SIGTERM, result: true}, verdict{state.StatusCompleted, 0, ""}},
		{"signal, exit 0 without result", ending{stop: stopSignal, stopSig: syscall.SIGINT, sent: syscall.SIGINT},
			verdict{state.StatusError, 130, "wrapper got SIGINT (interrupted); the CLI exited with status 0"}},
		// A served-model mismatch fails a run that would be completed;
		// a run that failed already keeps its own reason.
		{"served by another model", ending{result: true, servedMismatch: "served model mismatch: m"}, verdict{state.StatusError, 0, "served model mismatch: m"}},
		{"exit 1, served by another model", ending{code: 1, result: true, servedMismatch: "served model mismatch: m"}, verdict{state.StatusError, 1, "exit status 1"}},
		{"no result, served by another model", ending{noResult: noRes, servedMismatch: "served model mismatch: m"}, verdict{state.StatusError, 0, noRes}},
		{"idle, served by another model", ending{stop: stopTimeout, idle: 30 * time.Second, sig: syscall.SIGTERM, servedMismatch: "served model mismatch: m"},
			verdict{state.StatusTimeout, 124, "no output for 30s (idle timeout); the CLI was stopped by SIGTERM"}},
	} {
		if got := decide(tc.e); got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}

// TestLastErrorLine: the line a failing CLI's reason carries, from what the
// real CLIs print when they refuse (claude 2.1.332, codex 0.171, gemini
// 0.61, grok-cli 0.0.34, recorded through a PTY).
func TestLastErrorLine(t *testing.T) {
	for _, tc := range []struct{ name, out, want string }{
		{"claude as root", "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\r\n",
			"--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"},
		{"codex outside git", "\x1b[2mReading prompt from stdin...\x1b[0m\r\nNot inside a trusted directory and --skip-git-repo-check was not specified.\r\n",
			"Not inside a trusted directory and --skip-git-repo-check was not specified."},
		{"gemini untrusted", "YOLO mode is enabled. All tool calls will be automatically approved.\r\nApproval mode overridden to \"default\" because the current folder is not trusted.\r\n\x1b[31mGemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`.\x1b[39m\r\n",
			"Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`."},
		{"grok without -p", "\x1b[2J\x1b[H  \x1b[1mTips for getting started:\x1b[22m\r\n\r\n  \x1b[31m\x1b[1m ERROR \x1b[22m\x1b[39m Raw mode is not supported on the current process.stdin, which Ink uses\r\n        Read about how to prevent this error on https://github.com/vadimdemedes/ink/#israwmodesupported\r\n\r\n \x1b[2m-\x1b[90m (/n/node_modules/ink/build/App.js:92:27)\x1b[39m\r\n  \x1b[2mcommitPassiveMountEffects\x1b[22m \x1b[90m(/n/react-reconciler.development.js:16648:11)\x1b[39m\r\n\x1b[?25h",
			"ERROR Raw mode is not supported on the current process.stdin, which Ink uses"},
		{"stream-json result", `{"type":"system","subtype":"init"}` + "\n" + `{"type":"result","is_error":true,"result":"API Error: 401 invalid x-api-key"}` + "\n",
			"API Error: 401 invalid x-api-key"},
		{"spinner redraw", "working \r\\ working\r| done, but I forgot the result\r\n", "| done, but I forgot the result"},
		{"nothing", "\r\n\x1b[0m\r\n", ""},
	} {
		if got := lastErrorLine([]byte(tc.out)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	long := lastErrorLine([]byte("error: " + strings.Repeat("é", 400)))
	if len(long) > maxLineLen+len("…") || !strings.HasSuffix(long, "…") {
		t.Errorf("a long line is not bounded: %d bytes", len(long))
	}
	if got := printedSessionID([]byte("--------\r\n\x1b[1msession id:\x1b[0m 019A2341-a259-7a50-a133-0f33704b24b9\r\n")); got != "019a2341-a259-7a50-a133-0f33704b24b9" {
		t.Errorf("printed session id = %q", got)
	}
}

// TestExecCodexOutsideGit: codex exec refuses a directory outside a git
// work tree; the wrapper says so before anything starts, with the fix.
func TestExecCodexOutsideGit(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	if err := os.Remove(filepath.Join(root, ".git")); err != nil {
		t.Fatal(err)
	}
	prompt := abs(root, fixture.CodexPrompt)
	code, stdout, stderr := execInProcess(codexArgs(root)...)
	refused(t, prompt, exitProjectRoot, code, stdout, stderr, "project-root "+root+" is not inside a git work tree", "run `git init` in it", `"--skip-git-repo-check"`)

	// With the flag in the argv (the user's choice), it runs.
	writeFile(t, root, ".cockpit/providers.json", `{"providers": {"codex": {"argv": ["codex", "exec", "--skip-git-repo-check", "--model", "{model}", "{modelArgs...}", "--sandbox", "danger-full-access", "-c", "approval_policy=never", "-"]}}}`)
	p, perr := preflight(mustArgs(t, codexArgs(root)...))
	if perr != nil {
		t.Fatalf("with --skip-git-repo-check: %v", perr)
	}
	if !strings.Contains(strings.Join(p.argv, " "), "--skip-git-repo-check") {
		t.Fatalf("argv %q", p.argv)
	}
}

func mustArgs(t *testing.T, args ...string) *execArgs {
	t.Helper()
	a, perr := parseExecArgs(args)
	if perr != nil {
		t.Fatal(perr)
	}
	return a
}

// TestExecSessionIDs: without --session-id the wrapper issues one and
// passes it where the CLI takes one; codex, which takes none, has the id it
// prints recorded instead.
func TestExecSessionIDs(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	prompt := abs(root, fixture.ClaudePrompt)
	w := runWrapper(t, wrapperEnv(t), "claude", root, "opus", fixture.ClaudePrompt, "", "", "", "--presentation", "quiet")
	if w.code != 0 {
		t.Fatalf("claude: exit %d, stderr %q", w.code, w.stderr)
	}
	sc := terminal(t, prompt, state.StatusCompleted, 0)
	if !uuidRE.Get().MatchString(sc.SessionID) {
		t.Fatalf("sidecar sessionId %q: none issued", sc.SessionID)
	}
	// The fake claude's argv check accepted --session-id <uuid>, and its
	// init event names the session it was given.
	if log := readLog(t, prompt); !strings.Contains(log, `"session_id":"`) {
		t.Fatalf("log %q", log)
	}

	croot := fixture.Copy(t)
	cprompt := abs(croot, fixture.CodexPrompt)
	w = runWrapper(t, wrapperEnv(t, "CODEX_HOME="+t.TempDir()), codexArgs(croot, "--presentation", "quiet")...)
	if w.code != 0 {
		t.Fatalf("codex: exit %d, stderr %q", w.code, w.stderr)
	}
	csc := terminal(t, cprompt, state.StatusCompleted, 0)
	m := regexp.MustCompile(`session id: (\S+)`).FindStringSubmatch(readLog(t, cprompt))
	if m == nil || csc.SessionID != m[1] {
		t.Fatalf("codex sidecar sessionId %q, printed %v", csc.SessionID, m)
	}

	// As dispatched (ExecArgs passes the dispatch's id): claude runs under
	// it and the sidecar keeps it; codex exec takes none, so the sidecar
	// records the id codex printed, which names its rollout.
	given := NewSessionID()
	droot := fixture.Copy(t)
	w = runWrapper(t, wrapperEnv(t), "claude", droot, "opus", fixture.ClaudePrompt, "", "", "", "--presentation", "quiet", "--session-id", given)
	if dsc := terminal(t, abs(droot, fixture.ClaudePrompt), state.StatusCompleted, 0); w.code != 0 || dsc.SessionID != given {
		t.Fatalf("claude given %s: exit %d, sidecar sessionId %q", given, w.code, dsc.SessionID)
	}
	if log := readLog(t, abs(droot, fixture.ClaudePrompt)); !strings.Contains(log, `"session_id":"`+given+`"`) {
		t.Fatalf("claude did not run under the given id %s: %q", given, log)
	}
	w = runWrapper(t, wrapperEnv(t, "CODEX_HOME="+t.TempDir()), codexArgs(droot, "--presentation", "quiet", "--session-id", given)...)
	dsc := terminal(t, abs(droot, fixture.CodexPrompt), state.StatusCompleted, 0)
	m = regexp.MustCompile(`session id: (\S+)`).FindStringSubmatch(readLog(t, abs(droot, fixture.CodexPrompt)))
	if w.code != 0 || m == nil || m[1] == given || dsc.SessionID != m[1] {
		t.Fatalf("codex given %s: exit %d, sidecar sessionId %q, printed %v", given, w.code, dsc.SessionID, m)
	}
}

// TestExecLogSymlinkNotFollowed: a <prompt>.log planted as a symlink is
// replaced, never written through; the log is created 0600.
func TestExecLogSymlinkNotFollowed(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	prompt := abs(root, fixture.CodexPrompt)
	outside := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(outside, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, state.LogPath(prompt)); err != nil {
		t.Fatal(err)
	}
	w := runWrapper(t, wrapperEnv(t), codexArgs(root, "--presentation", "quiet")...)
	if w.code != 0 {
		t.Fatalf("exit %d, stderr %q", w.code, w.stderr)
	}
	if got, _ := os.ReadFile(outside); string(got) != "precious\n" {
		t.Fatalf("the symlink's target was written: %q", got)
	}
	st, err := os.Lstat(state.LogPath(prompt))
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o600 {
		t.Fatalf("log %v %v, want a regular 0600 file", st.Mode(), err)
	}
	if !strings.Contains(readLog(t, prompt), "fake codex") {
		t.Fatal("the log has no transcript")
	}
}

// TestPreflightFIFOPrompt: a FIFO where the prompt should be is refused
// saying what it is, without blocking on it.
func TestPreflightFIFOPrompt(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	prompt := abs(root, fixture.CodexPrompt)
	if err := os.Remove(prompt); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(prompt, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := execInProcess(codexArgs(root)...)
	if code != exitPrompt || !strings.Contains(stderr, "is a named pipe (FIFO), not a regular file") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	_ = stdout
}

// TestExecEndsOrphans: a grandchild the CLI left in a session of its own
// (setsid) is ended with the worker: the wrapper is its subreaper.
func TestExecEndsOrphans(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, "ok-leave-orphan")
	prompt := abs(root, fixture.CodexPrompt)
	w := runWrapper(t, wrapperEnv(t), codexArgs(root, "--presentation", "quiet")...)
	if w.code != 0 {
		t.Fatalf("exit %d, stderr %q", w.code, w.stderr)
	}
	m := regexp.MustCompile(`left orphan pid (\d+)`).FindStringSubmatch(readLog(t, prompt))
	if m == nil {
		t.Fatalf("log %q", readLog(t, prompt))
	}
	pid, _ := strconv.Atoi(m[1])
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		data, _ := os.ReadFile("/proc/" + m[1] + "/stat")
		t.Fatalf("the setsid grandchild %d outlived its worker (%v): %s", pid, err, data)
	}
}

// TestExecEndsOrphansOnTeardown: the same grandchild, left by a CLI that
// is still working when the worker is torn down (the wrapper gets SIGTERM,
// as team teardown and a closing pane send it), is ended with the worker
// too: nothing keeps the pane's terminal open after the worker ends.
func TestExecEndsOrphansOnTeardown(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, "hang-leave-orphan")
	prompt := abs(root, fixture.CodexPrompt)
	w := startWrapper(t, wrapperEnv(t), codexArgs(root, "--presentation", "quiet")...)
	orphan := regexp.MustCompile(`left orphan pid (\d+)`)
	var pid int
	waitFor(t, "the CLI to leave its grandchild", 30*time.Second, func() bool {
		log, _ := os.ReadFile(state.LogPath(prompt))
		m := orphan.FindSubmatch(log)
		if m != nil {
			pid, _ = strconv.Atoi(string(m[1]))
		}
		return m != nil
	})
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the grandchild %d is not running before teardown: %v", pid, err)
	}
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	w.wait(t, 30*time.Second)
	terminal(t, prompt, state.StatusError, 143, "wrapper got SIGTERM")
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		t.Fatalf("the setsid grandchild %d outlived its torn-down worker (%v): %s", pid, err, data)
	}
}

// TestExecLogRotates: a worker's log is rotated at its limit, so a
// flooding CLI keeps at most twice the limit on disk.
func TestExecLogRotates(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, "flood")
	prompt := abs(root, fixture.CodexPrompt)
	const limit = 256 << 10
	w := runWrapper(t, wrapperEnv(t, EnvLogLimit+"="+strconv.Itoa(limit)), codexArgs(root, "--presentation", "quiet")...)
	if w.code != 0 {
		t.Fatalf("exit %d, stderr %q", w.code, w.stderr)
	}
	terminal(t, prompt, state.StatusCompleted, 0)
	for _, p := range []string{state.LogPath(prompt), state.LogPath(prompt) + ".1"} {
		st, err := os.Stat(p)
		if err != nil || st.Size() > limit || st.Size() == 0 {
			t.Fatalf("%s: %v, size %d, want 1..%d bytes", p, err, sizeOf(st), limit)
		}
	}
	// The end of the transcript is in the current log.
	if log := readLog(t, prompt); !strings.Contains(log, "line 039999") {
		t.Fatalf("the current log lacks the last lines: %q", log[max(0, len(log)-200):])
	}
}

func sizeOf(st os.FileInfo) int64 {
	if st == nil {
		return -1
	}
	return st.Size()
}

// TestExecOrphanedWrapperSaysSo: a wrapper whose parent (the engine that ran
// its pane, the dispatcher) died before its SIGHUP says so, instead of
// blaming a closed pane.
func TestExecOrphanedWrapperSaysSo(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, "hang")
	prompt := abs(root, fixture.CodexPrompt)
	// An intermediate parent that starts the wrapper and exits at once.
	args := append([]string{os.Args[0], "worker", "exec"}, codexArgs(root, "--presentation", "quiet")...)
	var quoted []string
	for _, a := range args {
		quoted = append(quoted, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	// It waits for the started sidecar, so it is the wrapper's parent when
	// the wrapper starts the CLI.
	sidecar := "'" + state.SidecarPath(prompt) + "'"
	parent := exec.Command("/bin/sh", "-c", strings.Join(quoted, " ")+" >/dev/null 2>&1 & echo $!; while [ ! -s "+sidecar+" ]; do sleep 0.05; done")
	parent.Env = wrapperEnv(t)
	var out bytes.Buffer
	parent.Stdout = &out
	if err := parent.Run(); err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("wrapper pid %q", out.String())
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	waitChild(t, prompt)
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the terminal sidecar", 30*time.Second, func() bool {
		sc, err := state.ReadSidecar(state.SidecarPath(prompt), "")
		return err == nil && sc != nil && state.IsTerminal(sc.Status)
	})
	terminal(t, prompt, state.StatusError, 129, "wrapper got SIGHUP (the cockpit engine or dispatcher that ran it died)")
}

// TestArgvPromptTooLong: a prompt {prompt} cannot pass as one argument is
// refused with the fix, not started to fail with E2BIG.
func TestArgvPromptTooLong(t *testing.T) {
	grok := mustProvider(t, BuiltinCatalog(), "grok")
	_, err := grok.Argv(Vars{Model: "grok-code-fast-1", Prompt: strings.Repeat("x", MaxArgPrompt+1)})
	if err == nil || !strings.Contains(err.Error(), `give the provider promptOn "file" or "stdin" in providers.json`) {
		t.Fatalf("err = %v", err)
	}
}

// TestExecFullDiskFinalStatus: when the disk fills while the CLI works,
// the terminal status still lands (rewritten in place over the started
// sidecar) and names the fault, instead of leaving "started" for the
// engine to read as a crash.
func TestExecFullDiskFinalStatus(t *testing.T) {
	t.Parallel()
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=4m"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mount a small tmpfs (needs root): %v", err)
		}
		t.Skipf("mount a small tmpfs to fill (needs root): %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	src := fixture.Copy(t)
	root := filepath.Join(mnt, "project")
	if out, err := exec.Command("cp", "-a", src, root).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, gated(t, root, "codex.release")) // working until the disk is full
	prompt := abs(root, fixture.CodexPrompt)
	w := startWrapper(t, wrapperEnv(t), codexArgs(root, "--presentation", "quiet")...)
	waitChild(t, prompt)
	// Fill the disk.
	f, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	f.Close()
	release(t, root, "codex.release") // an empty file: it takes an inode, no block
	w.wait(t, 30*time.Second)
	sc := readSidecar(t, prompt)
	if !state.IsTerminal(sc.Status) || !strings.Contains(sc.Reason, "status sidecar rewritten in place") || !strings.Contains(sc.Reason, "no space left on device") {
		t.Fatalf("sidecar %s reason %q", sc.Status, sc.Reason)
	}
}

// TestPreflightReadOnlyPromptsDir: a prompts directory the wrapper cannot
// write its log and sidecar into is refused by name at preflight (and so
// at dispatch), not left to a wrapper that exits before writing any status
// (issue 19). Root writes anywhere, so the test uses a read-only mount.
func TestPreflightReadOnlyPromptsDir(t *testing.T) {
	t.Parallel()
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=4m"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mount a small tmpfs (needs root): %v", err)
		}
		t.Skipf("mount a small tmpfs to make read-only (needs root): %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	root := filepath.Join(mnt, "project")
	if out, err := exec.Command("cp", "-a", fixture.Copy(t), root).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	if err := syscall.Mount("", mnt, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount read-only: %v", err)
	}
	err := Preflight(codexArgs(root))
	want := "its directory " + fixture.RunDir + "/prompts is not writable"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Preflight = %v, want %q", err, want)
	}
	code, _, stderr := execInProcess(codexArgs(root)...)
	if code != exitPrompt || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
}
