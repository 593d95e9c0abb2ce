// Package mockllm is a mock LLM API for tests that run the real worker CLIs
// offline. It serves, on 127.0.0.1 at a random port, the four wire shapes
// the CLIs speak:
//
//	POST /v1/messages                                  Anthropic Messages (SSE or JSON) — claude
//	POST /v1/responses                                 OpenAI Responses (SSE) — codex
//	POST /v1beta/models/<m>:streamGenerateContent      Gemini (SSE) — gemini
//	POST /v1beta/models/<m>:generateContent            Gemini (JSON)
//	POST /v1/chat/completions                          OpenAI Chat (JSON or SSE) — grok
//
// plus the side requests the CLIs make on start (count_tokens, model lists),
// answered with empty successes.
//
// The answer is decided from the request alone, so any number of CLIs can
// share one server: a conversation whose user text names a Result Path
// (`**Result Path:** <path>`, as okstra prompts do), that offers the CLI's
// file-writing tool and holds no tool result yet, is answered with one call
// of that tool writing the result file (claude's Write, codex's apply_patch
// custom tool — or its shell tool when the request offers no apply_patch —
// gemini's write_file, grok's create_file); every other request gets a final
// text, FinalText. Every response carries the same known usage, Usage, so a
// test computes the cost it expects from the number of responses served for
// a Result Path (Server.Exchanges).
//
// The server ends itself after Options.Lifetime or Options.MaxRequests
// (whichever first), so a leaked server does not serve for ever; Close ends
// it at once. It writes nothing but its answers.
package mockllm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Usage is the token count of one response. Input excludes cached input;
// each API gets it in its own convention (Anthropic: input_tokens +
// cache_read_input_tokens; OpenAI and Gemini: the input total includes the
// cached part).
type Usage struct {
	Input       int64 // uncached input tokens
	CachedInput int64 // input tokens read from cache
	Output      int64 // output tokens
}

// Add returns u + v.
func (u Usage) Add(v Usage) Usage {
	return Usage{Input: u.Input + v.Input, CachedInput: u.CachedInput + v.CachedInput, Output: u.Output + v.Output}
}

// Times returns u scaled by n responses.
func (u Usage) Times(n int) Usage {
	k := int64(n)
	return Usage{Input: u.Input * k, CachedInput: u.CachedInput * k, Output: u.Output * k}
}

// DefaultUsage is the usage of every response unless Options.Usage says
// otherwise.
var DefaultUsage = Usage{Input: 1200, CachedInput: 300, Output: 80}

// FinalText is the text of every answer that is not a tool call.
const FinalText = "Done: the result file is written."

// ResultContent is what the tool call writes into a Result Path.
func ResultContent(resultPath string) string {
	return "# Result\n\nWritten by the mock LLM for " + resultPath + ".\n"
}

// APIs the server speaks, as recorded in Exchange.API.
const (
	APIAnthropic = "anthropic"
	APIResponses = "responses"
	APIGemini    = "gemini"
	APIChat      = "chat"
	APIOther     = "other" // side requests: count_tokens, model lists
)

// Kinds of answer, as recorded in Exchange.Kind.
const (
	KindTool = "tool" // a call of the file-writing tool
	KindText = "text" // the final text
	KindSide = "side" // an answer to a side request, without usage
)

// Exchange is one request and the answer the server gave.
type Exchange struct {
	API        string
	Path       string // the URL path
	Model      string // the model the request named
	ResultPath string // the Result Path the conversation names, "" for none
	Kind       string
	Tool       string // the tool called, for KindTool
	Stream     bool
	Usage      Usage // zero for KindSide
}

// Options tune a Server; the zero value is usable.
type Options struct {
	// Usage is the usage of every response; zero means DefaultUsage.
	Usage Usage
	// MaxRequests ends the server after this many requests (default 500).
	MaxRequests int
	// Lifetime ends the server after this long (default 10 minutes).
	Lifetime time.Duration
	// Model, when set, is the model every response says served it; by
	// default the response echoes the model the request named. A
	// Responses answer names it in its OpenAI-Model header too, as
	// OpenAI's does (codex prints "model rerouted" when it differs).
	Model string
	// Trace, when set, gets one line per request: method, path and body.
	// For debugging a CLI that does not do what the test expects.
	Trace io.Writer
}

