package workers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/state"
)

// TestExecCompletedV2 runs the fixture's codex job with its invocation
// metadata: started (with the child's pid) then completed, the v2 identity
// in the sidecar, the coloured output in the log and on stdout.
func TestExecCompletedV2(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, gated(t, root, "codex.release")) // working until the started sidecar is checked
	prompt := abs(root, fixture.CodexPrompt)
	meta := strings.TrimSuffix(prompt, ".md") + ".meta.json"
	w := startWrapper(t, wrapperEnv(t), "codex", root, "gpt-6.1-sol", prompt, "", "analyser", "30",
		"--session-id", "5f0c2d1e-8a7b-4c3d-9e2f-1a0b9c8d7e6f", "--invocation-metadata", meta)

	started := waitChild(t, prompt)
	if started.PID != w.cmd.Process.Pid {
		t.Errorf("started pid = %d, want the wrapper's %d", started.PID, w.cmd.Process.Pid)
	}
	if started.ExitCode != nil || started.EndedAt != "" || started.Reason != "" {
		t.Errorf("started sidecar has an ending: %+v", started)
	}
	release(t, root, "codex.release")
	if code := w.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, w.stderr)
	}
	sc := terminal(t, prompt, state.StatusCompleted, 0)
	// codex exec takes no session id: the terminal sidecar records the one
	// it printed (its rollout's), not the dispatcher's; the started one
	// still carries the dispatcher's.
	printed := regexp.MustCompile(`session id: (\S+)`).FindStringSubmatch(readLog(t, prompt))
	if printed == nil || started.SessionID != "5f0c2d1e-8a7b-4c3d-9e2f-1a0b9c8d7e6f" {
		t.Fatalf("printed session id %v, started sidecar's %q", printed, started.SessionID)
	}
	want := state.Sidecar{
		Status: "completed", Wrapper: "okstra-codex-exec.sh", Role: "analyser", Provider: "codex", Model: "gpt-6.1-sol",
		PID: w.cmd.Process.Pid, ChildPID: started.ChildPID, StartedAt: started.StartedAt,
		LogPath:                  fixture.CodexPrompt + ".log",
		ResultPath:               fixture.RunDir + "/worker-results/codex-worker-feature-analysis-002.md",
		SessionID:                printed[1],
		SchemaVersion:            "2.0",
		ExecutionIdentityVersion: 2,
		ParticipantRef:           "participant-002",
		RoleExecutionRef:         "role-execution-002",
		ExecutionLabel:           "Codex analyser · gpt-6.1-sol",
		DutyID:                   "analysis",
		InvocationRef:            "invocation-001",
		Attempt:                  1,
		WritePolicyDigest:        "sha256:9f2c0f5e6a0d4f1c8b7e3a2d1c0b9a8f7e6d5c4b3a29180706050403020100ff",
	}
	got := *sc
	got.ExitCode, got.EndedAt, got.ServedModelAttestation, got.WriteEnforcement = nil, "", nil, nil
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("sidecar\n got %+v\nwant %+v", got, want)
	}
	if compact(t, sc.ServedModelAttestation) != `{"observedModel":null,"normalizedModelRef":null,"level":"unknown","source":"unavailable"}` {
		t.Errorf("servedModelAttestation = %s", sc.ServedModelAttestation)
	}
	if compact(t, sc.WriteEnforcement) != `{"mode":"audit"}` {
		t.Errorf("writeEnforcement = %s", sc.WriteEnforcement)
	}
	raw, _ := os.ReadFile(state.SidecarPath(prompt))
	if !strings.Contains(string(raw), `"exitCode": 0`) || !strings.Contains(string(raw), `"reason": ""`) {
		t.Errorf("sidecar JSON:\n%s", raw)
	}

	log := readLog(t, prompt)
	for _, f := range []string{"\x1b[1;38;5;208m▌fake codex", "\x1b[38;2;", "tty=200x50", "cwd=" + root, "idle=30", "100%"} {
		if !strings.Contains(log, f) {
			t.Errorf("log lacks %q:\n%q", f, log)
		}
	}
	out := w.stdout.String()
	if !strings.HasPrefix(out, log) || !strings.Contains(out[len(log):], "[cockpit worker exec: completed]") {
		t.Errorf("live stdout is not the log plus the closing line:\nstdout %q\nlog    %q", out, log)
	}
	if w.stderr.String() != "" {
		t.Errorf("stderr %q", w.stderr)
	}
	data, err := os.ReadFile(filepath.Join(root, want.ResultPath))
	if err != nil || !strings.Contains(string(data), "provider: codex") {
		t.Fatalf("result %q, %v", data, err)
	}
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("compact %s: %v", raw, err)
	}
	return b.String()
}

