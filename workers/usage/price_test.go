package usage

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/okstra/cockpit/workers"
)

func TestLookup(t *testing.T) {
	cat := workers.BuiltinCatalog()
	for _, tc := range []struct {
		provider, model string
		want            *workers.Pricing
	}{
		{"codex", "gpt-6.1-sol", &workers.Pricing{Input: 2, CachedInput: 0.10, Output: 10}},
		{"claude", "claude-sonnet-4-5-20250929", &workers.Pricing{Input: 3, CachedInput: 0.30, Output: 15}},
		{"claude", "claude-opus-4-8", &workers.Pricing{Input: 5, CachedInput: 0.50, Output: 25}},
		{"claude", "claude-opus-4-20250514", &workers.Pricing{Input: 15, CachedInput: 1.50, Output: 75}},
		// What claude-code 2.1.332's aliases resolve to.
		{"claude", "claude-opus-5-5", &workers.Pricing{Input: 4, CachedInput: 0.20, Output: 20}},
		{"claude", "claude-sonnet-5-5", &workers.Pricing{Input: 2, CachedInput: 0.10, Output: 10}},
		{"claude", "claude-sonnet-5", &workers.Pricing{Input: 2, CachedInput: 0.20, Output: 10}},
		// A model of another provider's CLI still prices (a providers.json
		// provider that runs claude).
		{"my-agent", "claude-haiku-4-5-20251001", &workers.Pricing{Input: 1, CachedInput: 0.10, Output: 5}},
		{"sim", "sim-ok-4s", &workers.Pricing{Input: 2, CachedInput: 0.10, Output: 10}},
		// Unknown: no price, never a guess.
		{"claude", "opus", nil},
		{"claude", "claude-haiku-5-5", nil},
		{"claude", "claude-fable-5-2", nil},
		{"claude", "claude-sonnet-4-5-preview", nil},
		{"antigravity", "gemini-3.1-pro", nil},
		{"kimi", "kimi-k2-thinking", nil},
		{"grok", "grok-code-fast-1", nil},
	} {
		got := Lookup(cat, tc.provider, tc.model)
		if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
			t.Errorf("Lookup(%s, %s) = %v, want %v", tc.provider, tc.model, got, tc.want)
		}
	}
}

// TestProvidersJSONPrice: a price given in providers.json prices a model the
// built-in catalog leaves unpriced.
func TestProvidersJSONPrice(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".cockpit"), 0o755)
	doc := `{"providers": {"antigravity": {"models": {"gemini-3.1-pro": {"pricing": [1.25, 0.125, 10]}}}}}`
	if err := os.WriteFile(filepath.Join(root, ".cockpit", "providers.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := workers.LoadCatalog(root)
	if err != nil {
		t.Fatal(err)
	}
	tot := Totals{ByModel: map[string]Tokens{"gemini-3.1-pro": {Input: 1_000_000, CacheRead: 1_000_000, Output: 100_000}}}
	s := Price(cat, "antigravity", "gemini-3.1-pro", tot, "stream-json")
	if !s.Priced || !s.ListPriced || s.CostSource != CostCatalog || !near(s.CostUSD, 1.25+0.125+1.0) {
		t.Fatalf("summary = %+v, want priced at 2.375", s)
	}
	// Without the file: unpriced, cost 0, tokens still counted.
	s = Price(workers.BuiltinCatalog(), "antigravity", "gemini-3.1-pro", tot, "stream-json")
	if s.Priced || s.CostUSD != 0 || s.Input != 1_000_000 || s.Cached != 1_000_000 || s.Output != 100_000 {
		t.Fatalf("summary = %+v, want unpriced with the tokens", s)
	}
}

// TestPartlyPriced: one unpriced model makes the whole unpriced, the priced
// part still adds up, and the model named is the one with most tokens.
func TestPartlyPriced(t *testing.T) {
	tot := Totals{ByModel: map[string]Tokens{
		"claude-haiku-4-5": {Input: 1_000_000},
		"claude-haiku-5-5": {Input: 10, Output: 5},
	}, Last: "claude-haiku-5-5"}
	s := Price(workers.BuiltinCatalog(), "claude", "sonnet", tot, "stream-json")
	if s.Priced || s.ListPriced || s.CostSource != "" || !near(s.ListUSD, 1.0) || s.Model != "claude-haiku-4-5" {
		t.Fatalf("summary = %+v", s)
	}
	// The CLI's own figure prices it all.
	tot.CLICost, tot.CLICostUSD = true, 1.25
	s = Price(workers.BuiltinCatalog(), "claude", "sonnet", tot, "stream-json")
	if !s.Priced || s.ListPriced || s.CostSource != CostCLI || s.CostUSD != 1.25 || !near(s.ListUSD, 1.0) {
		t.Fatalf("summary with the CLI's cost = %+v", s)
	}
}

// TestCacheWritePrices: claude's cache writes are priced at 1.25× input
// for 5 minutes and 2× for an hour (cache_creation's split); a model
// without cache-write prices prices them as input.
func TestCacheWritePrices(t *testing.T) {
	cat := workers.BuiltinCatalog()
	tot := Totals{ByModel: map[string]Tokens{"claude-sonnet-5-5": {CacheWrite: 3_000_000, CacheWrite1h: 1_000_000}}}
	if s := Price(cat, "claude", "sonnet", tot, ""); !near(s.ListUSD, 2*2.5+1*4) || s.CacheWrite != 3_000_000 || s.Input != 3_000_000 {
		t.Fatalf("claude: %+v, want 2M at 2.50 and 1M at 4", s)
	}
	tot = Totals{ByModel: map[string]Tokens{"gpt-6.1-sol": {CacheWrite: 1_000_000}}}
	if s := Price(cat, "codex", "gpt-6.1-sol", tot, ""); !near(s.ListUSD, 2) {
		t.Fatalf("codex: %+v, want priced as input", s)
	}
	line := `{"type":"assistant","message":{"id":"m","model":"claude-opus-5-5","usage":{"input_tokens":1,"cache_creation_input_tokens":300,"cache_read_input_tokens":0,"output_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":100,"ephemeral_1h_input_tokens":200}}}}` + "\n"
	fl := NewFollower("", ClaudeSession)
	fl.feed([]byte(line))
	if got := fl.Totals().All(); got != (Tokens{Input: 1, CacheWrite: 300, CacheWrite1h: 200}) {
		t.Fatalf("tokens %+v", got)
	}
}
