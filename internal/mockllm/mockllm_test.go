package mockllm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

const prompt = "# Task\n\n**Result Path:** `results/out.md`\n"

func start(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// post sends body to path and returns the response body: the JSON object,
// or for an event stream the data objects in order.
func post(t *testing.T, s *Server, path string, body any) []map[string]any {
	t.Helper()
	data, _ := json.Marshal(body)
	resp, err := http.Post(s.URL()+path, "application/json", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST %s: %s", path, resp.Status)
	}
	var out []map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			d, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok || d == "[DONE]" {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(d), &m); err != nil {
				t.Fatalf("event %q: %v", d, err)
			}
			out = append(out, m)
		}
		return out
	}
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return []map[string]any{m}
}

func jsonPath(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			v = obj(v)[k]
		case int:
			l := list(v)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func TestAnthropicWriteThenText(t *testing.T) {
	s := start(t, Options{})
	tools := []any{map[string]any{"name": "Write"}, map[string]any{"name": "Bash"}}
	sys := []any{map[string]any{"type": "text", "text": "env:\n - Primary working directory: /w/proj\n"}}
	evs := post(t, s, "/v1/messages?beta=true", map[string]any{"model": "claude-sonnet-5", "stream": true, "system": sys, "tools": tools,
		"messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": prompt}}}}})
	var input string
	for _, e := range evs {
		if e["type"] == "content_block_start" {
			if got := jsonPath(e, "content_block", "name"); got != "Write" {
				t.Fatalf("tool = %v, want Write", got)
			}
		}
		if e["type"] == "content_block_delta" {
			input = str(jsonPath(e, "delta", "partial_json"))
		}
		if e["type"] == "message_delta" {
			if got := jsonPath(e, "usage", "output_tokens"); got != float64(DefaultUsage.Output) {
				t.Errorf("output_tokens = %v", got)
			}
		}
	}
	var args map[string]string
	if err := json.Unmarshal([]byte(input), &args); err != nil || args["file_path"] != "/w/proj/results/out.md" || args["content"] != ResultContent("results/out.md") {
		t.Fatalf("Write input = %q (%v)", input, err)
	}
	// With the tool's result in the conversation: the final text, as JSON.
	evs = post(t, s, "/v1/messages", map[string]any{"model": "claude-sonnet-5", "tools": tools, "messages": []any{
		map[string]any{"role": "user", "content": prompt},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "x"}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "x"}}},
	}})
	if got := jsonPath(evs[0], "content", 0, "text"); got != FinalText {
		t.Fatalf("second answer = %v", evs[0])
	}
	if got := jsonPath(evs[0], "usage", "cache_read_input_tokens"); got != float64(DefaultUsage.CachedInput) {
		t.Errorf("cache_read_input_tokens = %v", got)
	}
	// A side request naming the prompt but offering no Write tool: text.
	evs = post(t, s, "/v1/messages", map[string]any{"model": "claude-haiku", "messages": []any{map[string]any{"role": "user", "content": prompt}}})
	if got := jsonPath(evs[0], "content", 0, "type"); got != "text" {
		t.Fatalf("a request without the Write tool got %v", evs[0])
	}
	if got := s.UsageFor("results/out.md"); got != DefaultUsage.Times(3) {
		t.Fatalf("UsageFor = %+v, want 3 x %+v", got, DefaultUsage)
	}
	if ex := s.For("results/out.md"); len(ex) != 3 || ex[0].Kind != KindTool || ex[1].Kind != KindText || ex[0].Model != "claude-sonnet-5" {
		t.Fatalf("exchanges = %+v", ex)
	}
}

func TestResponsesCodeModeAndCustomApplyPatch(t *testing.T) {
	s := start(t, Options{Usage: Usage{Input: 10, CachedInput: 5, Output: 2}})
	user := map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "<environment_context><cwd>/w/p</cwd></environment_context>"}, map[string]any{"type": "input_text", "text": prompt}}}
	// codex 0.171: the tools come as an additional_tools item; apply_patch is
	// reached from the custom exec tool.
	codeMode := map[string]any{"type": "additional_tools", "tools": []any{map[string]any{"type": "namespace", "name": "functions",
		"tools": []any{map[string]any{"type": "custom", "name": "exec"}}}}}
	evs := post(t, s, "/v1/responses", map[string]any{"model": "gpt-6.1-sol", "stream": true, "input": []any{codeMode, user}})
	item := jsonPath(evs[len(evs)-2], "item")
	if str(jsonPath(item, "type")) != "custom_tool_call" || str(jsonPath(item, "name")) != "exec" || str(jsonPath(item, "namespace")) != "functions" ||
		!strings.Contains(str(jsonPath(item, "input")), `tools.apply_patch("*** Begin Patch\n*** Add File: /w/p/results/out.md\n+# Result\n`) {
		t.Fatalf("code-mode item = %v", item)
	}
	last := evs[len(evs)-1]
	if last["type"] != "response.completed" || jsonPath(last, "response", "usage", "input_tokens") != float64(15) ||
		jsonPath(last, "response", "usage", "input_tokens_details", "cached_tokens") != float64(5) || jsonPath(last, "response", "usage", "output_tokens") != float64(2) {
		t.Fatalf("completed = %v", last)
	}
	// An apply_patch custom tool of its own is called directly.
	evs = post(t, s, "/v1/responses", map[string]any{"model": "gpt-6.1-sol", "stream": true, "tools": []any{map[string]any{"type": "custom", "name": "apply_patch"}}, "input": []any{user}})
	item = jsonPath(evs[len(evs)-2], "item")
	if str(jsonPath(item, "name")) != "apply_patch" || !strings.HasPrefix(str(jsonPath(item, "input")), "*** Begin Patch\n") {
		t.Fatalf("apply_patch item = %v", item)
	}
	// The tool's output in the input: the final message.
	out := map[string]any{"type": "custom_tool_call_output", "call_id": "c", "output": "ok"}
	evs = post(t, s, "/v1/responses", map[string]any{"model": "gpt-6.1-sol", "stream": true, "input": []any{codeMode, user, out}})
	if got := jsonPath(evs[len(evs)-2], "item", "content", 0, "text"); got != FinalText {
		t.Fatalf("after the tool: %v", evs[len(evs)-2])
	}
}

