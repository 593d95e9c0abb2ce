package workers

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fakeprovider"
	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/state"
)

// fixtureJob is the fixture's initial job of provider, resolved.
func fixtureJob(t *testing.T, root, provider string) state.ResolvedJob {
	t.Helper()
	run, err := state.LoadRun(root, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	_, jobs, err := state.LoadJobs(run, fixture.JobsInitial, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if j.Provider == provider {
			return j
		}
	}
	t.Fatalf("no %s job in %s", provider, fixture.JobsInitial)
	return state.ResolvedJob{}
}

// attestation is the terminal sidecar's servedModelAttestation, compacted.
func attestation(t *testing.T, sc *state.Sidecar) string {
	t.Helper()
	if sc.ServedModelAttestation == nil {
		t.Fatal("the v2 sidecar has no servedModelAttestation")
	}
	return compact(t, sc.ServedModelAttestation)
}

// TestServedModelVerified: the fake claude's stream-json (in the log)
// names claude-sonnet-4-6 for the analyser bound to sonnet: verified, from
// stream-json, the run completed. With CODEX_HOME set the fake codex
// leaves a rollout whose turn_context names gpt-6.1-sol, its binding.
func TestServedModelVerified(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ provider, want string }{
		{"claude", `{"observedModel":"claude-sonnet-4-6","normalizedModelRef":"sonnet","level":"verified","source":"stream-json"}`},
		{"codex", `{"observedModel":"gpt-6.1-sol","normalizedModelRef":"gpt-6.1-sol","level":"verified","source":"rollout"}`},
	} {
		t.Run(c.provider, func(t *testing.T) {
			t.Parallel()
			root := fixture.Copy(t)
			job := fixtureJob(t, root, c.provider)
			env := wrapperEnv(t, "CODEX_HOME="+t.TempDir())
			w := runWrapper(t, env, ExecArgs(root, job, PresentationQuiet)...)
			if w.code != 0 {
				t.Fatalf("exit %d, stderr %q, log %q", w.code, w.stderr, readLog(t, job.Prompt))
			}
			sc := terminal(t, job.Prompt, state.StatusCompleted, 0)
			if got := attestation(t, sc); got != c.want {
				t.Errorf("servedModelAttestation\n got %s\nwant %s", got, c.want)
			}
			// The started sidecar said unknown; the terminal one is what
			// the file holds now.
			raw, _ := os.ReadFile(state.SidecarPath(job.Prompt))
			if !strings.Contains(string(raw), `"level": "verified"`) {
				t.Errorf("sidecar JSON:\n%s", raw)
			}
		})
	}
}

// TestServedModelMismatch: the fake's evidence names another model than
// the role execution binds, as an API answering with another model leaves
// it (claude's stream-json; codex's "model rerouted" line, its rollout
// still naming the model asked for): the attestation says mismatch and the worker's terminal status is
// error with the verifier's reason, though the CLI exited 0 and wrote its
// result; the wrapper exits with the CLI's 0.
func TestServedModelMismatch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ provider, served, want, reason string }{
		{"claude", "claude-haiku-4-5",
			`{"observedModel":"claude-haiku-4-5","normalizedModelRef":"haiku","level":"mismatch","source":"stream-json"}`,
			"served model mismatch: role execution role-execution-004 is bound to sonnet, but the stream-json names claude-haiku-4-5 (haiku); dispatch again once the provider serves sonnet, or bind the role to the model it serves"},
		{"codex", "gpt-6-luna",
			`{"observedModel":"gpt-6-luna","normalizedModelRef":"gpt-6-luna","level":"mismatch","source":"exec-log"}`,
			"served model mismatch: role execution role-execution-002 is bound to gpt-6.1-sol, but the exec-log names gpt-6-luna; dispatch again once the provider serves gpt-6.1-sol, or bind the role to the model it serves"},
	} {
		t.Run(c.provider, func(t *testing.T) {
			t.Parallel()
			root := fixture.Copy(t)
			job := fixtureJob(t, root, c.provider)
			env := wrapperEnv(t, "CODEX_HOME="+t.TempDir(), fakeprovider.EnvServedModel+"="+c.served)
			w := runWrapper(t, env, ExecArgs(root, job, PresentationLive)...)
			if w.code != 0 {
				t.Fatalf("exit %d, stderr %q", w.code, w.stderr)
			}
			sc := terminal(t, job.Prompt, state.StatusError, 0)
			if sc.Reason != c.reason {
				t.Errorf("reason\n got %q\nwant %q", sc.Reason, c.reason)
			}
			if got := attestation(t, sc); got != c.want {
				t.Errorf("servedModelAttestation\n got %s\nwant %s", got, c.want)
			}
			if _, err := os.Stat(job.Result); err != nil {
				t.Errorf("the CLI's result: %v", err)
			}
			if !strings.Contains(w.stdout.String(), "[cockpit worker exec: error: served model mismatch") {
				t.Errorf("the closing line does not name the mismatch:\n%q", w.stdout.String())
			}
		})
	}
}

