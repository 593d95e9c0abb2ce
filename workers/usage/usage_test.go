package usage

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/okstra/cockpit/workers"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// readAll follows a sample from start to end in one Update.
func readAll(t *testing.T, path string, f Format) *Follower {
	t.Helper()
	fl := NewFollower(path, f)
	changed, err := fl.Update()
	if err != nil || !changed {
		t.Fatalf("Update(%s) = %v, %v; want changed", path, changed, err)
	}
	return fl
}

// listed is s priced from the catalog: its CostUSD is the list price.
func listed(s Summary) Summary {
	s.ListUSD, s.ListPriced, s.Priced, s.CostSource = s.CostUSD, true, true, CostCatalog
	return s
}

func TestSamples(t *testing.T) {
	cat := workers.BuiltinCatalog()
	for _, tc := range []struct {
		file, provider, model string
		format                Format
		want                  Summary
	}{
		// msg_01A counted once (its second line's 240 output tokens), msg_01B,
		// the synthetic line not at all: sonnet 4.5 at 3 / 0.30 / 15, its
		// 20500 cache writes at 3.75.
		{"claude-session.jsonl", "claude", "sonnet", ClaudeSession, listed(Summary{
			Input: 20 + 20500, CacheWrite: 20500, Cached: 18000, Output: 850, Model: "claude-sonnet-4-5-20250929",
			CostUSD: (20*3 + 20500*3.75 + 18000*0.30 + 850*15) / 1e6, Source: "claude session"})},
		// The last cumulative total, cached input taken out of input: gpt-6.1-sol at 2 / 0.10 / 10.
		{"codex-rollout.jsonl", "codex", "gpt-6.1-sol", CodexRollout, listed(Summary{
			Input: 31000 - 14080, Cached: 14080, Output: 2100, Model: "gpt-6.1-sol",
			CostUSD: (16920*2 + 14080*0.10 + 2100*10) / 1e6, Source: "codex rollout"})},
		// The result event's modelUsage: opus 4.8 (5 / 0.50 / 25, cache
		// writes 6.25) and a haiku 4.5 subagent (1 / 0.10 / 5); the cost
		// shown is the event's total_cost_usd.
		{"claude-stream.log", "claude", "opus", StreamJSON, Summary{
			Input: 10 + 10200 + 900, CacheWrite: 10200, Cached: 33000, Output: 520 + 60, Model: "claude-opus-4-8-20261015",
			ListUSD: (10*5+10200*6.25+33000*0.50+520*25)/1e6 + (900*1+60*5)/1e6, ListPriced: true,
			CostUSD: 0.1655, Priced: true, CostSource: CostCLI, Source: "stream-json"}},
		// Gemini: thoughts (total - input - output) counted as output;
		// Gemini 3.1 Pro within 200K prompt tokens, 2 / 0.20 / 12.
		{"gemini-stream.jsonl", "antigravity", "gemini-3.1-pro", StreamJSON, Summary{
			Input: 24939 - 21263, Cached: 21263, Output: 20 + 154, Model: "gemini-3.1-pro", Source: "stream-json",
			CostUSD: 0.0136926, Priced: true, CostSource: CostCatalog, ListUSD: 0.0136926, ListPriced: true}},
		// Kimi names no model: the dispatch's, unpriced.
		{"kimi-wire.jsonl", "kimi", "kimi-k2-thinking", KimiWire, Summary{
			Input: 6100, Cached: 5120, Output: 950, Model: "kimi-k2-thinking", Source: "kimi wire"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			fl := readAll(t, filepath.Join("testdata", tc.file), tc.format)
			got := Price(cat, tc.provider, tc.model, fl.Totals(), tc.format.String())
			if !near(got.CostUSD, tc.want.CostUSD) || !near(got.ListUSD, tc.want.ListUSD) {
				t.Errorf("cost = %.6f list %.6f, want %.6f %.6f", got.CostUSD, got.ListUSD, tc.want.CostUSD, tc.want.ListUSD)
			}
			got.CostUSD, got.ListUSD = tc.want.CostUSD, tc.want.ListUSD
			if got != tc.want {
				t.Errorf("summary =\n %+v\nwant\n %+v", got, tc.want)
			}
		})
	}
}