// TestExecFixtureJobs runs every job of the fixture's three jobs files the
// way a dispatcher does: state.LoadJobs, then ExecArgs.
func TestExecFixtureJobs(t *testing.T) {
	t.Parallel()
	env := wrapperEnv(t)
	for _, jobs := range []string{fixture.JobsInitial, fixture.JobsReverify, fixture.JobsReportWriter} {
		root := fixture.Copy(t)
		run, err := state.LoadRun(root, fixture.RunManifest)
		if err != nil {
			t.Fatal(err)
		}
		_, resolved, err := state.LoadJobs(run, jobs, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, job := range resolved {
			t.Run(filepath.Base(job.PromptPath), func(t *testing.T) {
				t.Parallel()
				w := runWrapper(t, env, ExecArgs(root, job, PresentationQuiet)...)
				if w.code != 0 {
					t.Fatalf("exit %d, stderr %q, log %q", w.code, w.stderr, readLog(t, job.Prompt))
				}
				sc := terminal(t, job.Prompt, state.StatusCompleted, 0)
				if sc.InvocationRef != job.InvocationRef || sc.ExecutionLabel != job.ExecutionLabel || sc.Provider != job.Provider || sc.Model != job.ModelExecutionValue {
					t.Errorf("sidecar identity %+v does not match the job %+v", sc, job.Job)
				}
				if sc.ResultPath != job.ResultPath {
					t.Errorf("sidecar resultPath %q, job %q", sc.ResultPath, job.ResultPath)
				}
				if _, err := os.Stat(job.Result); err != nil {
					t.Errorf("result: %v", err)
				}
				if !strings.Contains(readLog(t, job.Prompt), "idle="+fmt.Sprint(job.IdleTimeoutSeconds)) {
					t.Errorf("the CLI did not get the job's idle timeout %d", job.IdleTimeoutSeconds)
				}
			})
		}
	}
}

func TestExecArgs(t *testing.T) {
	root := fixture.Copy(t)
	run, err := state.LoadRun(root, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	_, jobs, err := state.LoadJobs(run, fixture.JobsInitial, "initial")
	if err != nil {
		t.Fatal(err)
	}
	got := ExecArgs(root, jobs[0], PresentationLive)
	// A job without a session id gets a fresh one per dispatch (seed 004).
	if len(got) != 13 || got[9] != "--session-id" || !uuidRE.Get().MatchString(got[10]) {
		t.Fatalf("ExecArgs = %q: want a --session-id UUID", got)
	}
	if again := ExecArgs(root, jobs[0], PresentationLive); again[10] == got[10] {
		t.Fatalf("two dispatches got the same session id %s", got[10])
	}
	want := []string{"codex", root, "gpt-6.1-sol", jobs[0].Prompt, "", "analyser", "900", "--presentation", "live", "--session-id", got[10], "--invocation-metadata", jobs[0].Metadata}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("ExecArgs = %q\nwant %q", got, want)
	}
	jobs[0].SessionID = "5f0c2d1e-8a7b-4c3d-9e2f-1a0b9c8d7e6f"
	if got := ExecArgs(root, jobs[0], ""); got[8] != jobs[0].SessionID {
		t.Fatalf("ExecArgs with the job's session id = %q", got)
	}
}

func TestExecFailures(t *testing.T) {
	t.Parallel()
	env := wrapperEnv(t)
	for _, tc := range []struct {
		behaviour string
		code      int
		reason    string
	}{
		// The CLI's own last error line follows the status.
		{"fail", 1, "exit status 1: ✗ error: the model refused (fake exit 1)"},
		{"fail-3", 3, "exit status 3: ✗ error: the model refused (fake exit 3)"},
		{"noresult", 0, "exited 0 but wrote no result at " + fixture.RunDir + "/worker-results/codex-worker-feature-analysis-002.md; its last output line: done, but I forgot the result"},
	} {
		t.Run(tc.behaviour, func(t *testing.T) {
			t.Parallel()
			root := fixture.Copy(t)
			fixture.SetBehaviour(t, root, fixture.CodexPrompt, tc.behaviour)
			prompt := abs(root, fixture.CodexPrompt)
			w := runWrapper(t, env, codexArgs(root, "--presentation", "quiet")...)
			if w.code != tc.code {
				t.Fatalf("exit %d, want %d", w.code, tc.code)
			}
			sc := terminal(t, prompt, state.StatusError, tc.code, tc.reason)
			if sc.Reason != tc.reason {
				t.Errorf("reason %q, want exactly %q", sc.Reason, tc.reason)
			}
			if sc.Role != "worker" || sc.SchemaVersion != "" || sc.ServedModelAttestation != nil {
				t.Errorf("a v1 run's sidecar: role %q schemaVersion %q attestation %s", sc.Role, sc.SchemaVersion, sc.ServedModelAttestation)
			}
			if !strings.Contains(readLog(t, prompt), "fake codex") {
				t.Errorf("log %q", readLog(t, prompt))
			}
		})
	}
}

// TestExecStaleResult: a result file older than the run (a previous
// attempt's) does not make the run completed.
func TestExecStaleResult(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, "noresult")
	prompt := abs(root, fixture.CodexPrompt)
	result := writeFile(t, root, fixture.RunDir+"/worker-results/codex-worker-feature-analysis-002.md", "old")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(result, old, old); err != nil {
		t.Fatal(err)
	}
	w := runWrapper(t, wrapperEnv(t), codexArgs(root)...)
	if w.code != 0 {
		t.Fatalf("exit %d", w.code)
	}
	terminal(t, prompt, state.StatusError, 0, "wrote no result", "predates this run")
}