// TestServedModelUnknown: a CLI that leaves nothing naming a model (codex
// without a rollout: the fake writes none without CODEX_HOME; gemini,
// whose fake leaves no chat recording) is attested unknown, unavailable,
// and is not an error.
func TestServedModelUnknown(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"codex", "antigravity"} {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			root := fixture.Copy(t)
			job := fixtureJob(t, root, provider)
			w := runWrapper(t, wrapperEnv(t, "CODEX_HOME=", "GEMINI_CLI_HOME="+t.TempDir()), ExecArgs(root, job, PresentationQuiet)...)
			if w.code != 0 {
				t.Fatalf("exit %d, stderr %q", w.code, w.stderr)
			}
			sc := terminal(t, job.Prompt, state.StatusCompleted, 0)
			if got, want := attestation(t, sc), `{"observedModel":null,"normalizedModelRef":null,"level":"unknown","source":"unavailable"}`; got != want {
				t.Errorf("servedModelAttestation\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestServedRefs holds each provider's normalization rule (docs/OKSTRA.md).
func TestServedRefs(t *testing.T) {
	t.Parallel()
	cat := BuiltinCatalog()
	for _, c := range []struct {
		provider, served string
		want             []string
	}{
		{"claude", "claude-opus-4-1-20250805", []string{"opus"}},
		{"claude", "claude-sonnet-5-5", []string{"sonnet"}},
		{"claude", "claude-3-5-sonnet-20241022", []string{"sonnet"}},
		{"claude", "claude-haiku-5-5", []string{"haiku"}},
		{"claude", "opus", []string{"opus"}},
		{"claude", "gpt-6.1-sol", nil},
		{"codex", "gpt-6.1-sol", []string{"gpt-6.1-sol"}},
		{"codex", "gpt-6-luna-2026-10-01", []string{"gpt-6-luna"}},
		{"codex", "gpt-4o", nil},
		{"antigravity", "gemini-3.1-pro", []string{"gemini-3.1-pro", "pro"}},
		{"antigravity", "gemini-3.1-pro-preview-customtools", []string{"gemini-3.1-pro", "pro"}},
		{"antigravity", "gemini-2.5-flash-lite", []string{"flash-lite"}},
		{"grok", "grok-code-fast-1", []string{"grok-code-fast-1"}},
		{"kimi", "kimi-k2-thinking", []string{"kimi-k2-thinking"}},
		{"sim", "sim-ok-3s", []string{"sim-ok-3s"}},
	} {
		p, err := cat.Provider(c.provider)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.ServedRefs(c.served); strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s %s: refs %q, want %q", c.provider, c.served, got, c.want)
		}
	}
}

// TestAttest holds the level table: verified by a ref or the name itself,
// mismatch for a built-in provider, observed where there is no rule (a
// providers.json provider), unknown when nothing was observed.
func TestAttest(t *testing.T) {
	t.Parallel()
	cat := BuiltinCatalog()
	claude, _ := cat.Provider("claude")
	custom := &Provider{ID: "my-agent", Models: []Model{{ID: "m1", ExecutionValue: "m1"}}}
	for _, c := range []struct {
		p        *Provider
		obs      ServedObservation
		bound    string
		want     string
		mismatch bool
	}{
		{claude, ServedObservation{"claude-opus-5-5", SourceStreamJSON}, "opus", `{"observedModel":"claude-opus-5-5","normalizedModelRef":"opus","level":"verified","source":"stream-json"}`, false},
		{claude, ServedObservation{"claude-opus-5-5", SourceSessionLog}, "sonnet", `{"observedModel":"claude-opus-5-5","normalizedModelRef":"opus","level":"mismatch","source":"session-log"}`, true},
		{claude, ServedObservation{"claude-zephyr-9", SourceStreamJSON}, "claude-zephyr-9", `{"observedModel":"claude-zephyr-9","normalizedModelRef":"claude-zephyr-9","level":"verified","source":"stream-json"}`, false},
		{claude, ServedObservation{}, "opus", `{"observedModel":null,"normalizedModelRef":null,"level":"unknown","source":"unavailable"}`, false},
		{custom, ServedObservation{"m1", SourceStreamJSON}, "m1", `{"observedModel":"m1","normalizedModelRef":"m1","level":"verified","source":"stream-json"}`, false},
		{custom, ServedObservation{"m1-large", SourceStreamJSON}, "m1", `{"observedModel":"m1-large","normalizedModelRef":null,"level":"observed","source":"stream-json"}`, false},
	} {
		a, err := c.p.Attest(c.obs, c.bound, "role-execution-009")
		if got := string(a.JSON()); got != c.want || (err != "") != c.mismatch {
			t.Errorf("%s %+v bound %s:\n got %s %q\nwant %s (mismatch %v)", c.p.ID, c.obs, c.bound, got, err, c.want, c.mismatch)
		}
	}
}

// TestServedModelNotReadWhenStopped: a wrapper stopped by a signal writes
// its terminal status without reading the evidence (a closing pane
// SIGKILLs it seconds later): the attestation stays unknown, though the
// fake claude's stream-json already named another model than bound.
func TestServedModelNotReadWhenStopped(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	fixture.SetBehaviour(t, root, fixture.ClaudePrompt, "hang")
	job := fixtureJob(t, root, "claude")
	w := startWrapper(t, wrapperEnv(t, fakeprovider.EnvServedModel+"=claude-haiku-4-5"), ExecArgs(root, job, PresentationQuiet)...)
	waitChild(t, job.Prompt)
	waitLog(t, job.Prompt, `"model":"claude-haiku-4-5","usage"`)
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := w.wait(t, 15*time.Second); code != 143 {
		t.Fatalf("exit %d, want 143", code)
	}
	sc := terminal(t, job.Prompt, state.StatusError, 143, "wrapper got SIGTERM")
	if got, want := attestation(t, sc), `{"observedModel":null,"normalizedModelRef":null,"level":"unknown","source":"unavailable"}`; got != want {
		t.Errorf("servedModelAttestation\n got %s\nwant %s", got, want)
	}
}
