package workers

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/state"
)

func TestParseSimModel(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind string
		dur  time.Duration
	}{
		{"sim-ok", "ok", 2 * time.Second},
		{"sim-ok-3s", "ok", 3 * time.Second},
		{"sim-ok-500ms", "ok", 500 * time.Millisecond},
		{"sim-fail", "fail", time.Second},
		{"sim-fail-2s", "fail", 2 * time.Second},
		{"sim-noresult", "noresult", time.Second},
		{"sim-hang", "hang", 0},
		{"sim-slow-1m", "slow", time.Minute},
		{"sim-ignore-term", "ignore-term", 0},
		{"sim-flood", "flood", 3 * time.Second},
		{"sim-flood-1s", "flood", time.Second},
	} {
		got, err := parseSimModel(tc.name)
		if err != nil || got.kind != tc.kind || got.dur != tc.dur {
			t.Errorf("parseSimModel(%q) = %+v, %v; want %s %v", tc.name, got, err, tc.kind, tc.dur)
		}
	}
	for _, bad := range []string{"sim-", "sim-bogus", "sim-ok-3", "sim-ok-fast", "sim-hang-2s", "sim-ignore-term-1s", "ok", "sim-ok--1s", ""} {
		if _, err := parseSimModel(bad); err == nil {
			t.Errorf("parseSimModel(%q) accepted", bad)
		}
	}
}

func simPrompt(result string) string {
	return "**Okstra Duty:** analysis\n**Invocation:** invocation-009\n**Result Path:** " + result + "\n\nDo the thing.\n"
}

func TestRunSimOK(t *testing.T) {
	t.Parallel()
	result := filepath.Join(t.TempDir(), "out", "result.md")
	var out, errb bytes.Buffer
	start := time.Now()
	code := RunSim([]string{"--model", "sim-ok-300ms"}, strings.NewReader(simPrompt(result)), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Fatalf("sim-ok-300ms took %v", el)
	}
	data, err := os.ReadFile(result)
	if err != nil || !strings.Contains(string(data), "invocation-009") {
		t.Fatalf("result = %q, %v", data, err)
	}
	s := out.String()
	for _, want := range []string{
		"\r\x1b[2K",                        // redrawn in place
		"\x1b[32m",                         // 16 colours
		"\x1b[38;5;",                       // 256 colours
		"\x1b[38;2;",                       // truecolor
		"작업을 시작합니다",                        // wide CJK text
		"Read",                             // a tool call
		"100%",                             // the bar finished
		"✓ done",                           // the end
		"model\x1b[0m \x1b[1msim-ok-300ms", // the header names the model
	} {
		if !strings.Contains(s, want) {
			t.Errorf("sim output lacks %q:\n%q", want, s)
		}
	}
	if strings.Count(s, "작업을 시작합니다") != 1 {
		t.Errorf("the CJK line appears %d times", strings.Count(s, "작업을 시작합니다"))
	}
}

func TestRunSimFailAndNoResult(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	result := filepath.Join(dir, "r.md")
	var out, errb bytes.Buffer
	if code := RunSim([]string{"--model=sim-fail-100ms"}, strings.NewReader(simPrompt(result)), &out, &errb); code != 1 {
		t.Fatalf("sim-fail exit %d", code)
	}
	if !strings.Contains(out.String(), "simulated failure") {
		t.Fatalf("sim-fail output %q", out.String())
	}
	if code := RunSim([]string{"--model", "sim-noresult-100ms"}, strings.NewReader(simPrompt(result)), &out, &errb); code != 0 {
		t.Fatalf("sim-noresult exit %d", code)
	}
	if _, err := os.Stat(result); err == nil {
		t.Fatal("sim-fail or sim-noresult wrote the result")
	}
}

func TestRunSimUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "sim-bogus"}, `unknown sim model "sim-bogus"`},
		{[]string{"--model", "gpt-6.1-sol"}, `unknown sim model "gpt-6.1-sol"`},
		{nil, "--model is required"},
		{[]string{"--model", "sim-ok", "--fast"}, `unexpected argument "--fast"`},
	} {
		var out, errb bytes.Buffer
		code := RunSim(tc.args, strings.NewReader(""), &out, &errb)
		if code != 64 {
			t.Errorf("%v: exit %d, want 64", tc.args, code)
		}
		if lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n"); len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
			t.Errorf("%v: stderr %q, want one line with %q", tc.args, errb.String(), tc.want)
		}
		if out.Len() != 0 {
			t.Errorf("%v: printed %q", tc.args, out.String())
		}
	}
	var out, errb bytes.Buffer
	if code := RunSim([]string{"--model", "sim-ok-10ms"}, strings.NewReader("no header"), &out, &errb); code != 65 || !strings.Contains(errb.String(), "Result Path") {
		t.Errorf("no Result Path: exit %d, stderr %q", code, errb.String())
	}
}