func TestGeminiAndChat(t *testing.T) {
	s := start(t, Options{})
	tools := []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "read_file"}, map[string]any{"name": "write_file"}}}}
	evs := post(t, s, "/v1beta/models/gemini-3.1-pro:streamGenerateContent?alt=sse", map[string]any{"tools": tools,
		"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "I'm currently working in the directory: /w/g\n"}, map[string]any{"text": prompt}}}}})
	fc := jsonPath(evs[0], "candidates", 0, "content", "parts", 0, "functionCall")
	if str(jsonPath(fc, "name")) != "write_file" || str(jsonPath(fc, "args", "file_path")) != "/w/g/results/out.md" {
		t.Fatalf("gemini call = %v", evs[0])
	}
	if got := jsonPath(evs[0], "usageMetadata", "promptTokenCount"); got != float64(DefaultUsage.Input+DefaultUsage.CachedInput) {
		t.Errorf("promptTokenCount = %v", got)
	}
	evs = post(t, s, "/v1beta/models/gemini-3.1-pro:generateContent", map[string]any{"tools": tools, "contents": []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": prompt}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "write_file"}}}}}})
	if got := jsonPath(evs[0], "candidates", 0, "content", "parts", 0, "text"); got != FinalText {
		t.Fatalf("gemini after the tool: %v", evs[0])
	}

	chatTools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "create_file"}}}
	msgs := []any{map[string]any{"role": "system", "content": "Current working directory: /w/k"}, map[string]any{"role": "user", "content": prompt}}
	evs = post(t, s, "/v1/chat/completions", map[string]any{"model": "grok-code-fast-1", "tools": chatTools, "messages": msgs})
	call := jsonPath(evs[0], "choices", 0, "message", "tool_calls", 0, "function")
	var args map[string]string
	_ = json.Unmarshal([]byte(str(jsonPath(call, "arguments"))), &args)
	if str(jsonPath(call, "name")) != "create_file" || args["path"] != "/w/k/results/out.md" {
		t.Fatalf("chat call = %v", evs[0])
	}
	evs = post(t, s, "/v1/chat/completions", map[string]any{"model": "grok-code-fast-1", "stream": true, "tools": chatTools,
		"messages": append(msgs, map[string]any{"role": "tool", "content": "ok"})})
	if got := jsonPath(evs[0], "choices", 0, "delta", "content"); got != FinalText {
		t.Fatalf("chat stream = %v", evs)
	}
	if got := jsonPath(evs[len(evs)-1], "usage", "completion_tokens"); got != float64(DefaultUsage.Output) {
		t.Fatalf("chat usage = %v", evs[len(evs)-1])
	}
	if p := s.Problems(); len(p) != 0 {
		t.Fatalf("problems: %v", p)
	}
}

func TestLimitsAndProblems(t *testing.T) {
	s := start(t, Options{MaxRequests: 2})
	post(t, s, "/v1/messages/count_tokens", map[string]any{})
	resp, err := http.Post(s.URL()+"/v2/nowhere", "application/json", strings.NewReader("{}"))
	if err != nil || resp.StatusCode != 404 {
		t.Fatalf("unknown path: %v %v", resp, err)
	}
	resp.Body.Close()
	if p := s.Problems(); len(p) != 1 || !strings.Contains(p[0], "/v2/nowhere: unknown path") {
		t.Fatalf("problems = %q", p)
	}
	// The third request is past the limit: refused, and the server ends.
	if resp, err := http.Post(s.URL()+"/v1/messages/count_tokens", "application/json", strings.NewReader("{}")); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("past the limit: %s", resp.Status)
		}
	}
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not end after its request limit")
	}

	short := start(t, Options{Lifetime: 50 * time.Millisecond})
	select {
	case <-short.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not end after its lifetime")
	}
}
