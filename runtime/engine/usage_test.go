package engine

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/workers/usage"
)

// usageRun is a pane run with one in-progress dispatch of provider whose
// sidecar says started; it returns the run and the dispatch's log path.
func usageRun(t testing.TB, provider, model string) (*state.Run, string) {
	t.Helper()
	run, sidecars := runtest.StartedRun(t, 1)
	log := state.LogPath("run/prompts/w000.md")
	err := state.UpdateTeamState(run.TeamStatePath, "team-state", "bench", func(ts *state.TeamState) error {
		d := &ts.WorkerDispatches[0]
		d.Provider, d.Model, d.LogPath = provider, model, log
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	now := state.Timestamp(time.Now())
	if err := state.WriteSidecar(sidecars[0], &state.Sidecar{Status: state.StatusStarted, Wrapper: "test", PID: os.Getpid(), StartedAt: now}); err != nil {
		t.Fatal(err)
	}
	return run, filepath.Join(run.Root.Dir(), log)
}

// waitUsage takes events until a view shows dispatch-001's usage
// satisfying ok.
func waitUsage(t *testing.T, events <-chan view.Event, what string, ok func(view.Usage) bool) view.Usage {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev := <-events:
			if vu, is := ev.(view.ViewUpdated); is {
				if u, has := vu.View.Usage["dispatch-001"]; has && ok(u) {
					return u
				}
			}
		case <-deadline:
			t.Fatalf("no view with %s within 10s", what)
		}
	}
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
}

// TestUsageFollowsStreamJSONLive: a claude worker's stream-json, written
// to its pane log while it runs, shows in the view's Usage message by
// message (a torn line only once complete), and the result event's totals
// win at the end.
func TestUsageFollowsStreamJSONLive(t *testing.T) {
	run, log := usageRun(t, "claude", "sonnet")
	c, events := startSubscribed(t, run)
	appendLine(t, log, "\x1b[2mstarting\x1b[0m\r\n"+`{"type":"system","subtype":"init","session_id":"s","model":"claude-sonnet-4-5-20250929"}`+"\r\n")
	msg := `{"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":1000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":100}}}` + "\r\n"
	appendLine(t, log, msg)
	u := waitUsage(t, events, "the first message", func(u view.Usage) bool { return u.Input == 1000 })
	// 1000 × $3 + 100 × $15 per million.
	if !u.Priced || u.Output != 100 || u.Model != "claude-sonnet-4-5-20250929" || u.Source != "stream-json" || u.CostUSD < 0.0044999 || u.CostUSD > 0.0045001 {
		t.Fatalf("usage = %+v", u)
	}
	// A second message arrives in two writes.
	msg2 := `{"type":"assistant","message":{"id":"m2","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":1000,"output_tokens":50}}}` + "\r\n"
	appendLine(t, log, msg2[:30])
	appendLine(t, log, msg2[30:])
	waitUsage(t, events, "the second message", func(u view.Usage) bool { return u.Input == 1010 && u.Cached == 1000 && u.Output == 150 })
	appendLine(t, log, `{"type":"result","subtype":"success","usage":{"input_tokens":1010,"cache_creation_input_tokens":0,"cache_read_input_tokens":1000,"output_tokens":180}}`+"\r\n")
	waitUsage(t, events, "the result's totals", func(u view.Usage) bool { return u.Output == 180 })
	if usd, unpriced := c.View().TotalCost(); unpriced != 0 || usd <= 0.0045 {
		t.Fatalf("TotalCost = %v, %d", usd, unpriced)
	}
}