func TestExecIdleTimeout(t *testing.T) {
	t.Parallel()
	env := wrapperEnv(t)
	for _, tc := range []struct {
		behaviour, idle string
		status          state.Status
		code            int
		reason          string
	}{
		{"hang", "1", state.StatusTimeout, 124, "no output for 1s (idle timeout); the CLI was stopped by SIGTERM"},
		{"silent-then-ok-3s", "1", state.StatusTimeout, 124, "no output for 1s (idle timeout)"},
		{"silent-then-ok-300ms", "2", state.StatusCompleted, 0, ""},
		{"ok-2500ms", "1", state.StatusCompleted, 0, ""}, // steady output resets the limit
	} {
		t.Run(tc.behaviour+"/"+tc.idle, func(t *testing.T) {
			t.Parallel()
			root := fixture.Copy(t)
			fixture.SetBehaviour(t, root, fixture.CodexPrompt, tc.behaviour)
			prompt := abs(root, fixture.CodexPrompt)
			w := runWrapper(t, env, codexArgs(root, "", "analyser", tc.idle)...)
			if w.code != tc.code {
				t.Fatalf("exit %d, want %d; reason %q", w.code, tc.code, readSidecar(t, prompt).Reason)
			}
			sc := terminal(t, prompt, tc.status, tc.code, tc.reason)
			if tc.status == state.StatusTimeout {
				if time.Since(w.started) < time.Second {
					t.Errorf("the wrapper gave up after %v, before the 1s limit", time.Since(w.started))
				}
				waitFor(t, "the CLI's group to go", 5*time.Second, func() bool { return groupGone(sc.ChildPID) })
			}
		})
	}
	t.Run("hang-ignore-term/1", func(t *testing.T) {
		t.Parallel()
		root := fixture.Copy(t)
		fixture.SetBehaviour(t, root, fixture.CodexPrompt, "hang-ignore-term")
		prompt := abs(root, fixture.CodexPrompt)
		w := runWrapper(t, env, codexArgs(root, "", "", "1")...)
		if w.code != 124 {
			t.Fatalf("exit %d", w.code)
		}
		if el := time.Since(w.started); el < time.Second+testGrace {
			t.Errorf("ended after %v, before the limit plus the grace", el)
		}
		sc := terminal(t, prompt, state.StatusTimeout, 124, "no output for 1s (idle timeout); the CLI ignored SIGTERM and was killed with SIGKILL after 500ms")
		if !groupGone(sc.ChildPID) {
			t.Error("the CLI's group outlived the wrapper")
		}
	})
}

