package mockllm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

func (s *Server) model(req map[string]any, fallback string) string {
	if s.opts.Model != "" {
		return s.opts.Model
	}
	if m := str(req["model"]); m != "" {
		return m
	}
	return fallback
}

// anthropic answers POST /v1/messages (claude).
func (s *Server) anthropic(w http.ResponseWriter, path string, req map[string]any) {
	var user []any
	done := false
	for _, m := range list(req["messages"]) {
		mo := obj(m)
		if str(mo["role"]) != "user" {
			continue
		}
		// A user turn holds plain text and tool results; only text counts
		// for the Result Path.
		switch c := mo["content"].(type) {
		case string:
			user = append(user, c)
		case []any:
			for _, b := range c {
				bo := obj(b)
				if str(bo["type"]) == "tool_result" {
					done = true
					continue
				}
				user = append(user, bo["text"])
			}
		}
	}
	c := read(user, []any{req["system"]}, done)
	model := s.model(req, "claude")
	stream, _ := req["stream"].(bool)
	u := s.opts.Usage
	tool, _ := hasTool(list(req["tools"]), "Write")
	ex := Exchange{API: APIAnthropic, Path: path, Model: model, ResultPath: c.resultPath, Kind: KindText, Stream: stream, Usage: u}
	var block map[string]any
	stop := "end_turn"
	var input string
	if c.resultPath != "" && !c.toolDone && tool != "" {
		ex.Kind, ex.Tool = KindTool, tool
		in, _ := json.Marshal(map[string]string{"file_path": c.target(), "content": ResultContent(c.resultPath)})
		input = string(in)
		stop = "tool_use"
	}
	n := s.record(ex)
	id := fmt.Sprintf("msg_mock%04d", n)
	usage := map[string]any{"input_tokens": u.Input, "cache_read_input_tokens": u.CachedInput, "cache_creation_input_tokens": 0, "output_tokens": u.Output}
	if ex.Kind == KindTool {
		var parsed any
		_ = json.Unmarshal([]byte(input), &parsed)
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_mock%04d", n), "name": tool, "input": parsed}
	} else {
		block = map[string]any{"type": "text", "text": FinalText}
	}
	if !stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	e := newSSE(w)
	startUsage := map[string]any{"input_tokens": u.Input, "cache_read_input_tokens": u.CachedInput, "cache_creation_input_tokens": 0, "output_tokens": 1}
	e.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": id, "type": "message",
		"role": "assistant", "model": model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": startUsage}})
	if ex.Kind == KindTool {
		e.send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": block["id"], "name": tool, "input": map[string]any{}}})
		e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": input}})
	} else {
		e.send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": FinalText}})
	}
	e.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	e.send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"input_tokens": u.Input, "cache_read_input_tokens": u.CachedInput, "cache_creation_input_tokens": 0, "output_tokens": u.Output}})
	e.send("message_stop", map[string]any{"type": "message_stop"})
}

// applyPatch is the patch that adds path with content.
func applyPatch(path, content string) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Add File: " + path + "\n")
	for line := range strings.Lines(content) {
		b.WriteString("+" + strings.TrimSuffix(line, "\n") + "\n")
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// responses answers POST /v1/responses (codex).
func (s *Server) responses(w http.ResponseWriter, path string, req map[string]any) {
	var user []any
	done := false
	for _, it := range list(req["input"]) {
		item := obj(it)
		switch str(item["type"]) {
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			done = true
		case "message", "":
			if str(item["role"]) == "user" {
				user = append(user, item["content"])
			}
		}
	}
	if in, ok := req["input"].(string); ok {
		user = append(user, in)
	}
	c := read(user, []any{req["instructions"]}, done)
	model := s.model(req, "gpt")
	u := s.opts.Usage
	ex := Exchange{API: APIResponses, Path: path, Model: model, ResultPath: c.resultPath, Kind: KindText, Stream: true, Usage: u}
	var item map[string]any
	if c.resultPath != "" && !c.toolDone {
		patch := applyPatch(c.target(), ResultContent(c.resultPath))
		item = s.codexWrite(req, patch, &ex)
	}
	n := s.record(ex)
	if item == nil {
		item = map[string]any{"type": "message", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": FinalText, "annotations": []any{}}}}
	}
	item["id"] = fmt.Sprintf("item_mock%04d", n)
	if item["type"] != "message" {
		item["call_id"] = fmt.Sprintf("call_mock%04d", n)
	}
	id := fmt.Sprintf("resp_mock%04d", n)
	// OpenAI names the model that answered in a header too; codex
	// compares it with the one it asked for.
	w.Header().Set("OpenAI-Model", model)
	e := newSSE(w)
	e.send("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id, "object": "response", "model": model, "status": "in_progress", "output": []any{}}})
	e.send("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	if item["type"] == "message" {
		e.send("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": item["id"], "output_index": 0, "content_index": 0, "delta": FinalText})
	}
	e.send("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	e.send("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": id, "object": "response", "model": model, "status": "completed", "output": []any{item},
		"usage": map[string]any{
			"input_tokens": u.Input + u.CachedInput, "input_tokens_details": map[string]any{"cached_tokens": u.CachedInput},
			"output_tokens": u.Output, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": u.Input + u.CachedInput + u.Output,
		}}})
}

