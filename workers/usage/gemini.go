package usage

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// geminiChatAcc keeps one usage per message of a gemini chat recording:
// gemini-cli appends a message again (same id) each time it changes —
// first without tokens, then with them, again when a tool call is added —
// so the last line of an id wins and ids are summed. A $rewindTo line
// drops messages from the conversation but not from the bill: ignored.
type geminiChatAcc struct {
	msgs map[string]msgUsage
	last string
}

type geminiChatLine struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Model  string `json:"model"`
	Tokens *struct {
		Input    int64 `json:"input"` // the prompt, cached included
		Output   int64 `json:"output"`
		Cached   int64 `json:"cached"`
		Thoughts int64 `json:"thoughts"`
		Tool     int64 `json:"tool"` // tool-use prompt tokens, not in input
	} `json:"tokens"`
}

var kwTokens = []byte(`"tokens"`)

func (a *geminiChatAcc) line(b []byte) bool {
	if !bytes.Contains(b, kwTokens) {
		return false
	}
	var l geminiChatLine
	if json.Unmarshal(jsonStart(b), &l) != nil || l.ID == "" || l.Type != "gemini" || l.Tokens == nil {
		return false
	}
	u := l.Tokens
	t := Tokens{Input: u.Input - u.Cached + u.Tool, CacheRead: u.Cached, Output: u.Output + u.Thoughts}
	if t.Sum() == 0 {
		return false
	}
	if l.Model != "" {
		a.last = l.Model
	}
	m := msgUsage{model: l.Model, t: t}
	if a.msgs[l.ID] == m {
		return false
	}
	a.msgs[l.ID] = m
	return true
}

// totals sums the messages by model and keeps each message's tokens: one
// gemini message is one model response, so one request to price by its
// prompt's length.
func (a *geminiChatAcc) totals() Totals {
	by := map[string]Tokens{}
	reqs := map[string][]Tokens{}
	for _, m := range a.msgs {
		by[m.model] = by[m.model].add(m.t)
		reqs[m.model] = append(reqs[m.model], m.t)
	}
	return Totals{ByModel: by, Last: a.last, Requests: reqs}
}

// GeminiProjectHash is the projectHash gemini-cli writes in a chat's
// first line: the SHA-256 of the project root.
func GeminiProjectHash(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:])
}

// GeminiRegistry is gemini-cli's registry of project directories
// (<gemini home>/projects.json: {"projects": {"<abs path>": "<slug>"}}).
func (h Homes) GeminiRegistry() string { return filepath.Join(h.Gemini, "projects.json") }

// GeminiChatsDir is where gemini-cli records the chats of the sessions
// started in cwd: <gemini home>/tmp/<slug>/chats, the slug being cwd's
// entry in the project registry. "" when gemini has not registered cwd
// (yet): it does so at its first start there, before it records a chat.
func (h Homes) GeminiChatsDir(cwd string) string {
	data, err := os.ReadFile(h.GeminiRegistry())
	if err != nil {
		return ""
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(data, &reg) != nil {
		return ""
	}
	slug := reg.Projects[filepath.Clean(cwd)]
	if slug == "" {
		if real, err := filepath.EvalSymlinks(cwd); err == nil {
			slug = reg.Projects[real]
		}
	}
	if slug == "" || strings.ContainsAny(slug, `/\`) || slug == "." || slug == ".." {
		return ""
	}
	return filepath.Join(h.Gemini, "tmp", slug, "chats")
}

// IsGeminiChat says whether name is a gemini chat recording of a main
// session (session-<time>-<id prefix>.jsonl).
func IsGeminiChat(name string) bool {
	b := filepath.Base(name)
	return strings.HasPrefix(b, "session-") && strings.HasSuffix(b, ".jsonl")
}

// GeminiChatMeta is the metadata line that opens a chat recording.
type GeminiChatMeta struct {
	SessionID   string
	ProjectHash string
	Start       time.Time
	Kind        string
}

// ReadGeminiChatMeta reads a chat recording's first line; ok is false
// when it is not (yet) a whole metadata line.
func ReadGeminiChatMeta(path string) (GeminiChatMeta, bool) {
	line, ok := firstLine(path)
	if !ok {
		return GeminiChatMeta{}, false
	}
	var l struct {
		SessionID   string `json:"sessionId"`
		ProjectHash string `json:"projectHash"`
		StartTime   string `json:"startTime"`
		Kind        string `json:"kind"`
	}
	if json.Unmarshal(line, &l) != nil || l.SessionID == "" || l.ProjectHash == "" {
		return GeminiChatMeta{}, false
	}
	at, _ := time.Parse(time.RFC3339Nano, l.StartTime)
	return GeminiChatMeta{SessionID: l.SessionID, ProjectHash: l.ProjectHash, Start: at, Kind: l.Kind}, true
}