// TestSimThroughWrapper runs the sim provider the way a pane does: the
// wrapper runs `<cockpit> worker sim --model M` (here the test binary) on a
// PTY, and the relative Result Path resolves against the project root.
func TestSimThroughWrapper(t *testing.T) {
	t.Parallel()
	env := wrapperEnv(t)
	t.Run("ok", func(t *testing.T) {
		t.Parallel()
		root := fixture.Copy(t)
		prompt := abs(root, fixture.CodexPrompt)
		w := runWrapper(t, env, "sim", root, "sim-ok-300ms", prompt, "", "analyser", "5", "--presentation", "quiet")
		if w.code != 0 {
			t.Fatalf("exit %d, stderr %q", w.code, w.stderr)
		}
		terminal(t, prompt, state.StatusCompleted, 0)
		log := readLog(t, prompt)
		if !strings.Contains(log, "cockpit sim") || !strings.Contains(log, "\x1b[38;2;") {
			t.Fatalf("log lacks the sim's output: %q", log)
		}
		if _, err := os.Stat(filepath.Join(root, fixture.RunDir, "worker-results/codex-worker-feature-analysis-002.md")); err != nil {
			t.Fatalf("result: %v", err)
		}
		if w.stdout.String() != "" {
			t.Fatalf("quiet wrapper printed %q", w.stdout)
		}
	})
	t.Run("fail", func(t *testing.T) {
		t.Parallel()
		root := fixture.Copy(t)
		prompt := abs(root, fixture.CodexPrompt)
		w := runWrapper(t, env, "sim", root, "sim-fail-100ms", prompt)
		if w.code != 1 {
			t.Fatalf("exit %d", w.code)
		}
		terminal(t, prompt, state.StatusError, 1, "exit status 1")
	})
	t.Run("hang", func(t *testing.T) {
		t.Parallel()
		root := fixture.Copy(t)
		prompt := abs(root, fixture.CodexPrompt)
		w := runWrapper(t, env, "sim", root, "sim-hang", prompt, "", "", "1")
		if w.code != 124 {
			t.Fatalf("exit %d", w.code)
		}
		terminal(t, prompt, state.StatusTimeout, 124, "no output for 1s (idle timeout)")
	})
	t.Run("ignore-term", func(t *testing.T) {
		t.Parallel()
		root := fixture.Copy(t)
		prompt := abs(root, fixture.CodexPrompt)
		w := startWrapper(t, env, "sim", root, "sim-ignore-term", prompt)
		sc := waitChild(t, prompt)
		waitLog(t, prompt, "stubborn")
		_ = w.cmd.Process.Signal(syscall.SIGTERM)
		if code := w.wait(t, 15*time.Second); code != 143 {
			t.Fatalf("exit %d", code)
		}
		terminal(t, prompt, state.StatusError, 143, "SIGTERM", "killed with SIGKILL")
		if !strings.Contains(readLog(t, prompt), "ignoring terminated") {
			t.Fatalf("the sim did not report ignoring SIGTERM: %q", readLog(t, prompt))
		}
		waitFor(t, "the sim's group to go", 5*time.Second, func() bool { return groupGone(sc.ChildPID) })
	})
	t.Run("flood", func(t *testing.T) {
		t.Parallel()
		root := fixture.Copy(t)
		prompt := abs(root, fixture.CodexPrompt)
		w := runWrapper(t, env, "sim", root, "sim-flood-500ms", prompt)
		if w.code != 0 {
			t.Fatalf("exit %d, stderr %q", w.code, w.stderr)
		}
		terminal(t, prompt, state.StatusCompleted, 0)
		log := readLog(t, prompt)
		if len(log) < 100<<10 {
			t.Fatalf("flood logged only %d bytes", len(log))
		}
		if !strings.HasPrefix(w.stdout.String(), log) {
			t.Fatalf("live stdout (%d bytes) does not start with the log (%d bytes)", len(w.stdout.String()), len(log))
		}
	})
}