// TestIncremental appends each sample in pieces cut anywhere (inside a
// line, inside a CRLF) and checks that every Update sees exactly the
// complete lines so far: a torn last line is not counted, and the end
// result equals one whole read.
func TestIncremental(t *testing.T) {
	for _, tc := range []struct {
		file   string
		format Format
	}{
		{"claude-session.jsonl", ClaudeSession}, {"codex-rollout.jsonl", CodexRollout},
		{"claude-stream.log", StreamJSON}, {"gemini-stream.jsonl", StreamJSON}, {"kimi-wire.jsonl", KimiWire},
		// The real CLIs' (testdata/real): a 22 KiB first line, a message
		// id written twice, a cost-state line.
		{"real/" + realRollout, CodexRollout}, {"real/" + realGeminiChat, GeminiChat},
		{"real/claude-stream.log", StreamJSON}, {"real/" + realClaudeID + ".jsonl", ClaudeSession},
		{"real/gemini-stream.log", StreamJSON},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			whole := readAll(t, filepath.Join("testdata", tc.file), tc.format).Totals()
			// What a fresh reader of the complete lines so far sees, at
			// each line's end.
			ref := NewFollower("", tc.format)
			want := map[int]Tokens{0: {}}
			for off := 0; off < len(data); {
				end := len(data)
				if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
					end = off + i + 1
				}
				ref.feed(data[off:end])
				want[end] = ref.Totals().All()
				off = end
			}
			steps := []int{1, 7, 64, 333}
			if len(data) > 4<<10 {
				steps = []int{64, 333, 4096} // a few bytes at a time is the samples' job
			}
			for _, step := range steps {
				path := filepath.Join(t.TempDir(), "evidence.jsonl")
				f, err := os.Create(path)
				if err != nil {
					t.Fatal(err)
				}
				fl := NewFollower(path, tc.format)
				for off := 0; off < len(data); off += step {
					end := min(off+step, len(data))
					if _, err := f.Write(data[off:end]); err != nil {
						t.Fatal(err)
					}
					if _, err := fl.Update(); err != nil {
						t.Fatal(err)
					}
					if got, want := fl.Totals().All(), want[lastNewline(data[:end])]; got != want {
						t.Fatalf("step %d at %d: totals %+v, want %+v (complete lines only)", step, end, got, want)
					}
				}
				f.Close()
				if got := fl.Totals().All(); got != whole.All() {
					t.Fatalf("step %d: end totals %+v, want %+v", step, got, whole.All())
				}
				if fl.Offset() != int64(len(data)) {
					t.Fatalf("step %d: offset %d, want %d", step, fl.Offset(), len(data))
				}
			}
		})
	}
}

func lastNewline(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return i + 1
		}
	}
	return 0
}

// TestTornLineThenRest: a line cut mid-way counts once the rest arrives,
// and an Update with nothing new reports no change.
func TestTornLineThenRest(t *testing.T) {
	line := `{"type":"assistant","message":{"id":"m1","model":"claude-haiku-4-5","usage":{"input_tokens":100,"output_tokens":10}},"requestId":"r1"}` + "\n"
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(line[:40]), 0o644); err != nil {
		t.Fatal(err)
	}
	fl := NewFollower(path, ClaudeSession)
	if c, err := fl.Update(); c || err != nil {
		t.Fatalf("torn line: changed=%v err=%v, want no change", c, err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line[40:])
	f.Close()
	if c, err := fl.Update(); !c || err != nil {
		t.Fatalf("completed line: changed=%v err=%v", c, err)
	}
	if got := fl.Totals().All(); got != (Tokens{Input: 100, Output: 10}) {
		t.Fatalf("totals = %+v", got)
	}
	if c, _ := fl.Update(); c {
		t.Fatal("an Update with nothing appended reported a change")
	}
}

// TestRestartedFile: a file that shrank is a new attempt; its old counts go.
func TestRestartedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	big := `{"type":"assistant","message":{"id":"m1","model":"m","usage":{"input_tokens":5000,"output_tokens":10}}}` + "\n"
	small := `{"type":"assistant","message":{"id":"m9","model":"m","usage":{"input_tokens":7,"output_tokens":1}}}` + "\n"
	os.WriteFile(path, []byte(big+big), 0o644)
	fl := NewFollower(path, ClaudeSession)
	fl.Update()
	os.WriteFile(path, []byte(small), 0o644)
	if c, _ := fl.Update(); !c {
		t.Fatal("no change after the file started again")
	}
	if got := fl.Totals().All(); got != (Tokens{Input: 7, Output: 1}) {
		t.Fatalf("totals = %+v, want the new attempt's only", got)
	}
}

// TestOverlongLine: a line longer than maxLine is skipped, the next counts.
func TestOverlongLine(t *testing.T) {
	fl := NewFollower("", ClaudeSession)
	huge := make([]byte, maxLine+10)
	for i := range huge {
		huge[i] = 'x'
	}
	fl.feed(huge[:maxLine/2])
	fl.feed(huge[maxLine/2:])
	fl.feed([]byte("\n" + `{"type":"assistant","message":{"id":"a","model":"m","usage":{"input_tokens":3,"output_tokens":4}}}` + "\n"))
	if got := fl.Totals().All(); got != (Tokens{Input: 3, Output: 4}) {
		t.Fatalf("totals = %+v", got)
	}
}
