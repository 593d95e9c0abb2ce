package workers

import (
	"os"

	"github.com/okstra/cockpit/state"
)

// SimProviderID is the built-in provider that needs no LLM CLI: it runs the
// cockpit binary itself as `cockpit worker sim`.
const SimProviderID = "sim"

func priced(in, cached, out float64) *Pricing {
	return &Pricing{Input: in, CachedInput: cached, Output: out}
}

// everyRole maps every canonical role to model.
func everyRole(model string) map[string]string {
	m := make(map[string]string, len(state.CanonicalRoles))
	for _, r := range state.CanonicalRoles {
		m[r] = model
	}
	return m
}

func row(id string, pricing *Pricing, selectable bool, args ...string) Model {
	return Model{ID: id, Display: id, ExecutionValue: id, Pricing: pricing, CLIArgs: args, Selectable: selectable}
}

// builtinProviders returns fresh copies of the built-in providers. Codex's
// rows, prices and argv come from okstra's codex adapter; the other CLIs'
// argv are this project's choices (docs/WORKERS.md says why).
func builtinProviders() []*Provider {
	return []*Provider{
		{
			ID:           "codex",
			DisplayLabel: "Codex",
			// As okstra's codex adapter: --add-dir for each write-scope
			// directory other than the project root, before --model.
			Command: []string{"codex", "exec", "{addDirArgs...}", "--model", "{model}", "{modelArgs...}",
				"--sandbox", "danger-full-access", "-c", "approval_policy=never", "-"},
			promptOn: PromptOnStdin,
			Wrapper:  "okstra-codex-exec.sh",
			Models: []Model{
				row("gpt-6.1-sol", priced(2.0, 0.10, 10.0), true, "-c", "model_reasoning_effort=high"),
				row("gpt-6-astra", priced(10.0, 1.0, 50.0), true),
				row("gpt-6-luna", priced(0.10, 0.01, 0.50), true),
				row("gpt-6-sol", priced(2.0, 0.20, 10.0), false),
				row("gpt-5.6-terra", priced(2.0, 0.20, 12.0), false),
				row("gpt-5.6-sol", priced(5.0, 0.50, 30.0), false),
				row("gpt-5.6-luna", priced(0.20, 0.02, 1.20), false),
				row("gpt-5.4-mini", priced(0.75, 0.075, 4.50), false),
				row("codex-auto-review", nil, false),
			},
			DefaultModels: everyRole("gpt-6.1-sol"),
			normalize:     snapshotRefs,
		},
		{
			ID:           "claude",
			DisplayLabel: "Claude",
			// stream-json keeps output flowing while Claude works, so a long
			// turn is not mistaken for silence by the idle timeout, and the
			// log holds the whole transcript.
			// --session-id: the session the transcript is filed under is
			// the one the dispatcher issued (seed 004).
			Command: []string{"claude", "-p", "--model", "{model}", "{modelArgs...}",
				"--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose",
				"--session-id", "{sessionId}"},
			promptOn: PromptOnStdin,
			Wrapper:  "okstra-claude-exec.sh",
			Models: []Model{
				{ID: "opus", Display: "Claude Opus", ExecutionValue: "opus", Selectable: true},
				{ID: "sonnet", Display: "Claude Sonnet", ExecutionValue: "sonnet", Selectable: true},
			},
			// Seed 000's roster table: "Claude worker | opus", for every
			// role.
			DefaultModels: everyRole("opus"),
			Served:        claudeServed,
			normalize:     claudeRefs,
		},
		{
			ID:           "antigravity",
			DisplayLabel: "Antigravity",
			// --skip-trust: headless gemini 0.61 in a folder it has not been
			// told to trust turns --yolo into default approval and exits 55.
			Command: []string{"gemini", "--model", "{model}", "{modelArgs...}", "--yolo", "--skip-trust",
				"--session-id", "{sessionId}"},
			promptOn: PromptOnStdin,
			Wrapper:  "okstra-antigravity-exec.sh",
			Models: []Model{
				{ID: "gemini-3.1-pro", Display: "Gemini 3.1 Pro", ExecutionValue: "gemini-3.1-pro", Selectable: true},
			},
			DefaultModels: everyRole("gemini-3.1-pro"),
			Served:        geminiServed,
			normalize:     geminiRefs,
		},
		{
			ID:           "grok",
			DisplayLabel: "Grok",
			// Without -p grok opens its Ink UI, which fails on a piped stdin.
			Command:  []string{"grok", "--model", "{model}", "{modelArgs...}", "-p", "{prompt}"},
			promptOn: PromptOnArgv,
			Wrapper:  "okstra-grok-exec.sh",
			Models: []Model{
				{ID: "grok-code-fast-1", Display: "Grok Code Fast 1", ExecutionValue: "grok-code-fast-1", Selectable: true},
			},
			DefaultModels: everyRole("grok-code-fast-1"),
			normalize:     snapshotRefs,
		},
		{
			ID:           "kimi",
			DisplayLabel: "Kimi",
			Command:      []string{"kimi", "--print", "--model", "{model}", "{modelArgs...}"},
			promptOn:     PromptOnStdin,
			Wrapper:      "okstra-kimi-exec.sh",
			Models: []Model{
				{ID: "kimi-k2-thinking", Display: "Kimi K2 Thinking", ExecutionValue: "kimi-k2-thinking", Selectable: true},
			},
			DefaultModels: everyRole("kimi-k2-thinking"),
			normalize:     exactRefs,
		},
		simProvider(),
	}
}

func simProvider() *Provider {
	exe, err := os.Executable()
	if err != nil || exe == "" {
		exe = "cockpit"
	}
	var models []Model
	for _, m := range simCatalogModels {
		models = append(models, Model{ID: m.id, Display: m.display, ExecutionValue: m.id, Selectable: true, Pricing: &simPricing})
	}
	return &Provider{
		ID:            SimProviderID,
		DisplayLabel:  "Sim",
		Command:       []string{exe, "worker", "sim", "--model", "{model}"},
		promptOn:      PromptOnStdin,
		Models:        models,
		DefaultModels: everyRole("sim-ok"),
		acceptPricing: &simPricing,
		normalize:     exactRefs,
		accept: func(name string) bool {
			_, err := parseSimModel(name)
			return err == nil
		},
	}
}

func builtinCatalog() *Catalog {
	c := &Catalog{providers: map[string]*Provider{}}
	for _, p := range builtinProviders() {
		p.Source = "built-in"
		c.providers[p.ID] = p
	}
	return c
}