// TestUsageFollowsCodexRollout: a codex worker's rollout, which appears
// under $CODEX_HOME after the worker started and is tied to it by the
// session id its log printed, shows in the view and follows its appends.
func TestUsageFollowsCodexRollout(t *testing.T) {
	codexHome := t.TempDir()
	t.Setenv("CODEX_HOME", codexHome)
	run, log := usageRun(t, "codex", "gpt-6.1-sol")
	id := "0199d2a4-6b1e-7c33-9f10-3e5d8c2b7a40"
	appendLine(t, log, "OpenAI Codex v0.155.0\r\n--------\r\nsession id: "+id+"\r\n--------\r\n")
	_, events := startSubscribed(t, run)
	day := usage.HomesFromEnv(os.Getenv).CodexDayDir(time.Now())
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	rollout := filepath.Join(day, "rollout-2026-12-01T03-00-00-"+id+".jsonl")
	appendLine(t, rollout, `{"type":"session_meta","payload":{"id":"`+id+`","cwd":"/x"}}`+"\n"+`{"type":"turn_context","payload":{"model":"gpt-6.1-sol"}}`+"\n")
	appendLine(t, rollout, `{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":3000,"cached_input_tokens":1000,"output_tokens":500}}}}`+"\n")
	u := waitUsage(t, events, "the rollout's first count", func(u view.Usage) bool { return u.Output == 500 })
	if u.Input != 2000 || u.Cached != 1000 || !u.Priced || u.Source != "codex rollout" {
		t.Fatalf("usage = %+v", u)
	}
	appendLine(t, rollout, `{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":9000,"cached_input_tokens":4000,"output_tokens":1500}}}}`+"\n")
	waitUsage(t, events, "the rollout's second count", func(u view.Usage) bool { return u.Output == 1500 && u.Input == 5000 })
}

