package usage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