// TestExecJobIdleTimeout: the job's idleTimeoutSeconds reaches the wrapper
// through ExecArgs' positional argument, the CLI sees it, and it is enforced.
func TestExecJobIdleTimeout(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	jobsFile := filepath.Join(root, fixture.JobsInitial)
	data, err := os.ReadFile(jobsFile)
	if err != nil {
		t.Fatal(err)
	}
	data = regexp.MustCompile(`"idleTimeoutSeconds": 900`).ReplaceAll(data, []byte(`"idleTimeoutSeconds": 1`))
	if err := os.WriteFile(jobsFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fixture.SetBehaviour(t, root, fixture.AntigravityPrompt, "hang")
	run, err := state.LoadRun(root, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	_, jobs, err := state.LoadJobs(run, fixture.JobsInitial, "")
	if err != nil {
		t.Fatal(err)
	}
	job := jobs[1]
	if job.Provider != "antigravity" || job.IdleTimeoutSeconds != 1 {
		t.Fatalf("job %+v", job.Job)
	}
	args := ExecArgs(root, job, PresentationQuiet)
	if args[6] != "1" {
		t.Fatalf("ExecArgs idle = %q", args[6])
	}
	w := runWrapper(t, wrapperEnv(t), args...)
	if w.code != 124 {
		t.Fatalf("exit %d", w.code)
	}
	sc := terminal(t, job.Prompt, state.StatusTimeout, 124, "no output for 1s (idle timeout)")
	if sc.InvocationRef != "invocation-002" {
		t.Errorf("sidecar invocation %q", sc.InvocationRef)
	}
	if !strings.Contains(readLog(t, job.Prompt), "fake gemini") || !strings.Contains(readLog(t, job.Prompt), "idle=1") {
		t.Errorf("log %q", readLog(t, job.Prompt))
	}
}

// TestExecSignals: a signal to the wrapper is forwarded to the CLI's group,
// the sidecar still ends terminal, and the group is gone afterwards.
func TestExecSignals(t *testing.T) {
	t.Parallel()
	env := wrapperEnv(t)
	for _, tc := range []struct {
		name      string
		behaviour string
		sig       syscall.Signal
		code      int
		reason    []string
		minTime   time.Duration
	}{
		{"SIGTERM", "hang", syscall.SIGTERM, 143, []string{"wrapper got SIGTERM", "reclaimed or torn down", "the CLI was stopped by SIGTERM"}, 0},
		{"SIGHUP", "hang", syscall.SIGHUP, 129, []string{"wrapper got SIGHUP", "the pane was closed", "the CLI was stopped by SIGHUP"}, 0},
		{"SIGINT", "until-sigint.release", syscall.SIGINT /* never released: the signal ends it */, 130, []string{"wrapper got SIGINT", "interrupted"}, 0},
		{"SIGQUIT", "until-sigquit.release", syscall.SIGQUIT, 131, []string{"wrapper got SIGQUIT", "quit from the keyboard"}, 0},
		{"ignore-term", "ignore-term", syscall.SIGTERM, 143, []string{"wrapper got SIGTERM", "the CLI ignored SIGTERM and was killed with SIGKILL after 500ms"}, testGrace},
		{"ignore-hup", "ignore-term", syscall.SIGHUP, 129, []string{"wrapper got SIGHUP", "the CLI ignored SIGHUP and was killed with SIGKILL after 500ms"}, testGrace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := fixture.Copy(t)
			fixture.SetBehaviour(t, root, fixture.CodexPrompt, tc.behaviour)
			prompt := abs(root, fixture.CodexPrompt)
			w := startWrapper(t, env, codexArgs(root)...)
			started := waitChild(t, prompt)
			waitLog(t, prompt, "fake codex")
			if tc.behaviour == "ignore-term" {
				// The fake says "still here" once it ignores the signals;
				// its banner comes before that.
				waitLog(t, prompt, "still here")
			}
			sent := time.Now()
			if err := w.cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			if code := w.wait(t, 15*time.Second); code != tc.code {
				t.Fatalf("exit %d, want %d", code, tc.code)
			}
			if el := time.Since(sent); el < tc.minTime {
				t.Errorf("ended %v after the signal, before the %v grace", el, tc.minTime)
			}
			terminal(t, prompt, state.StatusError, tc.code, tc.reason...)
			if !groupGone(started.ChildPID) {
				t.Errorf("the CLI's process group %d outlived the wrapper", started.ChildPID)
			}
			if tc.behaviour == "ignore-term" && !strings.Contains(readLog(t, prompt), "ignoring") {
				t.Errorf("the fake never saw the signal: %q", readLog(t, prompt))
			}
		})
	}
}

// TestExecSecondSignal: a second signal during the grace (a closing pane
// escalating SIGHUP → SIGTERM) kills the CLI at once, long before the grace
// would, so the terminal sidecar is written before the pane's SIGKILL.
func TestExecSecondSignal(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, "ignore-term")
	prompt := abs(root, fixture.CodexPrompt)
	env := append(wrapperEnv(t), EnvKillGrace+"=30s")
	w := startWrapper(t, env, codexArgs(root)...)
	started := waitChild(t, prompt)
	waitLog(t, prompt, "still here")
	sent := time.Now()
	_ = w.cmd.Process.Signal(syscall.SIGHUP)
	waitLog(t, prompt, "ignoring hangup")
	_ = w.cmd.Process.Signal(syscall.SIGTERM)
	if code := w.wait(t, 15*time.Second); code != 129 {
		t.Fatalf("exit %d, want 129", code)
	}
	if el := time.Since(sent); el > 10*time.Second {
		t.Errorf("took %v: the second signal did not force the end", el)
	}
	terminal(t, prompt, state.StatusError, 129, "wrapper got SIGHUP (the pane was closed)", "the CLI ignored SIGHUP and was killed with SIGKILL on a second signal (SIGTERM)")
	if !groupGone(started.ChildPID) {
		t.Error("the CLI's group outlived the wrapper")
	}
}

