package usage

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/workers"
)

// The real CLIs' evidence in testdata/real was recorded against the mock
// LLM API (internal/mockllm), which answers every request with the same
// usage: 1200 input tokens not cached, 300 read from a cache, 80 output.
// Each CLI made two requests (a tool call writing the result, then a
// final text). testdata/real/README.md says how the files were made.
const (
	mockIn, mockCached, mockOut = 1200, 300, 80
	mockRequests                = 2
)

var realDir = filepath.Join("testdata", "real")

const (
	realRollout    = "rollout-2026-12-01T20-22-58-01a23346-5974-7063-8f1d-fa5a8c30932c.jsonl"
	realCodexID    = "01a23346-5974-7063-8f1d-fa5a8c30932c"
	realGeminiChat = "session-2026-12-01T20-23-683b3ea8.jsonl"
	realClaudeID   = "3f2b8a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
)

// mockList is the mock's tokens at a list price (input, cached, output).
func mockList(in, cached, out float64) float64 {
	return mockRequests * (mockIn*in + mockCached*cached + mockOut*out) / 1e6
}

// TestRealEvidence reads what each real CLI wrote and checks it holds the
// mock's usage, priced.
func TestRealEvidence(t *testing.T) {
	cat := workers.BuiltinCatalog()
	tokens := Summary{Input: mockRequests * mockIn, Cached: mockRequests * mockCached, Output: mockRequests * mockOut}
	// claude-code 2.1.332 runs "sonnet" as claude-sonnet-5-5 and reports
	// total_cost_usd 0.00646: Sonnet 5.5's list price, 2 / 0.10 / 10.
	sonnet := mockList(2, 0.10, 10)
	for _, tc := range []struct {
		file, provider, model string
		format                Format
		model2                string // the model the evidence names
		list                  float64
		listPriced            bool
		cost                  float64
		source                string // CostSource
	}{
		{"claude-stream.log", "claude", "sonnet", StreamJSON, "claude-sonnet-5-5", sonnet, true, 0.00646, CostCLI},
		{realClaudeID + ".jsonl", "claude", "sonnet", ClaudeSession, "claude-sonnet-5-5", sonnet, true, 0.00646, CostCLI},
		// codex 0.171 under a PTY: gpt-6.1-sol at 2 / 0.10 / 10.
		{realRollout, "codex", "gpt-6.1-sol", CodexRollout, "gpt-6.1-sol", mockList(2, 0.10, 10), true, mockList(2, 0.10, 10), CostCatalog},
		// gemini 0.61 sends gemini-3.1-pro as given: Gemini 3.1 Pro's
		// price up to 200K prompt tokens, 2 / 0.20 / 12.
		{realGeminiChat, "antigravity", "gemini-3.1-pro", GeminiChat, "gemini-3.1-pro", mockList(2, 0.20, 12), true, mockList(2, 0.20, 12), CostCatalog},
		{"gemini-stream.log", "antigravity", "gemini-3.1-pro", StreamJSON, "gemini-3.1-pro", mockList(2, 0.20, 12), true, mockList(2, 0.20, 12), CostCatalog},
	} {
		t.Run(tc.file, func(t *testing.T) {
			fl := readAll(t, filepath.Join(realDir, tc.file), tc.format)
			got := Price(cat, tc.provider, tc.model, fl.Totals(), tc.format.String())
			want := tokens
			want.Model, want.Source = tc.model2, tc.format.String()
			want.ListPriced, want.CostSource, want.Priced = tc.listPriced, tc.source, tc.source != ""
			if !near(got.ListUSD, tc.list) || !near(got.CostUSD, tc.cost) {
				t.Errorf("list %.6f cost %.6f, want %.6f %.6f", got.ListUSD, got.CostUSD, tc.list, tc.cost)
			}
			got.ListUSD, got.CostUSD = 0, 0
			if got != want {
				t.Errorf("summary =\n %+v\nwant\n %+v", got, want)
			}
		})
	}
}

