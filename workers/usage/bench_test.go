package usage

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/workers"
)

// BenchmarkFollowerAppend measures one Update over 64 KiB appended to a
// pane log of claude stream-json: mostly tool output (lines the keyword
// filter skips) with an assistant event with usage every 16 lines. The
// engine does this on every fsnotify event of a running claude worker's
// log, so its cost per byte is the cost of following a flooding pane.
func BenchmarkFollowerAppend(b *testing.B) { benchAppend(b, StreamJSON) }

// BenchmarkFollowerAppendSession is the same 64 KiB read as a claude
// session transcript (its lines are alike): the ClaudeSession parser's
// keyword filter looks for cost-state lines too.
func BenchmarkFollowerAppendSession(b *testing.B) { benchAppend(b, ClaudeSession) }

// BenchmarkFollowerAppendGeminiChat is 64 KiB of a gemini chat recording:
// messages with tokens (each written twice, as gemini does) among tool
// call updates without.
func BenchmarkFollowerAppendGeminiChat(b *testing.B) {
	var chunk strings.Builder
	msg := `{"id":"m-X","timestamp":"2026-12-01T20:23:33.205Z","type":"gemini","content":"working on it","thoughts":[],"tokens":{"input":42000,"output":310,"cached":40000,"thoughts":12,"tool":0,"total":42322},"model":"gemini-3.1-pro"}` + "\n"
	set := `{"$set":{"lastUpdated":"2026-12-01T20:23:33.206Z"}}` + "\n"
	user := `{"id":"u-X","timestamp":"2026-12-01T20:23:33.519Z","type":"user","content":[{"text":"` + strings.Repeat("package export // some file content ", 8) + `"}]}` + "\n"
	for i := 0; chunk.Len() < 64<<10; i++ {
		switch i % 8 {
		case 0, 1:
			chunk.WriteString(strings.Replace(msg, "m-X", "m-"+strings.Repeat("x", i%5), 1))
		case 2, 5:
			chunk.WriteString(set)
		default:
			chunk.WriteString(user)
		}
	}
	benchAppendData(b, GeminiChat, []byte(chunk.String()))
}

func benchAppend(b *testing.B, format Format) {
	var chunk strings.Builder
	usageLine := `{"type":"assistant","message":{"id":"msg_X","model":"claude-sonnet-4-6","content":[{"type":"text","text":"working on it"}],"usage":{"input_tokens":12,"cache_creation_input_tokens":900,"cache_read_input_tokens":42000,"output_tokens":310}},"session_id":"s"}` + "\r\n"
	toolLine := `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"` + strings.Repeat("package export // some file content ", 8) + `"}]},"session_id":"s"}` + "\r\n"
	for i := 0; chunk.Len() < 64<<10; i++ {
		if i%16 == 0 {
			chunk.WriteString(strings.Replace(usageLine, "msg_X", "msg_"+strings.Repeat("x", i%7), 1))
		} else {
			chunk.WriteString(toolLine)
		}
	}
	benchAppendData(b, format, []byte(chunk.String()))
}

func benchAppendData(b *testing.B, format Format, data []byte) {
	path := filepath.Join(b.TempDir(), "w.log")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fl := NewFollower(path, format)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if _, err := f.Write(data); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := fl.Update(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServedModel is what the wrapper adds to a finished worker's
// end: reading the served model from its evidence. claude: an 8 MiB pane
// log of stream-json (the benchAppend mix); codex: its rollout among 200
// others of the day (each other one's first line read to tell whose it is),
// tied by the session id its 1 KiB log printed.
func BenchmarkServedModel(b *testing.B) {
	cat := workers.BuiltinCatalog()
	b.Run("claude-8MiB-log", func(b *testing.B) {
		dir := b.TempDir()
		log := filepath.Join(dir, "w.md.log")
		var data strings.Builder
		usageLine := `{"type":"assistant","message":{"id":"msg_X","model":"claude-sonnet-5-5","content":[{"type":"text","text":"working on it"}],"usage":{"input_tokens":12,"cache_creation_input_tokens":900,"cache_read_input_tokens":42000,"output_tokens":310}},"session_id":"s"}` + "\r\n"
		toolLine := `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"` + strings.Repeat("package export // some file content ", 8) + `"}]},"session_id":"s"}` + "\r\n"
		for i := 0; data.Len() < 8<<20; i++ {
			if i%16 == 0 {
				data.WriteString(strings.Replace(usageLine, "msg_X", "msg_"+strconv.Itoa(i), 1))
			} else {
				data.WriteString(toolLine)
			}
		}
		if err := os.WriteFile(log, []byte(data.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		h := Homes{Claude: filepath.Join(dir, "claude"), Codex: filepath.Join(dir, "codex")}
		ev := workers.ServedEvidence{Provider: "claude", Model: "sonnet", Prompt: filepath.Join(dir, "w.md"), Log: log, Cwd: dir, SessionID: "3f2b8a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b"}
		b.SetBytes(int64(data.Len()))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if got := servedModel(cat, h, ev); got.Model != "claude-sonnet-5-5" {
				b.Fatalf("served %+v", got)
			}
		}
	})
	b.Run("codex-200-rollouts", func(b *testing.B) {
		dir := b.TempDir()
		h := Homes{Claude: filepath.Join(dir, "claude"), Codex: filepath.Join(dir, "codex")}
		start, _ := time.Parse(time.RFC3339, "2026-12-01T20:22:57Z")
		day := h.CodexDayDir(start)
		real, err := os.ReadFile(filepath.Join(realDir, realRollout))
		if err != nil {
			b.Fatal(err)
		}
		if err := os.MkdirAll(day, 0o755); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 200; i++ {
			id := fmt.Sprintf("01a23346-5974-7063-8f1d-%012d", i)
			other := strings.ReplaceAll(string(real), realCodexID, id)
			if err := os.WriteFile(filepath.Join(day, "rollout-2026-12-01T20-22-58-"+id+".jsonl"), []byte(other), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(day, realRollout), real, 0o644); err != nil {
			b.Fatal(err)
		}
		log := filepath.Join(dir, "w.md.log")
		copyFileB(b, filepath.Join(realDir, "codex-exec-pty.log"), log)
		ev := workers.ServedEvidence{Provider: "codex", Model: "gpt-6.1-sol", Prompt: filepath.Join(dir, "w.md"), Log: log, Cwd: "/tmp/costlab/proj", SessionID: realCodexID, Started: start}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if got := servedModel(cat, h, ev); got.Model != "gpt-6.1-sol" {
				b.Fatalf("served %+v", got)
			}
		}
	})
}

func copyFileB(b *testing.B, src, dst string) {
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		b.Fatal(err)
	}
}