// TestExecKillsLeftovers: a CLI that exits by itself leaving a background
// job in its process group does not leave it running: the wrapper ends the
// group once the CLI is gone.
func TestExecKillsLeftovers(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, "ok-leave-child")
	prompt := abs(root, fixture.CodexPrompt)
	w := startWrapper(t, wrapperEnv(t), codexArgs(root)...)
	started := waitChild(t, prompt)
	if code := w.wait(t, 15*time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
	terminal(t, prompt, state.StatusCompleted, 0)
	if !groupGone(started.ChildPID) {
		t.Fatalf("the CLI's background job (group %d) outlived the wrapper; log %q", started.ChildPID, readLog(t, prompt))
	}
}

// TestExecChildKilled: the CLI killed from outside ends as error with the
// signal named.
func TestExecChildKilled(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, gated(t, root, "codex.release")) // working until killed
	prompt := abs(root, fixture.CodexPrompt)
	w := startWrapper(t, wrapperEnv(t), codexArgs(root)...)
	started := waitChild(t, prompt)
	// Killed once it is working, so its last output line is known to be
	// in the reason (killed before it printed, the reason is the bare
	// signal).
	waitLog(t, prompt, "working")
	if err := syscall.Kill(started.ChildPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := w.wait(t, 15*time.Second); code != 137 {
		t.Fatalf("exit %d, want 137", code)
	}
	sc := terminal(t, prompt, state.StatusError, 137, "killed by signal SIGKILL")
	if !strings.HasPrefix(sc.Reason, "killed by signal SIGKILL: ") || strings.Contains(sc.Reason, "\n") {
		t.Errorf("reason %q, want the signal and the CLI's last line", sc.Reason)
	}
}

