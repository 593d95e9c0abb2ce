package realcli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/mockllm"
)

const prompt = "# Task\n\nWrite the result.\n\n**Result Path:** results/out.md\n"

// TestEachCLIWritesItsResultAgainstTheMock runs each pinned CLI once, as a
// person would headless, in a home NewHome made: the traps of a fresh
// machine (onboarding, auth selection, provider config) are all handled
// when it writes the Result Path through its own tool and exits 0.
func TestEachCLIWritesItsResultAgainstTheMock(t *testing.T) {
	bin := Require(t)
	mock, err := mockllm.Start(mockllm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		cli   string
		args  []string
		stdin bool
		env   []string
	}{
		// As root claude refuses bypassPermissions unless IS_SANDBOX=1; the
		// test lifts it deliberately (the cockpit never does).
		{"claude", []string{"-p", "--model", "sonnet", "--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose"}, true, []string{"IS_SANDBOX=1"}},
		{"codex", []string{"exec", "--model", "gpt-6.1-sol", "--sandbox", "danger-full-access", "-c", "approval_policy=never", "--skip-git-repo-check", "-"}, true, nil},
		{"gemini", []string{"--model", "gemini-3.1-pro", "--yolo", "--skip-trust"}, true, nil},
		{"grok", []string{"--model", "grok-code-fast-1", "-p", prompt}, false, nil},
	}
	for _, c := range cases {
		t.Run(c.cli, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			home, err := NewHome(filepath.Join(dir, "home"), mock.URL(), bin)
			if err != nil {
				t.Fatal(err)
			}
			proj := filepath.Join(dir, c.cli+"-proj")
			if err := os.MkdirAll(filepath.Join(proj, "results"), 0o755); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(bin, c.cli), c.args...)
			cmd.Dir = proj
			cmd.Env = home.Env(nil, c.env...)
			cmd.WaitDelay = 5 * time.Second
			if c.stdin {
				cmd.Stdin = strings.NewReader(prompt)
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", c.cli, err, out)
			}
			got, err := os.ReadFile(filepath.Join(proj, "results", "out.md"))
			if err != nil || !strings.Contains(string(got), "Written by the mock LLM for results/out.md.") {
				t.Fatalf("%s wrote no result (%v): %q\noutput:\n%s", c.cli, err, got, out)
			}
		})
	}
	t.Cleanup(func() {
		defer mock.Close()
		if p := mock.Problems(); len(p) > 0 {
			t.Errorf("the mock saw requests it could not answer: %q", p)
		}
		for _, cli := range []string{"results/out.md"} {
			if n := len(mock.For(cli)); n < 8 {
				t.Errorf("the mock answered %d requests for %s, want at least 2 per CLI", n, cli)
			}
		}
	})
}

func TestEnvDropsTheCallersAccounts(t *testing.T) {
	h := &Home{Dir: "/h", MockURL: "http://127.0.0.1:9", Bin: "/b"}
	env := h.Env([]string{"PATH=/usr/bin", "ANTHROPIC_API_KEY=real", "OPENAI_API_KEY=real", "TMUX=/tmp/t,1,0", "HOME=/root", "LANG=C"}, "IS_SANDBOX=1")
	want := map[string]string{"PATH": "/b:/usr/bin", "ANTHROPIC_API_KEY": APIKey, "HOME": "/h", "LANG": "C", "IS_SANDBOX": "1", "GROK_BASE_URL": "http://127.0.0.1:9/v1"}
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := got[k]; dup {
			t.Errorf("%s twice", k)
		}
		got[k] = v
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for _, k := range []string{"OPENAI_API_KEY", "TMUX"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s leaked into the CLI's environment", k)
		}
	}
}