// BenchmarkUsageToView measures the time from a claude worker's
// stream-json usage line being appended to its pane log to the engine
// publishing a view whose Usage counts it: what a pane title's cost waits
// for. It reports p50 and p99 (use -benchtime=200x or more).
func BenchmarkUsageToView(b *testing.B) {
	run, log := usageRun(b, "claude", "sonnet")
	_, events := startSubscribed(b, run)
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		line := `{"type":"assistant","message":{"id":"m` + itoa(i) + `","model":"claude-sonnet-4-6","usage":{"input_tokens":1,"output_tokens":1}}}` + "\r\n"
		start := time.Now()
		if _, err := f.WriteString(line); err != nil {
			b.Fatal(err)
		}
		for {
			ev := <-events
			if vu, ok := ev.(view.ViewUpdated); ok && vu.View.Usage["dispatch-001"].Input >= int64(i+1) {
				break
			}
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	reportLatency(b, lat)
}

// TestUsageFollowsClaudeSession: a claude provider whose argv passes the
// session id (providers.json) is read from claude's session transcript
// under $CLAUDE_CONFIG_DIR for the id the wrapper's sidecar names; the
// transcript appears after the worker started.
func TestUsageFollowsClaudeSession(t *testing.T) {
	claudeHome := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", claudeHome)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	run, _ := usageRun(t, "claude", "sonnet")
	root := run.Root.Dir()
	os.MkdirAll(filepath.Join(root, ".cockpit"), 0o755)
	if err := os.WriteFile(filepath.Join(root, ".cockpit", "providers.json"), []byte(`{"providers": {"claude": {"argv": ["claude", "-p", "--model", "{model}", "--session-id", "{sessionId}"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	id := "5b1f3c3e-2f4a-4d0e-9a59-0d3c2f6b8a11"
	sp := filepath.Join(root, state.SidecarPath("run/prompts/w000.md"))
	if err := state.WriteSidecar(sp, &state.Sidecar{Status: state.StatusStarted, Wrapper: "test", PID: os.Getpid(), StartedAt: state.Timestamp(time.Now()), SessionID: id}); err != nil {
		t.Fatal(err)
	}
	_, events := startSubscribed(t, run)
	transcript := usage.HomesFromEnv(os.Getenv).ClaudeSession(root, id)
	if err := os.MkdirAll(filepath.Dir(transcript), 0o755); err != nil {
		t.Fatal(err)
	}
	appendLine(t, transcript, `{"type":"assistant","requestId":"r1","message":{"id":"m1","model":"claude-haiku-4-5-20251001","usage":{"input_tokens":2000,"output_tokens":300}}}`+"\n")
	u := waitUsage(t, events, "the transcript's message", func(u view.Usage) bool { return u.Input == 2000 })
	// 2000 × $1 + 300 × $5 per million.
	if u.Source != "claude session" || !u.Priced || u.CostUSD < 0.0034999 || u.CostUSD > 0.0035001 {
		t.Fatalf("usage = %+v", u)
	}
}

// realEvidence is a file the real CLIs wrote against the mock LLM API
// (workers/usage/testdata/real: two requests of 1200 input tokens, 300
// read from a cache, 80 output).
func realEvidence(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "workers", "usage", "testdata", "real", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// appendHalves appends data in two writes cut inside a line.
func appendHalves(t *testing.T, path string, data []byte) {
	t.Helper()
	appendLine(t, path, string(data[:len(data)/2]))
	appendLine(t, path, string(data[len(data)/2:]))
}

// TestUsageRealClaudeCLICost: the real claude's stream-json (claude-code
// 2.1.332, "sonnet" served as claude-sonnet-5-5) shows the CLI's own
// total_cost_usd, marked as the CLI's, with the list price beside it.
func TestUsageRealClaudeCLICost(t *testing.T) {
	run, log := usageRun(t, "claude", "sonnet")
	_, events := startSubscribed(t, run)
	appendHalves(t, log, realEvidence(t, "claude-stream.log"))
	u := waitUsage(t, events, "the result event", func(u view.Usage) bool { return u.CLICost() })
	// 2 × (1200 × $2 + 300 × $0.10 + 80 × $10) per million, both ways.
	if u.Input != 2400 || u.Cached != 600 || u.Output != 160 || u.Model != "claude-sonnet-5-5" || !u.Priced ||
		u.CostSource != view.CostCLI || u.CostUSD != 0.00646 || !u.ListPriced || u.ListUSD < 0.0064599 || u.ListUSD > 0.0064601 {
		t.Fatalf("usage = %+v", u)
	}
}

// TestUsageRealCodexPTY: the real codex under a PTY prints its session id
// in bold; the engine ties the rollout (its 22 KiB first line included)
// to the worker by it.
func TestUsageRealCodexPTY(t *testing.T) {
	t.Setenv("CODEX_HOME", t.TempDir())
	run, log := usageRun(t, "codex", "gpt-6.1-sol")
	appendLine(t, log, string(realEvidence(t, "codex-exec-pty.log")))
	_, events := startSubscribed(t, run)
	day := usage.HomesFromEnv(os.Getenv).CodexDayDir(time.Now())
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	name := "rollout-2026-12-01T20-22-58-01a23346-5974-7063-8f1d-fa5a8c30932c.jsonl"
	appendHalves(t, filepath.Join(day, name), realEvidence(t, name))
	u := waitUsage(t, events, "the rollout's last count", func(u view.Usage) bool { return u.Output == 160 })
	if u.Input != 2400 || u.Cached != 600 || u.CostSource != view.CostCatalog || u.Source != "codex rollout" {
		t.Fatalf("usage = %+v", u)
	}
}

// TestUsageRealGeminiChat: the built-in gemini argv leaves its tokens in
// gemini's chat recording. The project is registered only after the
// engine saw the worker (gemini's first start there): the engine follows
// ~/.gemini/projects.json, then the project's chats directory, then the
// chat, whose repeated message ids count once.
func TestUsageRealGeminiChat(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GEMINI_CLI_HOME", "")
	run, _ := usageRun(t, "antigravity", "gemini-3.1-pro")
	root := run.Root.Dir()
	_, events := startSubscribed(t, run)
	h := usage.HomesFromEnv(os.Getenv)
	if err := os.MkdirAll(h.Gemini, 0o755); err != nil {
		t.Fatal(err)
	}
	// gemini writes its registry atomically (a rename), then the chat.
	reg := h.GeminiRegistry()
	if err := os.WriteFile(reg+".tmp", []byte(`{"projects": {"`+root+`": "proj"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(reg+".tmp", reg); err != nil {
		t.Fatal(err)
	}
	chats := filepath.Join(h.Gemini, "tmp", "proj", "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	data := realEvidence(t, "session-2026-12-01T20-23-683b3ea8.jsonl")
	data = bytes.ReplaceAll(data, []byte(usage.GeminiProjectHash("/tmp/costlab/proj")), []byte(usage.GeminiProjectHash(root)))
	data = bytes.Replace(data, []byte(`"startTime":"2026-12-01T20:23:31.784Z"`), []byte(`"startTime":"`+time.Now().UTC().Format(time.RFC3339Nano)+`"`), 1)
	appendHalves(t, filepath.Join(chats, "session-2026-12-01T20-23-683b3ea8.jsonl"), data)
	u := waitUsage(t, events, "the chat's two messages", func(u view.Usage) bool { return u.Output == 160 })
	// Gemini 3.1 Pro within 200K prompt tokens: 2 / 0.20 / 12.
	if u.Input != 2400 || u.Cached != 600 || u.Model != "gemini-3.1-pro" || u.Source != "gemini chat" ||
		!u.Priced || u.CostSource != view.CostCatalog || math.Abs(u.CostUSD-(2400*2+600*0.20+160*12)/1e6) > 1e-12 {
		t.Fatalf("usage = %+v", u)
	}
}

// TestUsageGeminiRegisteredBeforeWatch: gemini registered the project
// before the engine first saw the worker (a later run in the same
// project): its chats directory is watched at once.
func TestUsageGeminiRegisteredBeforeWatch(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GEMINI_CLI_HOME", "")
	run, _ := usageRun(t, "antigravity", "gemini-3.1-pro")
	root := run.Root.Dir()
	h := usage.HomesFromEnv(os.Getenv)
	if err := os.MkdirAll(h.Gemini, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.GeminiRegistry(), []byte(`{"projects": {"`+root+`": "proj"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, events := startSubscribed(t, run)
	chats := filepath.Join(h.Gemini, "tmp", "proj", "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	chat := filepath.Join(chats, "session-2026-12-01T21-00-00000001.jsonl")
	appendLine(t, chat, `{"sessionId":"00000001-0000","projectHash":"`+usage.GeminiProjectHash(root)+`","startTime":"`+time.Now().UTC().Format(time.RFC3339Nano)+`","kind":"main"}`+"\n")
	appendLine(t, chat, `{"id":"m1","type":"gemini","content":"","tokens":{"input":900,"output":40,"cached":100,"thoughts":10,"tool":5,"total":955},"model":"gemini-3.1-pro"}`+"\n")
	u := waitUsage(t, events, "the chat's message", func(u view.Usage) bool { return u.Output == 50 })
	if u.Input != 805 || u.Cached != 100 {
		t.Fatalf("usage = %+v", u)
	}
}

// TestUsageGeminiInWorktree: a worker whose CLI runs in a worktree (its
// job's; team-state does not record it) is looked for under that
// directory once the wrapper's sidecar names the CLI's pid: here gemini's
// chat of the worktree's project.
func TestUsageGeminiInWorktree(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GEMINI_CLI_HOME", "")
	run, _ := usageRun(t, "antigravity", "gemini-3.1-pro")
	root := run.Root.Dir()
	wt := filepath.Join(root, "wt", "impl-1")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	_, events := startSubscribed(t, run)
	// The CLI: a process working in the worktree.
	cli := exec.Command("sleep", "60")
	cli.Dir = wt
	if err := cli.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Process.Kill(); cli.Wait() })
	sp := filepath.Join(root, state.SidecarPath("run/prompts/w000.md"))
	if err := state.WriteSidecar(sp, &state.Sidecar{Status: state.StatusStarted, Wrapper: "test", PID: os.Getpid(), ChildPID: cli.Process.Pid, StartedAt: state.Timestamp(time.Now())}); err != nil {
		t.Fatal(err)
	}
	realWT, _ := filepath.EvalSymlinks(wt)
	h := usage.HomesFromEnv(os.Getenv)
	os.MkdirAll(h.Gemini, 0o755)
	if err := os.WriteFile(h.GeminiRegistry(), []byte(`{"projects": {"`+root+`": "proj", "`+realWT+`": "impl-1"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	chats := filepath.Join(h.Gemini, "tmp", "impl-1", "chats")
	os.MkdirAll(chats, 0o755)
	chat := filepath.Join(chats, "session-2026-12-01T21-00-00000002.jsonl")
	appendLine(t, chat, `{"sessionId":"00000002-0000","projectHash":"`+usage.GeminiProjectHash(realWT)+`","startTime":"`+time.Now().UTC().Format(time.RFC3339Nano)+`","kind":"main"}`+"\n")
	appendLine(t, chat, `{"id":"m1","type":"gemini","content":"","tokens":{"input":900,"output":40,"cached":100,"thoughts":0,"tool":0,"total":940},"model":"gemini-3.1-pro"}`+"\n")
	u := waitUsage(t, events, "the worktree's chat", func(u view.Usage) bool { return u.Output == 40 })
	if u.Input != 800 || u.Cached != 100 || u.Source != "gemini chat" {
		t.Fatalf("usage = %+v", u)
	}
}