// TestExecWorktree: the CLI runs in the worktree; the Result Path stays
// project-root-relative.
func TestExecWorktree(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	wt := filepath.Join(root, ".okstra", "worktrees", "stage-1")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	prompt := abs(root, fixture.CodexPrompt)
	w := runWrapper(t, wrapperEnv(t), codexArgs(root, ".okstra/worktrees/stage-1", "analyser")...)
	if w.code != 0 {
		t.Fatalf("exit %d, stderr %q", w.code, w.stderr)
	}
	terminal(t, prompt, state.StatusCompleted, 0)
	if !strings.Contains(readLog(t, prompt), "cwd="+wt+" ") {
		t.Errorf("the CLI did not run in the worktree: %q", readLog(t, prompt))
	}
	data, err := os.ReadFile(filepath.Join(root, fixture.RunDir, "worker-results/codex-worker-feature-analysis-002.md"))
	if err != nil || !strings.Contains(string(data), "cwd: "+wt+"\n") {
		t.Fatalf("result %q, %v", data, err)
	}
}

// TestExecPromptOnFile: a provider added by the project's providers.json
// that reads its prompt from {promptPath}.
func TestExecPromptOnFile(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	writeFile(t, root, ".cockpit/providers.json", `{"providers": {"my-agent": {
	  "displayLabel": "My agent",
	  "argv": ["my-agent", "--model", "{model}", "--prompt-file", "{promptPath}"],
	  "promptOn": "file",
	  "models": {"fast-1": {"display": "Fast 1"}}
	}}}`)
	prompt := abs(root, fixture.ClaudePrompt)
	w := runWrapper(t, wrapperEnv(t), "my-agent", root, "fast-1", prompt)
	if w.code != 0 {
		t.Fatalf("exit %d, stderr %q, log %q", w.code, w.stderr, readLog(t, prompt))
	}
	terminal(t, prompt, state.StatusCompleted, 0)
	if !strings.Contains(readLog(t, prompt), "fake my-agent") {
		t.Errorf("log %q", readLog(t, prompt))
	}
}

// TestExecArgvMismatch: the fakes fail loudly when the argv is not the real
// CLI's shape, and the CLI missing from PATH ends as error 127.
func TestExecArgvMismatch(t *testing.T) {
	t.Parallel()
	env := wrapperEnv(t)
	t.Run("shape", func(t *testing.T) {
		t.Parallel()
		root := fixture.Copy(t)
		writeFile(t, root, ".cockpit/providers.json", `{"providers": {"codex": {"argv": ["codex", "exec", "--model", "{model}", "-"]}}}`)
		prompt := abs(root, fixture.CodexPrompt)
		w := runWrapper(t, env, codexArgs(root)...)
		if w.code != 97 {
			t.Fatalf("exit %d", w.code)
		}
		terminal(t, prompt, state.StatusError, 97, "exit status 97")
		if !strings.Contains(readLog(t, prompt), "argv mismatch") {
			t.Errorf("log %q", readLog(t, prompt))
		}
	})
	t.Run("not found", func(t *testing.T) {
		t.Parallel()
		root := fixture.Copy(t)
		writeFile(t, root, ".cockpit/providers.json", `{"providers": {"codex": {"argv": ["no-such-cli-for-cockpit", "{model}"]}}}`)
		prompt := abs(root, fixture.CodexPrompt)
		w := runWrapper(t, env, codexArgs(root)...)
		if w.code != 127 {
			t.Fatalf("exit %d", w.code)
		}
		terminal(t, prompt, state.StatusError, 127, "start no-such-cli-for-cockpit", "not found")
	})
}