// TestRealClaudeUnknownModel: for a model claude-code has no price for
// (claude-zephyr-9, echoed by the mock) it still reports a
// total_cost_usd, at a default price, with costBasis "unknown": a guess,
// so the cost is the catalog's — here none, "?".
func TestRealClaudeUnknownModel(t *testing.T) {
	fl := readAll(t, filepath.Join(realDir, "claude-stream-unknown-model.log"), StreamJSON)
	data, _ := os.ReadFile(filepath.Join(realDir, "claude-stream-unknown-model.log"))
	if !bytes.Contains(data, []byte(`"total_cost_usd":0.00646`)) || !bytes.Contains(data, []byte(`"costBasis":"unknown"`)) {
		t.Fatal("the recording lacks its guessed cost")
	}
	s := Price(workers.BuiltinCatalog(), "claude", "claude-zephyr-9", fl.Totals(), "stream-json")
	if s.Priced || s.CostSource != "" || s.Input != mockIn || s.Output != mockOut || s.Model != "claude-zephyr-9" {
		t.Fatalf("summary = %+v, want unpriced with the tokens", s)
	}
}

// TestRealGeminiChatDuplicates: gemini writes a message again when it
// changes (bec28bea… twice: with its tokens, then with its tool call); it
// counts once.
func TestRealGeminiChatDuplicates(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(realDir, realGeminiChat))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte(`"id":"bec28bea-2e10-42f8-aa00-7ea031b53526"`)); n != 2 {
		t.Fatalf("the recording holds message bec28bea %d times, want 2 (a re-recorded sample?)", n)
	}
	fl := readAll(t, filepath.Join(realDir, realGeminiChat), GeminiChat)
	if got, want := fl.Totals().All(), (Tokens{Input: 2 * mockIn, CacheRead: 2 * mockCached, Output: 2 * mockOut}); got != want {
		t.Fatalf("totals %+v, want %+v (two messages, each once)", got, want)
	}
	meta, ok := ReadGeminiChatMeta(filepath.Join(realDir, realGeminiChat))
	if !ok || meta.SessionID != "683b3ea8-f8ec-4fcc-bb02-c2db770dc605" || meta.ProjectHash != GeminiProjectHash("/tmp/costlab/proj") || meta.Kind != "main" {
		t.Fatalf("meta = %+v, %v", meta, ok)
	}
}

// TestRealCodexHeader: under a PTY codex 0.171 prints its header labels
// in bold ("\x1b[1msession id:\x1b[0m <id>"); the id is found in the text
// without the escapes.
func TestRealCodexHeader(t *testing.T) {
	log := filepath.Join(realDir, "codex-exec-pty.log")
	data, _ := os.ReadFile(log)
	if !bytes.Contains(data, []byte("\x1b[1msession id:\x1b[0m "+realCodexID)) {
		t.Fatal("the recorded log lacks the SGR-wrapped session id line")
	}
	if got := CodexSessionFromLog(log); got != realCodexID {
		t.Fatalf("CodexSessionFromLog = %q, want %q", got, realCodexID)
	}
}

// TestRealRolloutMeta: codex 0.171's session_meta line is over 16 KiB
// (22,454 bytes here); it is read whole.
func TestRealRolloutMeta(t *testing.T) {
	path := filepath.Join(realDir, realRollout)
	line, ok := firstLine(path)
	if !ok || len(line) <= 16<<10 {
		t.Fatalf("first line %d bytes, ok %v; want one over 16 KiB", len(line), ok)
	}
	meta, ok := ReadRolloutMeta(path)
	if !ok || meta.ID != realCodexID || meta.Cwd != "/tmp/costlab/proj" || meta.At.IsZero() {
		t.Fatalf("meta = %+v, %v", meta, ok)
	}
	// A first line still being written is not a meta line yet.
	torn := filepath.Join(t.TempDir(), "rollout-x.jsonl")
	os.WriteFile(torn, line[:len(line)-100], 0o644)
	if _, ok := ReadRolloutMeta(torn); ok {
		t.Fatal("a torn first line read as session_meta")
	}
}

func TestStripEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                              "plain",
		"\x1b[1msession id:\x1b[0m 0199":     "session id: 0199",
		"a\x1b[38;2;1;2;3mb\x1b[?25lc":       "abc",
		"t\x1b]0;title\x07x\x1b]8;;u\x1b\\y": "txy",
		"k\x1b=k\x1b(Bk":                     "kkk",
		"cut\x1b[12":                         "cut",
		"end\x1b":                            "end",
	} {
		if got := string(StripEscapes([]byte(in))); got != want {
			t.Errorf("StripEscapes(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTrackRealCodex: a codex worker whose pane log is the real PTY
// output is tied to its rollout by the session id printed in bold, among
// other rollouts of the same directory.
func TestTrackRealCodex(t *testing.T) {
	h := testHomes(t)
	start, _ := time.Parse(time.RFC3339, "2026-12-01T20:22:57Z")
	tr := NewTracker(workers.BuiltinCatalog(), h)
	day := h.CodexDayDir(start)
	// Another codex session of the same directory, same time.
	other := filepath.Join(day, "rollout-2026-12-01T20-22-58-01a23346-0000-7063-8f1d-fa5a8c30932c.jsonl")
	copyFile(t, filepath.Join(realDir, realRollout), other)
	log := filepath.Join(t.TempDir(), "w.md.log")
	copyFile(t, filepath.Join(realDir, "codex-exec-pty.log"), log)
	tr.Add(Dispatch{ID: "c1", Provider: "codex", Model: "gpt-6.1-sol", Log: log, Cwd: "/tmp/costlab/proj", Started: start})
	tr.Add(Dispatch{ID: "c2", Provider: "codex", Model: "gpt-6.1-sol", Log: "/nonexistent.log", Cwd: "/tmp/costlab/proj", Started: start})
	path := filepath.Join(day, realRollout)
	copyFile(t, filepath.Join(realDir, realRollout), path)
	if changed, more := tr.Changed(path); !changed || len(more) != 1 || more[0].Path != path {
		t.Fatalf("Changed(rollout) = %v, %v", changed, more)
	}
	if u := tr.Usage()["c1"]; u.Input != 2*mockIn || u.Cached != 2*mockCached || u.Output != 2*mockOut || !u.Priced {
		t.Fatalf("usage = %+v", u)
	}
}

// geminiHome lays out gemini's registry naming cwd's project "proj".
func geminiHome(t *testing.T, h Homes, cwd string) string {
	t.Helper()
	if err := os.MkdirAll(h.Gemini, 0o755); err != nil {
		t.Fatal(err)
	}
	reg := `{"projects": {"` + cwd + `": "proj"}}`
	if err := os.WriteFile(h.GeminiRegistry()+".tmp", []byte(reg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(h.GeminiRegistry()+".tmp", h.GeminiRegistry()); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(h.Gemini, "tmp", "proj", "chats")
}

// realGeminiChatFor is the real chat recording, its project hash that of
// cwd (the recording's was /tmp/costlab/proj).
func realGeminiChatFor(t *testing.T, cwd string) []byte {
	data, err := os.ReadFile(filepath.Join(realDir, realGeminiChat))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.ReplaceAll(data, []byte(GeminiProjectHash("/tmp/costlab/proj")), []byte(GeminiProjectHash(cwd)))
}

// TestTrackGemini: the built-in gemini argv (no stream-json) is read from
// gemini's chat recording. The project is not registered when the worker
// is added: the tracker waits on the registry, then on the chats
// directory, and ties the chat that started after the worker to it — not
// an older chat of the same project, nor one of another project.
func TestTrackGemini(t *testing.T) {
	h := testHomes(t)
	cwd := t.TempDir()
	start, _ := time.Parse(time.RFC3339, "2026-12-01T20:23:30Z")
	tr := NewTracker(workers.BuiltinCatalog(), h)
	w := tr.Add(Dispatch{ID: "g1", Provider: "antigravity", Model: "gemini-3.1-pro", Log: "/x.log", Cwd: cwd, Started: start})
	if len(w) != 1 || w[0] != (Watch{Path: h.GeminiRegistry()}) {
		t.Fatalf("watches = %v, want the registry", w)
	}
	chats := geminiHome(t, h, cwd)
	old := filepath.Join(chats, "session-2026-12-01T19-00-aaaaaaaa.jsonl")
	os.MkdirAll(chats, 0o755)
	os.WriteFile(old, []byte(`{"sessionId":"aaaaaaaa-0000","projectHash":"`+GeminiProjectHash(cwd)+`","startTime":"2026-12-01T19:00:00.000Z","kind":"main"}`+"\n"), 0o644)
	changed, more := tr.Changed(h.GeminiRegistry())
	if changed || len(more) != 1 || more[0] != (Watch{Path: chats, Dir: true}) {
		t.Fatalf("Changed(registry) = %v, %v; want the chats directory, the old chat not taken", changed, more)
	}
	// A chat of another project in the same directory is not its.
	stranger := filepath.Join(chats, "session-2026-12-01T20-23-bbbbbbbb.jsonl")
	os.WriteFile(stranger, []byte(`{"sessionId":"bbbbbbbb-0000","projectHash":"`+GeminiProjectHash("/elsewhere")+`","startTime":"2026-12-01T20:23:31.000Z","kind":"main"}`+"\n"), 0o644)
	if changed, _ := tr.Changed(stranger); changed {
		t.Fatal("took another project's chat")
	}
	path := filepath.Join(chats, realGeminiChat)
	data := realGeminiChatFor(t, cwd)
	// The metadata line first, the messages later: incremental.
	first := bytes.IndexByte(data, '\n') + 1
	os.WriteFile(path, data[:first], 0o644)
	subs := filepath.Join(chats, "683b3ea8-f8ec-4fcc-bb02-c2db770dc605")
	if _, more := tr.Changed(path); len(more) != 2 || more[0] != (Watch{Path: path}) || more[1] != (Watch{Path: subs, Dir: true}) {
		t.Fatalf("Changed(chat) watches %v, want the chat and its subagents' directory", more)
	}
	if _, ok := tr.Usage()["g1"]; ok {
		t.Fatal("usage before any message")
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.Write(data[first:])
	f.Close()
	if changed, _ := tr.Changed(path); !changed {
		t.Fatal("no change after the messages were appended")
	}
	if u := tr.Usage()["g1"]; u.Input != 2*mockIn || u.Cached != 2*mockCached || u.Output != 2*mockOut || u.Model != "gemini-3.1-pro" || u.Source != "gemini chat" {
		t.Fatalf("usage = %+v", u)
	}
	// Its subagents' chats (gemini-cli 0.61: <chats>/<session id>/<subagent
	// id>.jsonl, a subagent's own subagent's there too) are the worker's
	// tokens too.
	sub := filepath.Join(subs, "sub-1.jsonl")
	os.MkdirAll(subs, 0o755)
	os.WriteFile(sub, []byte(`{"sessionId":"sub-1","projectHash":"x","startTime":"2026-12-01T20:23:40.000Z","kind":"subagent"}`+"\n"+
		`{"id":"s1","type":"gemini","content":"","tokens":{"input":500,"output":20,"cached":100,"thoughts":5,"tool":0,"total":525},"model":"gemini-3.1-flash"}`+"\n"), 0o644)
	changed, more = tr.Changed(sub)
	if !changed || len(more) != 1 || more[0] != (Watch{Path: sub}) {
		t.Fatalf("Changed(subagent chat) = %v, %v", changed, more)
	}
	deeper := filepath.Join(subs, "sub-2.jsonl")
	os.WriteFile(deeper, []byte(`{"id":"s2","type":"gemini","content":"","tokens":{"input":50,"output":2,"cached":0,"thoughts":0,"tool":0,"total":52},"model":"gemini-3.1-flash"}`+"\n"), 0o644)
	tr.Changed(deeper)
	u := tr.Usage()["g1"]
	if u.Input != 2*mockIn+400+50 || u.Cached != 2*mockCached+100 || u.Output != 2*mockOut+25+2 || u.Model != "gemini-3.1-pro" {
		t.Fatalf("usage with subagents = %+v", u)
	}
	// Once settled, a later subagent chat is not its.
	tr.Settled("g1")
	late := filepath.Join(subs, "sub-3.jsonl")
	os.WriteFile(late, []byte(`{"id":"s3","type":"gemini","content":"","tokens":{"input":9000,"output":9,"cached":0,"thoughts":0,"tool":0,"total":9009},"model":"gemini-3.1-flash"}`+"\n"), 0o644)
	if changed, _ := tr.Changed(late); changed || tr.Usage()["g1"] != u {
		t.Fatal("a settled worker took a later subagent chat")
	}
}

// TestTrackGeminiBySessionID: a provider whose argv passes {sessionId} to
// gemini (--session-id) is tied to the chat naming that id, whichever
// worker started first.
func TestTrackGeminiBySessionID(t *testing.T) {
	h := testHomes(t)
	cwd := t.TempDir()
	chats := geminiHome(t, h, cwd)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".cockpit"), 0o755)
	os.WriteFile(workers.ProjectProvidersFile(root), []byte(`{"providers": {"antigravity": {"argv": ["gemini", "--model", "{model}", "--yolo", "--session-id", "{sessionId}"]}}}`), 0o644)
	cat, err := workers.LoadCatalog(root)
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTracker(cat, h)
	start, _ := time.Parse(time.RFC3339, "2026-12-01T20:20:00Z")
	tr.Add(Dispatch{ID: "first", Provider: "antigravity", Model: "gemini-3.1-pro", Cwd: cwd, SessionID: "11111111-f8ec-4fcc-bb02-c2db770dc605", Started: start})
	w := tr.Add(Dispatch{ID: "mine", Provider: "antigravity", Model: "gemini-3.1-pro", Cwd: cwd, SessionID: "683b3ea8-f8ec-4fcc-bb02-c2db770dc605", Started: start.Add(time.Minute)})
	if len(w) != 1 || w[0] != (Watch{Path: chats, Dir: true}) {
		t.Fatalf("watches = %v", w)
	}
	path := filepath.Join(chats, realGeminiChat)
	os.MkdirAll(chats, 0o755)
	os.WriteFile(path, realGeminiChatFor(t, cwd), 0o644)
	if changed, _ := tr.Changed(path); !changed {
		t.Fatal("chat not taken")
	}
	if u := tr.Usage(); u["mine"].Output != 2*mockOut || len(u) != 1 {
		t.Fatalf("usage = %+v, want the chat on \"mine\" alone", u)
	}
}

// TestRealGrokLeavesNoUsage: grok-cli 0.0.34 in -p mode prints the
// conversation's messages as JSON lines with no usage, and writes no file
// with any; the tracker follows nothing for it.
func TestRealGrokLeavesNoUsage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(realDir, "grok-headless.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, kw := range []string{"usage", "token"} {
		if strings.Contains(string(data), kw) {
			t.Fatalf("grok's output names %q: read it", kw)
		}
	}
	tr := NewTracker(workers.BuiltinCatalog(), testHomes(t))
	if w := tr.Add(Dispatch{ID: "k", Provider: "grok", Log: filepath.Join(realDir, "grok-headless.log")}); len(w) != 0 {
		t.Fatalf("watches %v", w)
	}
}
