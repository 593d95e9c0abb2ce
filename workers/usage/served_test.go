package usage

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/okstra/cockpit/workers"
)

// TestServedModelFromRealEvidence reads the served model from the files
// the real CLIs wrote (testdata/real), laid out where each CLI keeps them,
// as the wrapper does once the CLI has exited.
func TestServedModelFromRealEvidence(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no user providers.json
	builtin := workers.BuiltinCatalog()
	// A claude without stream-json (the session transcript is then its
	// evidence) and a gemini with it, as a project's providers.json
	// would set them.
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".cockpit"), 0o755)
	doc := `{"providers": {"claude": {"argv": ["claude", "-p", "--model", "{model}", "--session-id", "{sessionId}"]},
  "antigravity": {"argv": ["gemini", "--model", "{model}", "--output-format", "stream-json"]}}}`
	if err := os.WriteFile(filepath.Join(root, ".cockpit", "providers.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	overridden, err := workers.LoadCatalog(root)
	if err != nil {
		t.Fatal(err)
	}
	codexStart, _ := time.Parse(time.RFC3339, "2026-12-01T20:22:57Z")
	geminiStart, _ := time.Parse(time.RFC3339, "2026-12-01T20:23:00Z")

	for _, c := range []struct {
		name     string
		cat      *workers.Catalog
		provider string
		lay      func(t *testing.T, h Homes, cwd, log string) workers.ServedEvidence
		want     workers.ServedObservation
	}{
		{"claude stream-json", builtin, "claude", func(t *testing.T, h Homes, cwd, log string) workers.ServedEvidence {
			copyFile(t, filepath.Join(realDir, "claude-stream.log"), log)
			return workers.ServedEvidence{SessionID: realClaudeID}
		}, workers.ServedObservation{Model: "claude-sonnet-5-5", Source: "stream-json"}},
		{"claude stream-json, a model claude has no price for", builtin, "claude", func(t *testing.T, h Homes, cwd, log string) workers.ServedEvidence {
			copyFile(t, filepath.Join(realDir, "claude-stream-unknown-model.log"), log)
			return workers.ServedEvidence{}
		}, workers.ServedObservation{Model: "claude-zephyr-9", Source: "stream-json"}},
		{"claude session transcript", overridden, "claude", func(t *testing.T, h Homes, cwd, log string) workers.ServedEvidence {
			copyFile(t, filepath.Join(realDir, realClaudeID+".jsonl"), h.ClaudeSession(cwd, realClaudeID))
			return workers.ServedEvidence{SessionID: realClaudeID}
		}, workers.ServedObservation{Model: "claude-sonnet-5-5", Source: "session-log"}},
		{"codex rollout", builtin, "codex", func(t *testing.T, h Homes, cwd, log string) workers.ServedEvidence {
			copyFile(t, filepath.Join(realDir, "codex-exec-pty.log"), log)
			copyFile(t, filepath.Join(realDir, realRollout), filepath.Join(h.CodexDayDir(codexStart), realRollout))
			return workers.ServedEvidence{SessionID: realCodexID, Started: codexStart}
		}, workers.ServedObservation{Model: "gpt-6.1-sol", Source: "rollout"}},
		{"codex rerouted by the API", builtin, "codex", func(t *testing.T, h Homes, cwd, log string) workers.ServedEvidence {
			// The rerouted run's log, beside the rollout of the same
			// CLI (it names only the model asked for, as the rerouted
			// run's did).
			copyFile(t, filepath.Join(realDir, "codex-exec-pty-rerouted.log"), log)
			copyFile(t, filepath.Join(realDir, realRollout), filepath.Join(h.CodexDayDir(codexStart), realRollout))
			return workers.ServedEvidence{Started: codexStart}
		}, workers.ServedObservation{Model: "gpt-6-luna", Source: "exec-log"}},
		{"gemini chat recording", builtin, "antigravity", func(t *testing.T, h Homes, cwd, log string) workers.ServedEvidence {
			chats := geminiHome(t, h, cwd)
			os.MkdirAll(chats, 0o755)
			if err := os.WriteFile(filepath.Join(chats, realGeminiChat), realGeminiChatFor(t, cwd), 0o644); err != nil {
				t.Fatal(err)
			}
			return workers.ServedEvidence{Started: geminiStart}
		}, workers.ServedObservation{Model: "gemini-3.1-pro", Source: "chat-recording"}},
		{"gemini stream-json", overridden, "antigravity", func(t *testing.T, h Homes, cwd, log string) workers.ServedEvidence {
			copyFile(t, filepath.Join(realDir, "gemini-stream.log"), log)
			return workers.ServedEvidence{}
		}, workers.ServedObservation{Model: "gemini-3.1-pro", Source: "stream-json"}},
		{"grok leaves none", builtin, "grok", func(t *testing.T, h Homes, cwd, log string) workers.ServedEvidence {
			copyFile(t, filepath.Join(realDir, "grok-headless.log"), log)
			return workers.ServedEvidence{}
		}, workers.ServedObservation{}},
		{"codex without its rollout", builtin, "codex", func(t *testing.T, h Homes, cwd, log string) workers.ServedEvidence {
			copyFile(t, filepath.Join(realDir, "codex-exec-pty.log"), log)
			return workers.ServedEvidence{SessionID: realCodexID, Started: codexStart}
		}, workers.ServedObservation{}},
		{"claude whose log holds no stream-json", builtin, "claude", func(t *testing.T, h Homes, cwd, log string) workers.ServedEvidence {
			copyFile(t, filepath.Join(realDir, "grok-headless.log"), log)
			return workers.ServedEvidence{SessionID: realClaudeID}
		}, workers.ServedObservation{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := testHomes(t)
			cwd := "/tmp/costlab/proj" // the recordings' project
			log := filepath.Join(t.TempDir(), "w.md.log")
			ev := c.lay(t, h, cwd, log)
			ev.Provider, ev.Cwd, ev.Log, ev.Prompt = c.provider, cwd, log, filepath.Join(filepath.Dir(log), "w.md")
			if got := servedModel(c.cat, h, ev); got != c.want {
				t.Errorf("served = %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestServedOfKimi: kimi's wire names no model, so nothing is observed
// although it holds tokens.
func TestServedOfKimi(t *testing.T) {
	fl := readAll(t, filepath.Join("testdata", "kimi-wire.jsonl"), KimiWire)
	if fl.Totals().All().Sum() == 0 {
		t.Fatal("the sample holds no tokens")
	}
	if m := servedOf(fl.acc); m != "" {
		t.Errorf("served = %q, want none", m)
	}
}

// TestCodexRerouteFromLog reads the model codex 0.171 said the API
// rerouted it to, under a PTY (bold, coloured label); none in a run that
// was not rerouted.
func TestCodexRerouteFromLog(t *testing.T) {
	if m := CodexRerouteFromLog(filepath.Join(realDir, "codex-exec-pty-rerouted.log")); m != "gpt-6-luna" {
		t.Errorf("rerouted to %q, want gpt-6-luna", m)
	}
	if m := CodexRerouteFromLog(filepath.Join(realDir, "codex-exec-pty.log")); m != "" {
		t.Errorf("rerouted to %q in a run that was not", m)
	}
	if m := CodexRerouteFromLog(filepath.Join(t.TempDir(), "none.log")); m != "" {
		t.Errorf("rerouted to %q without a log", m)
	}
}

// TestServedOfClaudeLeavesSubagentsOut: a claude worker whose subagent (on
// haiku) spent more than its own conversation (on opus) was served by
// opus, in stream-json (parent_tool_use_id) and in a transcript
// (isSidechain); its cost still counts both.
func TestServedOfClaudeLeavesSubagentsOut(t *testing.T) {
	for _, c := range []struct {
		format Format
		lines  string
	}{
		{StreamJSON, `{"type":"assistant","parent_tool_use_id":null,"message":{"id":"m1","model":"claude-opus-5-5","usage":{"input_tokens":10,"output_tokens":5}}}
{"type":"assistant","parent_tool_use_id":"toolu_1","message":{"id":"m2","model":"claude-haiku-5-5","usage":{"input_tokens":9000,"output_tokens":500}}}
`},
		{ClaudeSession, `{"type":"assistant","isSidechain":false,"requestId":"r1","message":{"id":"m1","model":"claude-opus-5-5","usage":{"input_tokens":10,"output_tokens":5}}}
{"type":"assistant","isSidechain":true,"requestId":"r2","message":{"id":"m2","model":"claude-haiku-5-5","usage":{"input_tokens":9000,"output_tokens":500}}}
`},
	} {
		path := filepath.Join(t.TempDir(), "evidence.jsonl")
		if err := os.WriteFile(path, []byte(c.lines), 0o644); err != nil {
			t.Fatal(err)
		}
		fl := NewFollower(path, c.format)
		if _, err := fl.Update(); err != nil {
			t.Fatal(err)
		}
		if m := servedOf(fl.acc); m != "claude-opus-5-5" {
			t.Errorf("%s: served %q, want the worker's own claude-opus-5-5", c.format, m)
		}
		if tot := fl.Totals(); tot.ByModel["claude-haiku-5-5"].Sum() != 9500 {
			t.Errorf("%s: the subagent's tokens are not in the totals: %+v", c.format, tot.ByModel)
		}
	}
}