// TestExecFlood: a flood of output reaches the log and stdout whole.
func TestExecFlood(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, "flood")
	prompt := abs(root, fixture.CodexPrompt)
	w := runWrapper(t, wrapperEnv(t), codexArgs(root)...)
	if w.code != 0 {
		t.Fatalf("exit %d", w.code)
	}
	terminal(t, prompt, state.StatusCompleted, 0)
	log := readLog(t, prompt)
	if !strings.Contains(log, "line 039999") || len(log) < 3<<20 {
		t.Fatalf("log has %d bytes, last line missing: %v", len(log), !strings.Contains(log, "line 039999"))
	}
	if !strings.HasPrefix(w.stdout.String(), log) {
		t.Fatal("live stdout differs from the log")
	}
}

// TestExecTerminalSize: when the wrapper's stdout is a terminal, the CLI's
// PTY takes its size and follows it on SIGWINCH.
func TestExecTerminalSize(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, "size-"+gated(t, root, "codex.release")) // printing its size until released
	prompt := abs(root, fixture.CodexPrompt)

	outer, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer outer.Close()
	if err := pty.Setsize(outer, &pty.Winsize{Cols: 100, Rows: 30}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], append([]string{"worker", "exec"}, codexArgs(root)...)...)
	cmd.Env = wrapperEnv(t)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = tty.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Drain the outer terminal so the wrapper never blocks on it.
	go func() {
		buf := make([]byte, 4096)
		for {
			if _, err := outer.Read(buf); err != nil {
				return
			}
		}
	}()
	waitLog(t, prompt, "size=100x30")
	if err := pty.Setsize(outer, &pty.Winsize{Cols: 132, Rows: 43}); err != nil {
		t.Fatal(err)
	}
	waitLog(t, prompt, "size=132x43")
	release(t, root, "codex.release")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("wrapper: %v", err)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("wrapper did not finish")
	}
	terminal(t, prompt, state.StatusCompleted, 0)
	if !strings.Contains(readLog(t, prompt), "tty=100x30") {
		t.Errorf("log %q", readLog(t, prompt))
	}
}

// TestExecSidecarJSON checks the started sidecar's JSON shape: exitCode
// null, the paths project-relative.
func TestExecSidecarJSON(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	fixture.SetBehaviour(t, root, fixture.CodexPrompt, gated(t, root, "codex.release")) // working until the started sidecar is read
	prompt := abs(root, fixture.CodexPrompt)
	w := startWrapper(t, wrapperEnv(t), codexArgs(root)...)
	waitChild(t, prompt)
	raw, err := os.ReadFile(state.SidecarPath(prompt))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if v, ok := m["exitCode"]; !ok || v != nil {
		t.Errorf("started exitCode = %v (present %v), want null", v, ok)
	}
	if m["status"] != "started" || m["wrapper"] != "okstra-codex-exec.sh" || m["logPath"] != fixture.CodexPrompt+".log" {
		t.Errorf("started sidecar %s", raw)
	}
	if _, ok := m["schemaVersion"]; ok {
		t.Errorf("a run without invocation metadata wrote v2 fields: %s", raw)
	}
	release(t, root, "codex.release")
	w.wait(t, 30*time.Second)
}
