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
func BenchmarkFollowerAppend(b *testing.B) {
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
	data := []byte(chunk.String())
	path := filepath.Join(b.TempDir(), "w.log")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fl := NewFollower(path, StreamJSON)
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