// gemini answers :streamGenerateContent and :generateContent (gemini).
func (s *Server) gemini(w http.ResponseWriter, path string, req map[string]any) {
	var user []any
	done := false
	for _, m := range list(req["contents"]) {
		mo := obj(m)
		if str(mo["role"]) != "user" && str(mo["role"]) != "" {
			continue
		}
		for _, p := range list(mo["parts"]) {
			po := obj(p)
			if po["functionResponse"] != nil {
				done = true
				continue
			}
			user = append(user, po["text"])
		}
	}
	c := read(user, []any{req["systemInstruction"]}, done)
	model := s.opts.Model
	if model == "" {
		// .../models/<model>:streamGenerateContent
		if i := strings.LastIndex(path, "/models/"); i >= 0 {
			model, _, _ = strings.Cut(path[i+len("/models/"):], ":")
		}
	}
	stream := strings.Contains(path, ":streamGenerateContent")
	u := s.opts.Usage
	ex := Exchange{API: APIGemini, Path: path, Model: model, ResultPath: c.resultPath, Kind: KindText, Stream: stream, Usage: u}
	part := map[string]any{"text": FinalText}
	if c.resultPath != "" && !c.toolDone {
		if name, _ := hasTool(list(req["tools"]), "write_file"); name != "" {
			ex.Kind, ex.Tool = KindTool, name
			part = map[string]any{"functionCall": map[string]any{"name": name,
				"args": map[string]any{"file_path": c.target(), "content": ResultContent(c.resultPath)}}}
		}
	}
	s.record(ex)
	resp := map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{
			"promptTokenCount": u.Input + u.CachedInput, "cachedContentTokenCount": u.CachedInput,
			"candidatesTokenCount": u.Output, "totalTokenCount": u.Input + u.CachedInput + u.Output,
		},
		"modelVersion": model,
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	newSSE(w).send("", resp)
}