// Server is a running mock. Its methods are safe for concurrent use.
type Server struct {
	opts Options
	ln   net.Listener
	srv  *http.Server
	done chan struct{}
	once sync.Once

	mu        sync.Mutex
	exchanges []Exchange
	problems  []string
	requests  int
	seq       int
}

// Start serves a new mock on 127.0.0.1 at a random port.
func Start(opts Options) (*Server, error) {
	if opts.Usage == (Usage{}) {
		opts.Usage = DefaultUsage
	}
	if opts.MaxRequests <= 0 {
		opts.MaxRequests = 500
	}
	if opts.Lifetime <= 0 {
		opts.Lifetime = 10 * time.Minute
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for the mock llm: %w", err)
	}
	s := &Server{opts: opts, ln: ln, done: make(chan struct{})}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	go func() {
		select {
		case <-time.After(opts.Lifetime):
			s.Close()
		case <-s.done:
		}
	}()
	return s, nil
}

// URL is the server's base URL, http://127.0.0.1:<port>, without a path.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server and drops its connections; it is idempotent.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.done)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if s.srv.Shutdown(ctx) != nil {
			_ = s.srv.Close()
		}
	})
}

// Done is closed when the server has stopped (Close, its lifetime or its
// request limit).
func (s *Server) Done() <-chan struct{} { return s.done }

// Exchanges returns every exchange so far, in order.
func (s *Server) Exchanges() []Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Exchange(nil), s.exchanges...)
}

// For returns the exchanges whose conversation names resultPath, the Result
// Path as the prompt wrote it.
func (s *Server) For(resultPath string) []Exchange {
	var out []Exchange
	for _, e := range s.Exchanges() {
		if e.ResultPath == resultPath {
			out = append(out, e)
		}
	}
	return out
}

// UsageFor is the total usage the server answered the conversations naming
// resultPath with.
func (s *Server) UsageFor(resultPath string) Usage {
	var u Usage
	for _, e := range s.For(resultPath) {
		u = u.Add(e.Usage)
	}
	return u
}

// Problems lists requests the server could not make sense of (an unknown
// path, a body that is not JSON); a test fails on any.
func (s *Server) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.problems...)
}

func (s *Server) problem(format string, args ...any) {
	s.mu.Lock()
	s.problems = append(s.problems, fmt.Sprintf(format, args...))
	s.mu.Unlock()
}

func (s *Server) record(e Exchange) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	s.exchanges = append(s.exchanges, e)
	return s.seq
}

// maxBody bounds a request body (the CLIs send their whole conversation,
// system prompt and tool schemas: a few hundred KB at most).
const maxBody = 16 << 20

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests++
	n := s.requests
	s.mu.Unlock()
	if n > s.opts.MaxRequests {
		http.Error(w, "mockllm: request limit reached", http.StatusServiceUnavailable)
		s.problem("%s %s: past the limit of %d requests", r.Method, r.URL.Path, s.opts.MaxRequests)
		go s.Close()
		return
	}
	path := r.URL.Path
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		s.side(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if s.opts.Trace != nil {
		s.mu.Lock()
		fmt.Fprintf(s.opts.Trace, "%s %s %s\n", r.Method, r.URL.RequestURI(), body)
		s.mu.Unlock()
	}
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		s.problem("%s %s: body is not JSON: %v", r.Method, path, err)
		http.Error(w, "mockllm: body is not JSON", http.StatusBadRequest)
		return
	}
	switch {
	case strings.HasSuffix(path, "/messages/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": s.opts.Usage.Input})
		s.record(Exchange{API: APIOther, Path: path, Kind: KindSide})
	case strings.HasSuffix(path, "/messages"):
		s.anthropic(w, path, req)
	case strings.HasSuffix(path, "/responses"):
		s.responses(w, path, req)
	case strings.HasSuffix(path, "/chat/completions"):
		s.chat(w, path, req)
	case strings.Contains(path, ":streamGenerateContent"), strings.Contains(path, ":generateContent"):
		s.gemini(w, path, req)
	case strings.Contains(path, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": s.opts.Usage.Input})
		s.record(Exchange{API: APIOther, Path: path, Kind: KindSide})
	default:
		s.problem("%s %s: unknown path", r.Method, path)
		http.Error(w, "mockllm: unknown path "+path, http.StatusNotFound)
	}
}

