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
		// Gemini 3.1 Pro up to 200K prompt tokens, by the name the
		// catalog passes and the ones gemini-cli's aliases resolve to.
		{"antigravity", "gemini-3.1-pro", &workers.Pricing{Input: 2, CachedInput: 0.20, Output: 12}},
		{"antigravity", "gemini-3.1-pro-preview", &workers.Pricing{Input: 2, CachedInput: 0.20, Output: 12}},
		{"antigravity", "gemini-3.1-pro-preview-customtools", &workers.Pricing{Input: 2, CachedInput: 0.20, Output: 12}},
		{"antigravity", "gemini-3.1-flash", nil},
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
	doc := `{"providers": {"kimi": {"models": {"kimi-k2-thinking": {"pricing": [1.25, 0.125, 10]}}},
  "antigravity": {"models": {"gemini-3.1-pro": {"pricing": [1, 0.1, 5]}}}}}`
	if err := os.WriteFile(filepath.Join(root, ".cockpit", "providers.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := workers.LoadCatalog(root)
	if err != nil {
		t.Fatal(err)
	}
	tot := Totals{ByModel: map[string]Tokens{"kimi-k2-thinking": {Input: 1_000_000, CacheRead: 1_000_000, Output: 100_000}}}
	s := Price(cat, "kimi", "kimi-k2-thinking", tot, "kimi wire")
	if !s.Priced || !s.ListPriced || s.CostSource != CostCatalog || !near(s.CostUSD, 1.25+0.125+1.0) {
		t.Fatalf("summary = %+v, want priced at 2.375", s)
	}
	// Without the file: unpriced, cost 0, tokens still counted.
	s = Price(workers.BuiltinCatalog(), "kimi", "kimi-k2-thinking", tot, "kimi wire")
	if s.Priced || s.CostUSD != 0 || s.Input != 1_000_000 || s.Cached != 1_000_000 || s.Output != 100_000 {
		t.Fatalf("summary = %+v, want unpriced with the tokens", s)
	}
	// A row's price replaces the served one, tier and all: a prompt over
	// 200K is at the file's flat price.
	tot = Totals{ByModel: map[string]Tokens{"gemini-3.1-pro": {Input: 1_000_000, Output: 100_000}}}
	if s := Price(cat, "antigravity", "gemini-3.1-pro", tot, "stream-json"); !s.Priced || !near(s.CostUSD, 1+0.5) {
		t.Fatalf("gemini with a providers.json price: %+v, want 1.50", s)
	}
}

// TestGeminiLongContextTier: Gemini 3.1 Pro prices a request whose prompt
// is over 200K tokens (cached included) at 4 / 0.40 / 18, all of it, and
// one within at 2 / 0.20 / 12; a chat recording keeps each request, so
// each is priced by its own prompt; totals alone price only when their
// prompt is within the bound all together (then every request was), and
// are "?" otherwise, never a guess.
func TestGeminiLongContextTier(t *testing.T) {
	cat := workers.BuiltinCatalog()
	short := Tokens{Input: 150_000, CacheRead: 50_000, Output: 1_000} // 200,000: within
	long := Tokens{Input: 150_000, CacheRead: 50_001, Output: 1_000}  // 200,001: over
	shortUSD := (150_000*2.0 + 50_000*0.20 + 1_000*12.0) / 1e6        // 0.322
	longUSD := (150_000*4.0 + 50_001*0.40 + 1_000*18.0) / 1e6         // 0.6380004
	for _, tc := range []struct {
		name   string
		tot    Totals
		priced bool
		usd    float64
	}{
		{"one short request", Totals{ByModel: map[string]Tokens{"gemini-3.1-pro": short}, Requests: map[string][]Tokens{"gemini-3.1-pro": {short}}}, true, shortUSD},
		{"one long request", Totals{ByModel: map[string]Tokens{"gemini-3.1-pro": long}, Requests: map[string][]Tokens{"gemini-3.1-pro": {long}}}, true, longUSD},
		{"a short and a long request", Totals{ByModel: map[string]Tokens{"gemini-3.1-pro-preview": short.add(long)}, Requests: map[string][]Tokens{"gemini-3.1-pro-preview": {short, long}}}, true, shortUSD + longUSD},
		{"totals within the bound", Totals{ByModel: map[string]Tokens{"gemini-3.1-pro": short}}, true, shortUSD},
		{"totals over the bound", Totals{ByModel: map[string]Tokens{"gemini-3.1-pro": long}}, false, 0},
		{"two short requests as totals", Totals{ByModel: map[string]Tokens{"gemini-3.1-pro": short.add(short)}}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Price(cat, "antigravity", "gemini-3.1-pro", tc.tot, "")
			if s.Priced != tc.priced || s.ListPriced != tc.priced || !near(s.CostUSD, tc.usd) {
				t.Fatalf("summary %+v, want priced %v at %.7f", s, tc.priced, tc.usd)
			}
		})
	}
	// Read from a chat recording: two messages, one of them long.
	chat := `{"sessionId":"s","projectHash":"h","startTime":"2026-12-02T00:00:00Z","kind":"main"}
{"id":"a","type":"gemini","content":"","tokens":{"input":200000,"output":900,"cached":50000,"thoughts":100,"tool":0,"total":201000},"model":"gemini-3.1-pro"}
{"id":"b","type":"gemini","content":"","tokens":{"input":190001,"output":900,"cached":50001,"thoughts":100,"tool":10000,"total":201001},"model":"gemini-3.1-pro"}
`
	fl := NewFollower("", GeminiChat)
	fl.feed([]byte(chat))
	s := Price(cat, "antigravity", "gemini-3.1-pro", fl.Totals(), "gemini chat")
	if !s.Priced || !near(s.CostUSD, shortUSD+longUSD) {
		t.Fatalf("chat recording: %+v, want %.7f", s, shortUSD+longUSD)
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

// TestGeminiStreamStatsPerModel: gemini-cli 0.61's stream-json result
// event gives each model's counts flat (stats.models[m] = {total_tokens,
// input_tokens, output_tokens, cached, input}); a run served by two
// models is split between them (issue 16 item 6: the parser looked for
// models[m].tokens and totalled zeros), each priced by its own (flash has
// no price here: the whole is "?").
func TestGeminiStreamStatsPerModel(t *testing.T) {
	ev := `{"type":"result","status":"success","stats":{"total_tokens":4300,"input_tokens":4000,"output_tokens":200,"cached":1000,"input":3000,` +
		`"models":{"gemini-3.1-pro":{"total_tokens":3160,"input_tokens":3000,"output_tokens":160,"cached":600,"input":2400},` +
		`"gemini-3-flash-preview":{"total_tokens":1140,"input_tokens":1000,"output_tokens":40,"cached":400,"input":600}}}}` + "\n"
	fl := NewFollower("", StreamJSON)
	fl.feed([]byte(ev))
	by := fl.Totals().ByModel
	if by["gemini-3.1-pro"] != (Tokens{Input: 2400, CacheRead: 600, Output: 160}) || by["gemini-3-flash-preview"] != (Tokens{Input: 600, CacheRead: 400, Output: 40 + 100}) || len(by) != 2 {
		t.Fatalf("by model %+v", by)
	}
	s := Price(workers.BuiltinCatalog(), "antigravity", "gemini-3.1-pro", fl.Totals(), "stream-json")
	if s.Priced || s.Model != "gemini-3.1-pro" || !near(s.ListUSD, (2400*2+600*0.20+160*12)/1e6) {
		t.Fatalf("summary %+v", s)
	}
}