// chat answers POST /v1/chat/completions (grok), streamed or not.
func (s *Server) chat(w http.ResponseWriter, path string, req map[string]any) {
	var user, system []any
	done := false
	for _, m := range list(req["messages"]) {
		mo := obj(m)
		switch str(mo["role"]) {
		case "user":
			user = append(user, mo["content"])
		case "system":
			system = append(system, mo["content"])
		case "tool":
			done = true
		}
	}
	c := read(user, system, done)
	model := s.model(req, "grok")
	stream, _ := req["stream"].(bool)
	u := s.opts.Usage
	ex := Exchange{API: APIChat, Path: path, Model: model, ResultPath: c.resultPath, Kind: KindText, Stream: stream, Usage: u}
	var call map[string]any
	if c.resultPath != "" && !c.toolDone {
		if name, _ := hasTool(list(req["tools"]), "create_file", "write_file"); name != "" {
			ex.Kind, ex.Tool = KindTool, name
			args, _ := json.Marshal(map[string]string{"path": c.target(), "file_path": c.target(), "content": ResultContent(c.resultPath)})
			call = map[string]any{"id": "", "type": "function", "function": map[string]any{"name": name, "arguments": string(args)}}
		}
	}
	n := s.record(ex)
	id := fmt.Sprintf("chatcmpl-mock%04d", n)
	usage := map[string]any{"prompt_tokens": u.Input + u.CachedInput, "completion_tokens": u.Output,
		"total_tokens": u.Input + u.CachedInput + u.Output, "prompt_tokens_details": map[string]any{"cached_tokens": u.CachedInput}}
	msg := map[string]any{"role": "assistant", "content": FinalText}
	finish := "stop"
	if call != nil {
		call["id"] = fmt.Sprintf("call_mock%04d", n)
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{call}}
		finish = "tool_calls"
	}
	if !stream {
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	e := newSSE(w)
	delta := map[string]any{"role": "assistant", "content": FinalText}
	if call != nil {
		call["index"] = 0
		delta = map[string]any{"role": "assistant", "tool_calls": []any{call}}
	}
	e.send("", map[string]any{"id": id, "object": "chat.completion.chunk", "model": model,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": nil}}})
	e.send("", map[string]any{"id": id, "object": "chat.completion.chunk", "model": model,
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}, "usage": usage})
	e.raw("data: [DONE]")
}

// codexTool is one tool a Responses request offers, with the namespace it
// sits in ("" at the top).
type codexTool struct{ namespace, name, typ string }

// codexTools lists the tools of a Responses request: its tools and those of
// its additional_tools input items (codex 0.171), namespaces flattened.
func codexTools(req map[string]any) []codexTool {
	var out []codexTool
	var walk func(ns string, ts []any)
	walk = func(ns string, ts []any) {
		for _, t := range ts {
			o := obj(t)
			if str(o["type"]) == "namespace" {
				walk(str(o["name"]), list(o["tools"]))
				continue
			}
			name := str(o["name"])
			if name == "" {
				name = str(obj(o["function"])["name"])
			}
			out = append(out, codexTool{namespace: ns, name: name, typ: str(o["type"])})
		}
	}
	walk("", list(req["tools"]))
	for _, it := range list(req["input"]) {
		if o := obj(it); str(o["type"]) == "additional_tools" {
			walk("", list(o["tools"]))
		}
	}
	return out
}

// codexWrite is the output item that makes codex add the file patch
// describes: the apply_patch custom tool when offered; else, in code mode
// (0.171: one custom "exec" tool that runs JavaScript over the nested
// tools), an exec cell calling tools.apply_patch; else apply_patch or the
// shell as a function. nil when the request offers none of them.
func (s *Server) codexWrite(req map[string]any, patch string, ex *Exchange) map[string]any {
	tools := codexTools(req)
	find := func(name string) (codexTool, bool) {
		for _, t := range tools {
			if t.name == name {
				return t, true
			}
		}
		return codexTool{}, false
	}
	item := func(t codexTool, typ string) map[string]any {
		ex.Kind, ex.Tool = KindTool, t.name
		m := map[string]any{"type": typ, "status": "completed", "name": t.name}
		if t.namespace != "" {
			m["namespace"] = t.namespace
		}
		return m
	}
	if t, ok := find("apply_patch"); ok {
		if t.typ == "custom" {
			m := item(t, "custom_tool_call")
			m["input"] = patch
			return m
		}
		m := item(t, "function_call")
		args, _ := json.Marshal(map[string]string{"input": patch})
		m["arguments"] = string(args)
		return m
	}
	if t, ok := find("exec"); ok && t.typ == "custom" {
		js, _ := json.Marshal(patch)
		m := item(t, "custom_tool_call")
		m["input"] = "const r = await tools.apply_patch(" + string(js) + ");\ntext(r);\n"
		return m
	}
	for _, name := range []string{"shell", "exec_command"} {
		if t, ok := find(name); ok {
			m := item(t, "function_call")
			args, _ := json.Marshal(map[string]any{"command": []string{"apply_patch", patch}})
			if name == "exec_command" {
				args, _ = json.Marshal(map[string]any{"cmd": "apply_patch <<'EOF'\n" + patch + "EOF\n"})
			}
			m["arguments"] = string(args)
			return m
		}
	}
	return nil
}