// side answers GET requests (model lists and the like) with an empty list.
func (s *Server) side(w http.ResponseWriter, r *http.Request) {
	s.record(Exchange{API: APIOther, Path: r.URL.Path, Kind: KindSide})
	writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// sse writes server-sent events; event "" writes a data-only event.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

func (e *sse) send(event string, v any) {
	data, _ := json.Marshal(v)
	if event != "" {
		fmt.Fprintf(e.w, "event: %s\n", event)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", data)
	if e.f != nil {
		e.f.Flush()
	}
}

func (e *sse) raw(line string) {
	fmt.Fprintf(e.w, "%s\n\n", line)
	if e.f != nil {
		e.f.Flush()
	}
}

// resultPathRE finds a Result Path header in any text of a conversation.
var resultPathRE = regexp.MustCompile("\\*\\*Result Path:\\*\\*[ \\t]*`?([^`\\s]+)`?")

// cwdREs find the working directory a CLI tells its model about.
var cwdREs = []*regexp.Regexp{
	regexp.MustCompile(`<cwd>([^<\n]+)</cwd>`),                                                        // codex
	regexp.MustCompile(`Primary working directory:\s*(/\S+)`),                                         // claude
	regexp.MustCompile(`(?m)Working directory:\s*(/\S+)`),                                             // claude (older)
	regexp.MustCompile(`(?m)currently working in the directory:?\s*` + "`?" + `(/[^\s` + "`" + `]+)`), // gemini
	regexp.MustCompile(`(?m)[Cc]urrent working directory:\s*(/\S+)`),                                  // grok
	regexp.MustCompile(`(?m)Current directory:\s*(/\S+)`),
}

// conversation is what the server reads off a request.
type conversation struct {
	resultPath string // as the prompt wrote it
	cwd        string // the working directory the CLI named, "" when none
	toolDone   bool   // a tool result is already in the conversation
}

// target is the path the tool call writes: the Result Path, made absolute
// against the working directory the CLI named when it is relative.
func (c conversation) target() string {
	if filepath.IsAbs(c.resultPath) || c.cwd == "" {
		return c.resultPath
	}
	return filepath.Join(c.cwd, c.resultPath)
}

// userTexts collects the strings of v (a decoded JSON tree) into texts.
func allStrings(v any, texts *[]string) {
	switch x := v.(type) {
	case string:
		*texts = append(*texts, x)
	case []any:
		for _, e := range x {
			allStrings(e, texts)
		}
	case map[string]any:
		for _, e := range x {
			allStrings(e, texts)
		}
	}
}

// read fills a conversation from the texts of the user turns and of the
// system prompt.
func read(userParts, systemParts []any, toolDone bool) conversation {
	var user, all []string
	for _, p := range userParts {
		allStrings(p, &user)
	}
	all = append(all, user...)
	for _, p := range systemParts {
		allStrings(p, &all)
	}
	c := conversation{toolDone: toolDone}
	for _, t := range user {
		if m := resultPathRE.FindStringSubmatch(t); m != nil {
			c.resultPath = m[1]
			break
		}
	}
	for _, re := range cwdREs {
		for _, t := range all {
			if m := re.FindStringSubmatch(t); m != nil {
				c.cwd = strings.TrimRight(strings.TrimSpace(m[1]), ".,;:")
				return c
			}
		}
	}
	return c
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// hasTool reports whether a request's tools (a list of objects) offer one
// of names, looked up by the keys each API uses; it returns the name found
// and the tool object.
func hasTool(tools []any, names ...string) (string, map[string]any) {
	for _, t := range tools {
		o := obj(t)
		cands := []string{str(o["name"]), str(obj(o["function"])["name"])}
		for _, fd := range list(o["functionDeclarations"]) {
			cands = append(cands, str(obj(fd)["name"]))
		}
		for _, c := range cands {
			for _, n := range names {
				if c == n {
					return n, o
				}
			}
		}
	}
	return "", nil
}
