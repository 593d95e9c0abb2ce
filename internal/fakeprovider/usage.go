package fakeprovider

import (
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// evidence is the token evidence the fake leaves, in the shape of the CLI
// it plays (see workers/usage and docs/COST.md):
//
//   - claude: stream-json lines on stdout (the catalog runs claude with
//     --output-format stream-json): system/init, one assistant event per
//     step with message.usage, a result event with the totals; and, when
//     CLAUDE_CONFIG_DIR is set, the same assistant lines in its session
//     transcript $CLAUDE_CONFIG_DIR/projects/<cwd>/<session id>.jsonl, as
//     claude -p keeps one;
//   - codex: "session id: <uuid>" in its header, and a rollout under
//     $CODEX_HOME/sessions/YYYY/MM/DD/ — only when CODEX_HOME is set, so a
//     test never writes into a real ~/.codex;
//   - kimi: a wire.jsonl under $KIMI_SHARE_DIR/sessions/<md5(cwd)>/<id>/,
//     only when KIMI_SHARE_DIR is set;
//   - gemini, grok, my-agent: none (their built-in argv asks for none).
type evidence struct {
	f     *fake
	id    string
	step  int64
	path  string // codex rollout, kimi wire
	total struct{ in, cacheW, cacheR, out int64 }
}

// claudeServed is the model the fake claude reports for each alias.
var claudeServed = map[string]string{"opus": "claude-opus-4-8-20261015", "sonnet": "claude-sonnet-4-6"}

// EnvServedModel, when set, is the model the fake's evidence says served
// it instead of the one it was asked for, as an API answering with another
// model leaves it: claude's stream-json and transcript name it; codex
// prints "model rerouted: <asked> -> <served>" (its rollout keeps the
// model asked for, as codex 0.171's does). A test of the served-model
// verification sets it.
const EnvServedModel = "FAKEPROVIDER_SERVED_MODEL"

// served is the model the evidence names.
func (e *evidence) served() string {
	if m := os.Getenv(EnvServedModel); m != "" {
		return m
	}
	if e.f.name == "claude" {
		return claudeServed[e.f.model]
	}
	return e.f.model
}

// rerouted is the model codex says its requests were rerouted to, "".
func (e *evidence) rerouted() string {
	if m := os.Getenv(EnvServedModel); m != "" && m != e.f.model {
		return m
	}
	return ""
}

func newEvidence(f *fake) *evidence {
	e := &evidence{f: f, id: uuid()}
	if f.session != "" {
		e.id = f.session
	}
	cwd, _ := os.Getwd()
	switch f.name {
	case "claude":
		if home := os.Getenv("CLAUDE_CONFIG_DIR"); home != "" {
			dir := filepath.Join(home, "projects", encodeCwd(cwd))
			if os.MkdirAll(dir, 0o755) == nil {
				e.path = filepath.Join(dir, e.id+".jsonl")
			}
		}
	case "codex":
		if home := os.Getenv("CODEX_HOME"); home != "" {
			now := time.Now()
			dir := filepath.Join(home, "sessions", now.Format("2006"), now.Format("01"), now.Format("02"))
			if os.MkdirAll(dir, 0o755) == nil {
				e.path = filepath.Join(dir, "rollout-"+now.Format("2006-01-02T15-04-05")+"-"+e.id+".jsonl")
				e.append(map[string]any{"timestamp": now.UTC().Format(time.RFC3339Nano), "type": "session_meta",
					"payload": map[string]any{"id": e.id, "timestamp": now.UTC().Format(time.RFC3339Nano), "cwd": cwd, "originator": "codex_exec"}})
				e.append(map[string]any{"type": "turn_context", "payload": map[string]any{"cwd": cwd, "model": f.model}})
			}
		}
	case "kimi":
		if home := os.Getenv("KIMI_SHARE_DIR"); home != "" {
			sum := md5.Sum([]byte(cwd))
			dir := filepath.Join(home, "sessions", hex.EncodeToString(sum[:]), e.id)
			if os.MkdirAll(dir, 0o755) == nil {
				e.path = filepath.Join(dir, "wire.jsonl")
				e.append(map[string]any{"type": "metadata", "protocol_version": "1.2"})
			}
		}
	}
	return e
}

// header is what the CLI prints first about its session.
func (e *evidence) header() {
	switch e.f.name {
	case "claude":
		e.print(map[string]any{"type": "system", "subtype": "init", "session_id": e.id, "model": e.served()})
	case "codex":
		e.f.printf("--------\nworkdir: %s\nmodel: %s\nsession id: %s\n--------\n", cwdOr(), e.f.model, e.id)
		if m := e.rerouted(); m != "" {
			// As codex 0.171 under a PTY prints it.
			e.f.printf("\x1b[1m\x1b[33mmodel rerouted:\x1b[0m\x1b[0m %s -> %s\n", e.f.model, m)
		}
	}
}

// spend records one model call.
func (e *evidence) spend() {
	e.step++
	n := e.step
	in, cw, cr, out := 30+n, int64(6000), 9000*(n-1), 400*n
	e.total.in += in
	e.total.cacheW += cw
	e.total.cacheR += cr
	e.total.out += out
	switch e.f.name {
	case "claude":
		msg := map[string]any{
			"id": fmt.Sprintf("msg_fake_%d", n), "model": e.served(),
			"usage": map[string]int64{"input_tokens": in, "cache_creation_input_tokens": cw, "cache_read_input_tokens": cr, "output_tokens": out}}
		e.print(map[string]any{"type": "assistant", "session_id": e.id, "message": msg})
		e.append(map[string]any{"type": "assistant", "sessionId": e.id, "requestId": fmt.Sprintf("req_fake_%d", n), "message": msg})
	case "codex":
		// Cumulative, cached input inside input, as codex counts.
		e.append(map[string]any{"type": "event_msg", "payload": map[string]any{"type": "token_count", "info": map[string]any{
			"total_token_usage": map[string]int64{"input_tokens": e.total.in + e.total.cacheW + e.total.cacheR, "cached_input_tokens": e.total.cacheR, "output_tokens": e.total.out}}}})
	case "kimi":
		e.append(map[string]any{"message": map[string]any{"type": "StatusUpdate", "payload": map[string]any{
			"message_id":  fmt.Sprintf("chatcmpl-%d", n),
			"token_usage": map[string]int64{"input_other": in + cw, "output": out, "input_cache_read": cr, "input_cache_creation": 0}}}})
	}
}

// done ends the session's evidence: claude's result event.
func (e *evidence) done() {
	if e.f.name != "claude" {
		return
	}
	e.print(map[string]any{"type": "result", "subtype": "success", "session_id": e.id,
		"usage": map[string]int64{"input_tokens": e.total.in, "cache_creation_input_tokens": e.total.cacheW, "cache_read_input_tokens": e.total.cacheR, "output_tokens": e.total.out}})
}

func (e *evidence) print(v any) {
	data, _ := json.Marshal(v)
	e.f.printf("%s\n", data)
}

func (e *evidence) append(v any) {
	if e.path == "" {
		return
	}
	data, _ := json.Marshal(v)
	f, err := os.OpenFile(e.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	f.Write(append(data, '\n'))
}

// encodeCwd is claude's project directory name for cwd: every character
// that is not a letter or a digit becomes '-'.
func encodeCwd(cwd string) string {
	return regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(cwd, "-")
}

func cwdOr() string {
	wd, _ := os.Getwd()
	return wd
}

func uuid() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x70 // version 7 layout, as codex's ids
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
