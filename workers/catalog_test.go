package workers

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/okstra/cockpit/state"
)

func modelIDsOf(ms []Model) []string {
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	return ids
}

func mustProvider(t *testing.T, c *Catalog, id string) *Provider {
	t.Helper()
	p, err := c.Provider(id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBuiltinProviders(t *testing.T) {
	c := BuiltinCatalog()
	var ids, labels []string
	for _, p := range c.Providers() {
		ids = append(ids, p.ID)
		labels = append(labels, p.DisplayLabel)
	}
	if want := []string{"antigravity", "claude", "codex", "grok", "kimi", "sim"}; !slices.Equal(ids, want) {
		t.Fatalf("Providers() = %v, want %v", ids, want)
	}
	if want := []string{"Antigravity", "Claude", "Codex", "Grok", "Kimi", "Sim"}; !slices.Equal(labels, want) {
		t.Fatalf("display labels = %v, want %v", labels, want)
	}
	for _, p := range c.Providers() {
		want := PromptOnStdin
		if p.ID == "grok" {
			want = PromptOnArgv // grok -p <prompt>
		}
		if p.PromptOn() != want {
			t.Errorf("%s: PromptOn = %q, want %s", p.ID, p.PromptOn(), want)
		}
		if err := checkCommand(p.Command, p.PromptOn()); err != nil {
			t.Errorf("%s: built-in argv: %v", p.ID, err)
		}
		for _, r := range state.CanonicalRoles {
			if !p.SupportsRole(r) {
				t.Errorf("%s does not support %s", p.ID, r)
			}
			d := p.DefaultModel(r)
			if err := c.CheckModel(p.ID, d); err != nil {
				t.Errorf("%s: default model for %s: %v", p.ID, r, err)
			}
		}
	}
}

func TestCodexRows(t *testing.T) {
	c := BuiltinCatalog()
	codex := mustProvider(t, c, "codex")
	if got, want := modelIDsOf(codex.SelectableModels()), []string{"gpt-6.1-sol", "gpt-6-astra", "gpt-6-luna"}; !slices.Equal(got, want) {
		t.Fatalf("selectable = %v, want %v", got, want)
	}
	for _, r := range append(slices.Clone(state.CanonicalRoles), "lead", "executor") {
		if got := codex.DefaultModel(r); got != "gpt-6.1-sol" {
			t.Errorf("DefaultModel(%s) = %q, want gpt-6.1-sol", r, got)
		}
	}
	prices := map[string]*Pricing{
		"gpt-6.1-sol":       {2.0, 0.10, 10.0},
		"gpt-6-astra":       {10, 1, 50},
		"gpt-6-luna":        {0.10, 0.01, 0.50},
		"gpt-6-sol":         {2.0, 0.20, 10.0},
		"gpt-5.6-terra":     {2.0, 0.20, 12.0},
		"gpt-5.6-sol":       {5.0, 0.50, 30.0},
		"gpt-5.6-luna":      {0.20, 0.02, 1.20},
		"gpt-5.4-mini":      {0.75, 0.075, 4.50},
		"codex-auto-review": nil,
	}
	if len(codex.Models) != len(prices) {
		t.Fatalf("codex has %d rows, want %d", len(codex.Models), len(prices))
	}
	for id, want := range prices {
		m, ok := codex.Model(id)
		if !ok {
			t.Fatalf("codex has no row %s", id)
		}
		if (m.Pricing == nil) != (want == nil) || (want != nil && *m.Pricing != *want) {
			t.Errorf("%s pricing = %+v, want %+v", id, m.Pricing, want)
		}
		if err := c.CheckModel("codex", id); err != nil {
			t.Errorf("CheckModel(codex, %s): %v", id, err)
		}
	}
	argv, err := codex.Argv(Vars{Model: "gpt-6.1-sol", ProjectRoot: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"codex", "exec", "--model", "gpt-6.1-sol", "-c", "model_reasoning_effort=high", "--sandbox", "danger-full-access", "-c", "approval_policy=never", "-"}
	if !slices.Equal(argv, want) {
		t.Fatalf("gpt-6.1-sol argv = %q, want %q", argv, want)
	}
	argv, _ = codex.Argv(Vars{Model: "gpt-6-astra"})
	want = []string{"codex", "exec", "--model", "gpt-6-astra", "--sandbox", "danger-full-access", "-c", "approval_policy=never", "-"}
	if !slices.Equal(argv, want) {
		t.Fatalf("gpt-6-astra argv = %q, want %q", argv, want)
	}
}

func TestOtherBuiltins(t *testing.T) {
	c := BuiltinCatalog()
	claude := mustProvider(t, c, "claude")
	if got := modelIDsOf(claude.SelectableModels()); !slices.Equal(got, []string{"opus", "sonnet"}) {
		t.Fatalf("claude selectable = %v", got)
	}
	// Seed 000's roster table: "Claude worker | opus", whatever the role.
	if claude.DefaultModel("lead") != "opus" || claude.DefaultModel("report-writer") != "opus" || claude.DefaultModel("verifier") != "opus" {
		t.Fatalf("claude defaults: lead %s, report-writer %s", claude.DefaultModel("lead"), claude.DefaultModel("report-writer"))
	}
	const sid = "0b7c4c1e-8f0a-4d3e-9a51-2f6c7d8e9f01"
	for _, tc := range []struct {
		provider, model string
		want            []string
	}{
		{"claude", "opus", []string{"claude", "-p", "--model", "opus", "--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose", "--session-id", sid}},
		{"antigravity", "gemini-3.1-pro", []string{"gemini", "--model", "gemini-3.1-pro", "--yolo", "--skip-trust", "--session-id", sid}},
		{"grok", "grok-code-fast-1", []string{"grok", "--model", "grok-code-fast-1", "-p", "the prompt\n**Result Path:** r.md\n"}},
		{"kimi", "kimi-k2-thinking", []string{"kimi", "--print", "--model", "kimi-k2-thinking"}},
		{"codex", "gpt-6-luna", []string{"codex", "exec", "--add-dir", "/p/a", "--add-dir", "/p/b", "--model", "gpt-6-luna", "--sandbox", "danger-full-access", "-c", "approval_policy=never", "-"}},
	} {
		argv, err := mustProvider(t, c, tc.provider).Argv(Vars{Model: tc.model, SessionID: sid, Prompt: "the prompt\n**Result Path:** r.md\n", AddDirs: []string{"/p/a", "/p/b"}})
		if err != nil || !slices.Equal(argv, tc.want) {
			t.Errorf("%s argv = %q, %v; want %q", tc.provider, argv, err, tc.want)
		}
	}
	sim := mustProvider(t, c, "sim")
	exe, _ := os.Executable()
	argv, err := sim.Argv(Vars{Model: "sim-ok-3s"})
	if err != nil || !slices.Equal(argv, []string{exe, "worker", "sim", "--model", "sim-ok-3s"}) {
		t.Fatalf("sim argv = %q, %v", argv, err)
	}
	for _, m := range []string{"sim-ok", "sim-ok-3s", "sim-fail-200ms", "sim-hang", "sim-slow-1m", "sim-ignore-term", "sim-flood", "sim-noresult"} {
		if err := c.CheckModel("sim", m); err != nil {
			t.Errorf("CheckModel(sim, %s): %v", m, err)
		}
	}
	if len(sim.SelectableModels()) < 7 {
		t.Errorf("sim offers %d selectable models", len(sim.SelectableModels()))
	}
}

func TestCatalogErrors(t *testing.T) {
	c := BuiltinCatalog()
	_, err := c.Provider("gpt")
	if err == nil || !strings.Contains(err.Error(), `unknown provider "gpt"`) || !strings.Contains(err.Error(), "antigravity, claude, codex, grok, kimi, sim") {
		t.Fatalf("Provider(gpt) error = %v", err)
	}
	err = c.CheckModel("codex", "gpt-7")
	if err == nil || !strings.Contains(err.Error(), `unknown model "gpt-7" for provider codex`) || !strings.Contains(err.Error(), "gpt-6.1-sol") || !strings.Contains(err.Error(), "codex-auto-review") {
		t.Fatalf("CheckModel(codex, gpt-7) error = %v", err)
	}
	if err := c.CheckModel("sim", "sim-bogus"); err == nil || !strings.Contains(err.Error(), "sim-ok-<dur>") {
		t.Fatalf("CheckModel(sim, sim-bogus) error = %v", err)
	}
	if err := c.CheckModel("claude", "gpt-6.1-sol"); err == nil || !strings.Contains(err.Error(), "provider claude") || !strings.Contains(err.Error(), "opus, sonnet") {
		t.Fatalf("CheckModel(claude, gpt-6.1-sol) error = %v", err)
	}
}

func TestArgvPlaceholders(t *testing.T) {
	p := &Provider{
		ID: "x",
		Command: []string{"x", "{model}", "{modelArgs...}", "{projectRoot}", "{promptPath}", "{worktree}",
			"{resultPath}", "{role}", "{sessionId}", "{}", `{"k":1}`},
		Models: []Model{{ID: "m", ExecutionValue: "m-exec", CLIArgs: []string{"-a", "b"}}},
	}
	got, err := p.Argv(Vars{Model: "m", ProjectRoot: "/root", PromptPath: "/root/p.md", ResultPath: "/root/r.md", Role: "analyser", SessionID: "s-1"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"x", "m-exec", "-a", "b", "/root", "/root/p.md", "/root", "/root/r.md", "analyser", "s-1", "{}", `{"k":1}`}
	if !slices.Equal(got, want) {
		t.Fatalf("Argv = %q, want %q", got, want)
	}
	got, _ = p.Argv(Vars{Model: "m-exec", ProjectRoot: "/root", Worktree: "/root/wt"})
	if got[6] != "/root/wt" {
		t.Fatalf("{worktree} = %q, want /root/wt", got[6])
	}
	if _, err := p.Argv(Vars{Model: "nope"}); err == nil {
		t.Fatal("Argv accepted an unknown model")
	}
}

// writeProviders writes a providers.json and returns its path.
func writeProviders(t *testing.T, path, data string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOverridesMerge(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	// The design example, plus a model merge on codex.
	writeProviders(t, ProjectProvidersFile(root), `{
	  "providers": {
	    "codex": {
	      "displayLabel": "Codex",
	      "argv": ["codex", "exec", "--cd", "{projectRoot}", "--model", "{model}", "{modelArgs...}", "--sandbox", "danger-full-access", "-c", "approval_policy=never", "-"],
	      "promptOn": "stdin",
	      "models": {
	        "gpt-6-luna": {"pricing": [0.2, 0.02, 1.0]},
	        "gpt-6-sol": {"selectable": true},
	        "gpt-5.4-mini": null,
	        "gpt-7-nova": {"display": "GPT-7 Nova", "cliArgs": ["-c", "x=1"]}
	      },
	      "defaultModels": {"lead": "gpt-6-astra"}
	    },
	    "my-agent": {
	      "displayLabel": "My agent",
	      "argv": ["/opt/my-agent/bin/agent", "--model", "{model}", "--prompt-file", "{promptPath}"],
	      "promptOn": "file",
	      "models": {"fast-1": {"display": "Fast 1", "selectable": true, "pricing": [1.0, 0.1, 4.0]}},
	      "defaultModels": {"analyser": "fast-1"}
	    }
	  }
	}`)
	c, err := LoadCatalog(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Files) != 1 || c.Files[0] != ProjectProvidersFile(root) {
		t.Fatalf("Files = %v", c.Files)
	}
	codex := mustProvider(t, c, "codex")
	argv, err := codex.Argv(Vars{Model: "gpt-6.1-sol", ProjectRoot: "/proj"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"codex", "exec", "--cd", "/proj", "--model", "gpt-6.1-sol", "-c", "model_reasoning_effort=high", "--sandbox", "danger-full-access", "-c", "approval_policy=never", "-"}; !slices.Equal(argv, want) {
		t.Fatalf("overridden argv = %q, want %q", argv, want)
	}
	luna, _ := codex.Model("gpt-6-luna")
	if *luna.Pricing != (Pricing{0.2, 0.02, 1.0}) || !luna.Selectable || luna.Display != "gpt-6-luna" {
		t.Fatalf("merged gpt-6-luna = %+v", luna)
	}
	if _, ok := codex.Model("gpt-5.4-mini"); ok {
		t.Fatal("gpt-5.4-mini survived a null entry")
	}
	nova, ok := codex.Model("gpt-7-nova")
	if !ok || !nova.Selectable || nova.Display != "GPT-7 Nova" || nova.ExecutionValue != "gpt-7-nova" || nova.Pricing != nil {
		t.Fatalf("added gpt-7-nova = %+v, %v", nova, ok)
	}
	if got, want := modelIDsOf(codex.SelectableModels()), []string{"gpt-6.1-sol", "gpt-6-astra", "gpt-6-luna", "gpt-6-sol", "gpt-7-nova"}; !slices.Equal(got, want) {
		t.Fatalf("selectable after merge = %v, want %v", got, want)
	}
	if codex.DefaultModel("leader") != "gpt-6-astra" || codex.DefaultModel("analyser") != "gpt-6.1-sol" {
		t.Fatalf("defaults after merge: leader %s analyser %s", codex.DefaultModel("leader"), codex.DefaultModel("analyser"))
	}
	if codex.Source != ProjectProvidersFile(root) {
		t.Fatalf("codex Source = %q", codex.Source)
	}
	// The built-in catalog is untouched.
	if _, ok := mustProvider(t, BuiltinCatalog(), "codex").Model("gpt-5.4-mini"); !ok {
		t.Fatal("the override changed the built-in catalog")
	}

	agent := mustProvider(t, c, "my-agent")
	if agent.PromptOn() != PromptOnFile || agent.DisplayLabel != "My agent" || agent.DefaultModel("analyser") != "fast-1" {
		t.Fatalf("my-agent = %+v", agent)
	}
	argv, err = agent.Argv(Vars{Model: "fast-1", PromptPath: "/proj/p.md"})
	if err != nil || !slices.Equal(argv, []string{"/opt/my-agent/bin/agent", "--model", "fast-1", "--prompt-file", "/proj/p.md"}) {
		t.Fatalf("my-agent argv = %q, %v", argv, err)
	}
	if _, err := agent.Argv(Vars{Model: "fast-1"}); err == nil {
		t.Fatal("a file-prompt provider expanded without a prompt path")
	}
	if err := c.CheckModel("my-agent", "fast-1"); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range c.Providers() {
		ids = append(ids, p.ID)
	}
	if !slices.Equal(ids, []string{"antigravity", "claude", "codex", "grok", "kimi", "my-agent", "sim"}) {
		t.Fatalf("Providers() = %v", ids)
	}
}

func TestOverridesPrecedence(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	root := t.TempDir()
	user := writeProviders(t, filepath.Join(cfg, "cockpit", "providers.json"), `{"providers": {
	  "codex": {"displayLabel": "User Codex", "models": {"user-model": {"selectable": false}}},
	  "kimi": {"displayLabel": "User Kimi"}
	}}`)
	if UserProvidersFile() != user {
		t.Fatalf("UserProvidersFile() = %q, want %q", UserProvidersFile(), user)
	}
	project := writeProviders(t, ProjectProvidersFile(root), `{"providers": {
	  "codex": {"displayLabel": "Project Codex"}
	}}`)
	c, err := LoadCatalog(root)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Files, []string{user, project}) {
		t.Fatalf("Files = %v", c.Files)
	}
	codex := mustProvider(t, c, "codex")
	if codex.DisplayLabel != "Project Codex" {
		t.Fatalf("codex label = %q; the project file must win", codex.DisplayLabel)
	}
	if m, ok := codex.Model("user-model"); !ok || m.Selectable {
		t.Fatalf("user-model = %+v, %v; the user file's model must survive", m, ok)
	}
	if k := mustProvider(t, c, "kimi"); k.DisplayLabel != "User Kimi" || k.Source != user {
		t.Fatalf("kimi = %q from %q", k.DisplayLabel, k.Source)
	}
	// Without a project root only the user file applies.
	c, err = LoadCatalog("")
	if err != nil {
		t.Fatal(err)
	}
	if mustProvider(t, c, "codex").DisplayLabel != "User Codex" {
		t.Fatal("LoadCatalog(\"\") did not apply the user file")
	}
}

func TestOverridesErrors(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, tc := range []struct {
		name, json string
		want       []string // fragments of the error besides the file name
	}{
		{"malformed", "{\n  \"providers\": {\n    \"codex\": {,}\n  }\n}", []string{"malformed JSON at line 3"}},
		{"empty file", "", []string{"is empty"}},
		{"top level array", `[]`, []string{"(top level)", "is an empty array; expected an object"}},
		{"no providers", `{"provider": {}}`, []string{"provider", "not a providers.json field"}},
		{"providers not object", `{"providers": []}`, []string{"providers:", "expected an object"}},
		{"argv string", `{"providers": {"codex": {"argv": "codex exec"}}}`, []string{"providers.codex.argv", "is a string; expected an array of strings"}},
		{"argv empty", `{"providers": {"codex": {"argv": []}}}`, []string{"providers.codex.argv", "is empty"}},
		{"argv number", `{"providers": {"codex": {"argv": ["codex", 7]}}}`, []string{"providers.codex.argv[1]", "is a number"}},
		{"unknown placeholder", `{"providers": {"codex": {"argv": ["codex", "{bogus}"]}}}`, []string{"providers.codex.argv", "unknown placeholder {bogus}"}},
		{"modelArgs without dots", `{"providers": {"codex": {"argv": ["codex", "{modelArgs}"]}}}`, []string{"providers.codex.argv", "unknown placeholder {modelArgs}"}},
		{"embedded placeholder", `{"providers": {"codex": {"argv": ["codex", "--cd={projectRoot}"]}}}`, []string{"providers.codex.argv", "whole argv token"}},
		{"promptOn", `{"providers": {"codex": {"promptOn": "pipe"}}}`, []string{"providers.codex.promptOn", `"pipe"`}},
		{"file without promptPath", `{"providers": {"codex": {"promptOn": "file"}}}`, []string{"providers.codex.argv", "{promptPath}"}},
		{"pricing short", `{"providers": {"codex": {"models": {"gpt-6-luna": {"pricing": [1, 2]}}}}}`, []string{"providers.codex.models.gpt-6-luna.pricing", "an array of 2"}},
		{"selectable string", `{"providers": {"codex": {"models": {"gpt-6-luna": {"selectable": "yes"}}}}}`, []string{"providers.codex.models.gpt-6-luna.selectable", "expected true or false"}},
		{"model field", `{"providers": {"codex": {"models": {"gpt-6-luna": {"price": 1}}}}}`, []string{"providers.codex.models.gpt-6-luna.price", "not a model field"}},
		{"provider field", `{"providers": {"codex": {"args": []}}}`, []string{"providers.codex.args", "not a provider field"}},
		{"default unknown model", `{"providers": {"codex": {"defaultModels": {"analyser": "gpt-9"}}}}`, []string{"providers.codex.defaultModels.analyser", `"gpt-9"`}},
		{"default bad role", `{"providers": {"codex": {"defaultModels": {"boss": "gpt-6-luna"}}}}`, []string{"providers.codex.defaultModels.boss", "unknown role"}},
		{"removed default", `{"providers": {"codex": {"models": {"gpt-6.1-sol": null}}}}`, []string{"providers.codex.defaultModels.", `"gpt-6.1-sol"`}},
		{"new without argv", `{"providers": {"mine": {"models": {"m": {}}}}}`, []string{"providers.mine.argv", "is missing"}},
		{"new without models", `{"providers": {"mine": {"argv": ["mine"]}}}`, []string{"providers.mine.models", "is missing"}},
		{"roles", `{"providers": {"codex": {"roles": ["boss"]}}}`, []string{"providers.codex.roles[0]", "unknown role"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			file := writeProviders(t, ProjectProvidersFile(root), tc.json)
			_, err := LoadCatalog(root)
			if err == nil {
				t.Fatal("LoadCatalog accepted a bad providers.json")
			}
			msg := err.Error()
			t.Log(msg)
			if !strings.HasPrefix(msg, file+":") {
				t.Errorf("error %q does not start with the file %s", msg, file)
			}
			for _, f := range tc.want {
				if !strings.Contains(msg, f) {
					t.Errorf("error %q does not contain %q", msg, f)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error %q is not one line", msg)
			}
		})
	}
}

func TestOverridesRoles(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	writeProviders(t, ProjectProvidersFile(root), `{"$schema": "x", "providers": {"grok": {"roles": ["analyser", "lead"]}}}`)
	c, err := LoadCatalog(root)
	if err != nil {
		t.Fatal(err)
	}
	g := mustProvider(t, c, "grok")
	if !g.SupportsRole("analyser") || !g.SupportsRole("leader") || g.SupportsRole("verifier") || g.SupportsRole("nonsense") {
		t.Fatalf("grok roles = %v", g.Roles)
	}
}
