package usage

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
)

// Format names one kind of token evidence.
type Format uint8

const (
	// ClaudeSession is claude's session transcript: one JSON object per
	// line, assistant lines carrying message.usage; claude writes several
	// lines per message (one per content block), all with the same usage.
	ClaudeSession Format = iota + 1
	// CodexRollout is codex's rollout: event_msg lines of type token_count
	// with cumulative info.total_token_usage, turn_context lines naming the
	// model.
	CodexRollout
	// StreamJSON is `--output-format stream-json` output in a pane log:
	// claude's assistant events (message.usage) and result event (usage,
	// modelUsage), gemini's init (model) and result (stats) events.
	StreamJSON
	// KimiWire is kimi-cli's wire.jsonl: StatusUpdate messages with a
	// token_usage per model call.
	KimiWire
	// GeminiChat is gemini-cli's chat recording,
	// ~/.gemini/tmp/<project>/chats/session-*.jsonl: a metadata line, then
	// one line per message written, a message written again (same id)
	// whenever it changes; gemini messages carry tokens and model.
	GeminiChat
)

func (f Format) String() string {
	switch f {
	case ClaudeSession:
		return "claude session"
	case CodexRollout:
		return "codex rollout"
	case StreamJSON:
		return "stream-json"
	case KimiWire:
		return "kimi wire"
	case GeminiChat:
		return "gemini chat"
	}
	return "unknown"
}

func (f Format) accumulator() accumulator {
	switch f {
	case ClaudeSession:
		return &claudeAcc{msgs: map[string]msgUsage{}}
	case CodexRollout:
		return &codexAcc{by: map[string]Tokens{}}
	case StreamJSON:
		return &streamAcc{claude: claudeAcc{msgs: map[string]msgUsage{}}}
	case KimiWire:
		return &kimiAcc{msgs: map[string]Tokens{}}
	case GeminiChat:
		return &geminiChatAcc{msgs: map[string]msgUsage{}}
	}
	return &claudeAcc{msgs: map[string]msgUsage{}}
}

// Tokens are counts of one model's tokens.
type Tokens struct {
	Input      int64 // input not read from a cache
	CacheRead  int64 // input read from a cache
	CacheWrite int64 // input written to a cache (claude, kimi, codex)
	// CacheWrite1h is how many of CacheWrite were written to claude's
	// 1-hour cache (billed at 2× input, the 5-minute cache at 1.25×).
	CacheWrite1h int64
	Output       int64 // output, reasoning included
}

func (t Tokens) add(u Tokens) Tokens {
	return Tokens{t.Input + u.Input, t.CacheRead + u.CacheRead, t.CacheWrite + u.CacheWrite, t.CacheWrite1h + u.CacheWrite1h, t.Output + u.Output}
}

func (t Tokens) sub(u Tokens) Tokens {
	return Tokens{t.Input - u.Input, t.CacheRead - u.CacheRead, t.CacheWrite - u.CacheWrite, t.CacheWrite1h - u.CacheWrite1h, t.Output - u.Output}
}

// Sum is every token counted (CacheWrite1h is part of CacheWrite).
func (t Tokens) Sum() int64 { return t.Input + t.CacheRead + t.CacheWrite + t.Output }

// Prompt is the input of the request: uncached, read from and written to a
// cache.
func (t Tokens) Prompt() int64 { return t.Input + t.CacheRead + t.CacheWrite }

// Totals are a worker's tokens so far, by the model the evidence names (""
// when it names none), and the model named last. CLICost is set when the
// CLI itself reported what the run cost (claude's result event
// total_cost_usd): CLICostUSD is then its figure.
//
// Requests, when the evidence keeps each request's tokens (a gemini chat
// recording: one message per model response), are those tokens by model,
// so a price with a long-context tier prices each request by the length
// of its prompt (Price); nil when the evidence keeps only totals.
type Totals struct {
	ByModel    map[string]Tokens
	Last       string
	CLICost    bool
	CLICostUSD float64
	Requests   map[string][]Tokens
}

// All sums every model's tokens.
func (t Totals) All() Tokens {
	var s Tokens
	for _, v := range t.ByModel {
		s = s.add(v)
	}
	return s
}

// accumulator parses the lines of one format; line reports whether the
// totals changed.
type accumulator interface {
	line([]byte) bool
	totals() Totals
}

// jsonStart is the line from its first '{' (pane logs may carry terminal
// output before it), or nil.
func jsonStart(line []byte) []byte {
	i := bytes.IndexByte(line, '{')
	if i < 0 {
		return nil
	}
	return line[i:]
}

// claudeUsage is the usage object of the Anthropic API; cache_creation
// splits the cache writes by cache lifetime.
type claudeUsage struct {
	Input         int64 `json:"input_tokens"`
	CacheCreate   int64 `json:"cache_creation_input_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	Output        int64 `json:"output_tokens"`
	CacheCreation *struct {
		Hour int64 `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
}

func (u claudeUsage) tokens() Tokens {
	t := Tokens{Input: u.Input, CacheRead: u.CacheRead, CacheWrite: u.CacheCreate, Output: u.Output}
	if c := u.CacheCreation; c != nil {
		t.CacheWrite1h = min(c.Hour, u.CacheCreate)
	}
	return t
}

type msgUsage struct {
	model string
	t     Tokens
	// side: a claude subagent's message (stream-json's parent_tool_use_id
	// set, a transcript's isSidechain), not the worker's own conversation.
	side bool
}

// claudeAcc keeps one usage per message: the lines of one message repeat
// its usage (output_tokens may grow from one to the next), so the last
// line of a message wins and messages are summed.
type claudeAcc struct {
	msgs map[string]msgUsage
	n    int // lines without an id
	last string
	// cost is the CLI's total of the last cost-state line (session
	// transcripts), valid while no message came after it.
	cost   float64
	costOK bool
}

var (
	kwUsage     = []byte(`"usage"`)
	kwResult    = []byte(`"result"`)
	kwInit      = []byte(`"init"`)
	kwCostState = []byte(`{"type":"cost-state"`)
)

type claudeLine struct {
	Type string `json:"type"`
	// TotalCost and UnknownCost are a cost-state line's (claude-code
	// 2.1's transcripts): the CLI's cost of the session so far, and
	// whether a model it could not price took part.
	TotalCost   *float64 `json:"totalCostUSD"`
	UnknownCost bool     `json:"hasUnknownModelCost"`
	RequestID   string   `json:"requestId"`
	UUID        string   `json:"uuid"`
	// ParentToolUse (stream-json) and Sidechain (transcripts) mark a
	// subagent's message.
	ParentToolUse *string `json:"parent_tool_use_id"`
	Sidechain     bool    `json:"isSidechain"`
	Message       *struct {
		ID    string       `json:"id"`
		Model string       `json:"model"`
		Usage *claudeUsage `json:"usage"`
	} `json:"message"`
}

func (a *claudeAcc) line(b []byte) bool {
	// claude-code writes a cost-state line's type first: a prefix test,
	// not a second scan of every line.
	cost := bytes.HasPrefix(b, kwCostState)
	if !cost && !bytes.Contains(b, kwUsage) {
		return false
	}
	var l claudeLine
	if json.Unmarshal(jsonStart(b), &l) != nil {
		return false
	}
	if cost && l.Type == "cost-state" {
		ok := l.TotalCost != nil && !l.UnknownCost
		if ok == a.costOK && (!ok || *l.TotalCost == a.cost) {
			return false
		}
		a.costOK = ok
		if ok {
			a.cost = *l.TotalCost
		}
		return true
	}
	return a.take(l)
}

func (a *claudeAcc) take(l claudeLine) bool {
	if l.Type != "assistant" || l.Message == nil || l.Message.Usage == nil {
		return false
	}
	t := l.Message.Usage.tokens()
	model := l.Message.Model
	if t.Sum() == 0 || model == "<synthetic>" {
		return false
	}
	key := l.Message.ID + "\x00" + l.RequestID
	if l.Message.ID == "" && l.RequestID == "" {
		key = l.UUID
		if key == "" {
			a.n++
			key = "\x01" + strconv.Itoa(a.n)
		}
	}
	a.last = model
	m := msgUsage{model: model, t: t, side: l.Sidechain || (l.ParentToolUse != nil && *l.ParentToolUse != "")}
	if old, ok := a.msgs[key]; ok && old == m {
		return false
	}
	a.msgs[key] = m
	a.costOK = false // the CLI's figure no longer covers every message
	return true
}

// mainTotals are the tokens of the worker's own conversation by model,
// its subagents' left out.
func (a *claudeAcc) mainTotals() Totals {
	by := map[string]Tokens{}
	for _, m := range a.msgs {
		if !m.side {
			by[m.model] = by[m.model].add(m.t)
		}
	}
	return Totals{ByModel: by}
}

func (a *claudeAcc) totals() Totals {
	by := map[string]Tokens{}
	for _, m := range a.msgs {
		by[m.model] = by[m.model].add(m.t)
	}
	return Totals{ByModel: by, Last: a.last, CLICost: a.costOK, CLICostUSD: a.cost}
}

// codexAcc attributes each growth of the cumulative total_token_usage to
// the model of the turn it happened in.
type codexAcc struct {
	model string
	prev  Tokens
	by    map[string]Tokens
}

type codexUsage struct {
	Input     int64 `json:"input_tokens"`
	Cached    int64 `json:"cached_input_tokens"`
	CacheW    int64 `json:"cache_write_input_tokens"` // codex 0.171`
	Output    int64 `json:"output_tokens"`
	Reasoning int64 `json:"reasoning_output_tokens"`
}

type codexLine struct {
	Type    string `json:"type"`
	Payload struct {
		Type  string `json:"type"`
		Model string `json:"model"`
		ID    string `json:"id"`
		Cwd   string `json:"cwd"`
		Info  *struct {
			Total *codexUsage `json:"total_token_usage"`
		} `json:"info"`
	} `json:"payload"`
}

var (
	kwTokenCount  = []byte(`"token_count"`)
	kwTurnContext = []byte(`"turn_context"`)
)

func (a *codexAcc) line(b []byte) bool {
	if !bytes.Contains(b, kwTokenCount) && !bytes.Contains(b, kwTurnContext) {
		return false
	}
	var l codexLine
	if json.Unmarshal(jsonStart(b), &l) != nil {
		return false
	}
	if l.Type == "turn_context" {
		if l.Payload.Model != "" {
			a.model = l.Payload.Model
		}
		return false
	}
	if l.Type != "event_msg" || l.Payload.Type != "token_count" || l.Payload.Info == nil || l.Payload.Info.Total == nil {
		return false
	}
	u := l.Payload.Info.Total
	// OpenAI counts cached input (and, taken to be like it, cache
	// writes) inside input_tokens and reasoning inside output_tokens.
	cur := Tokens{Input: u.Input - u.Cached - u.CacheW, CacheRead: u.Cached, CacheWrite: u.CacheW, Output: u.Output}
	d := cur.sub(a.prev)
	if d == (Tokens{}) {
		return false
	}
	a.prev = cur
	a.by[a.model] = a.by[a.model].add(d)
	return true
}

func (a *codexAcc) totals() Totals {
	return Totals{ByModel: maps.Clone(a.by), Last: a.model}
}

// streamAcc reads stream-json events: claude's assistant events until its
// result event, whose totals are final; gemini's result stats.
type streamAcc struct {
	claude claudeAcc
	model  string  // the init event's
	final  *Totals // a result event's
	sessID string
}

type streamLine struct {
	claudeLine
	Subtype   string                 `json:"subtype"`
	Model     string                 `json:"model"`
	SessionID string                 `json:"session_id"`
	Usage     *claudeUsage           `json:"usage"`
	ModelUse  map[string]claudeModel `json:"modelUsage"`
	CostUSD   *float64               `json:"total_cost_usd"`
	Stats     *geminiStats           `json:"stats"`
}

// claudeModel is one entry of a claude result event's modelUsage.
type claudeModel struct {
	Input       int64 `json:"inputTokens"`
	Output      int64 `json:"outputTokens"`
	CacheRead   int64 `json:"cacheReadInputTokens"`
	CacheCreate int64 `json:"cacheCreationInputTokens"`
	CacheHour   int64 `json:"cacheCreationEphemeral1hInputTokens"`
	// CostBasis is how claude priced the model: "list", or "unknown" for
	// a model it has no price for (it then prices it at a default: a
	// guess, not shown).
	CostBasis string `json:"costBasis"`
}

// geminiStats is the stats of gemini's stream-json result event: the
// totals over its models and (gemini-cli 0.61) the same counts per model.
// input_tokens is the prompt, cached included; output_tokens leaves the
// thoughts out, which total_tokens counts (billed as output).
type geminiStats struct {
	geminiCounts
	Models map[string]geminiModelStats `json:"models"`
}

type geminiCounts struct {
	Total  int64 `json:"total_tokens"`
	Input  int64 `json:"input_tokens"`
	Output int64 `json:"output_tokens"`
	Cached int64 `json:"cached"`
}

// tokens counts the thoughts (total − input − output) as output.
func (s geminiCounts) tokens() Tokens {
	out := s.Output
	if extra := s.Total - s.Input - s.Output; extra > 0 {
		out += extra
	}
	return Tokens{Input: s.Input - s.Cached, CacheRead: s.Cached, Output: out}
}

// geminiModelStats is one model's entry: stream-json's flat counts, or
// the `tokens` object of --output-format json's stats.
type geminiModelStats struct {
	geminiCounts
	Tokens *struct {
		Prompt     int64 `json:"prompt"`
		Candidates int64 `json:"candidates"`
		Cached     int64 `json:"cached"`
		Thoughts   int64 `json:"thoughts"`
		Tool       int64 `json:"tool"`
	} `json:"tokens"`
}

func (m geminiModelStats) tokens() Tokens {
	if t := m.Tokens; t != nil {
		return Tokens{Input: t.Prompt - t.Cached + t.Tool, CacheRead: t.Cached, Output: t.Candidates + t.Thoughts}
	}
	return m.geminiCounts.tokens()
}

func (a *streamAcc) line(b []byte) bool {
	if !bytes.Contains(b, kwUsage) && !bytes.Contains(b, kwResult) && !bytes.Contains(b, kwInit) {
		return false
	}
	var l streamLine
	if json.Unmarshal(jsonStart(b), &l) != nil {
		return false
	}
	switch l.Type {
	case "system", "init":
		if l.Type == "init" || l.Subtype == "init" {
			if l.Model != "" {
				a.model = l.Model
			}
			if l.SessionID != "" {
				a.sessID = l.SessionID
			}
		}
		return false
	case "assistant":
		if a.final != nil {
			return false
		}
		return a.claude.take(l.claudeLine)
	case "result":
		t, ok := a.result(l)
		if !ok {
			return false
		}
		a.final = &t
		return true
	}
	return false
}

func (a *streamAcc) result(l streamLine) (Totals, bool) {
	last := a.claude.last
	if last == "" {
		last = a.model
	}
	by := map[string]Tokens{}
	switch {
	case len(l.ModelUse) > 0:
		for m, u := range l.ModelUse {
			by[m] = Tokens{Input: u.Input, CacheRead: u.CacheRead, CacheWrite: u.CacheCreate, CacheWrite1h: min(u.CacheHour, u.CacheCreate), Output: u.Output}
		}
	case l.Usage != nil:
		by[last] = l.Usage.tokens()
	case l.Stats != nil && len(l.Stats.Models) > 0:
		// The models that served the run: Price names the one with
		// most tokens.
		last = ""
		for m, s := range l.Stats.Models {
			by[m] = by[m].add(s.tokens())
		}
	case l.Stats != nil:
		by[last] = l.Stats.geminiCounts.tokens()
	default:
		return Totals{}, false
	}
	t := Totals{ByModel: by, Last: last}
	if l.CostUSD != nil && !slices.ContainsFunc(slices.Collect(maps.Values(l.ModelUse)), func(m claudeModel) bool { return m.CostBasis == "unknown" }) {
		t.CLICost, t.CLICostUSD = true, *l.CostUSD
	}
	return t, true
}

func (a *streamAcc) totals() Totals {
	if a.final != nil {
		t := *a.final
		t.ByModel = maps.Clone(t.ByModel)
		return t
	}
	t := a.claude.totals()
	if t.Last == "" {
		t.Last = a.model
	}
	return t
}

// kimiAcc sums kimi's StatusUpdate token_usage, one per message id.
type kimiAcc struct {
	msgs map[string]Tokens
	n    int
}

type kimiLine struct {
	Message struct {
		Type    string `json:"type"`
		Payload struct {
			MessageID string `json:"message_id"`
			Usage     *struct {
				Other       int64 `json:"input_other"`
				Output      int64 `json:"output"`
				CacheRead   int64 `json:"input_cache_read"`
				CacheCreate int64 `json:"input_cache_creation"`
			} `json:"token_usage"`
		} `json:"payload"`
	} `json:"message"`
}

var kwTokenUsage = []byte(`"token_usage"`)

func (a *kimiAcc) line(b []byte) bool {
	if !bytes.Contains(b, kwTokenUsage) {
		return false
	}
	var l kimiLine
	if json.Unmarshal(jsonStart(b), &l) != nil || l.Message.Type != "StatusUpdate" || l.Message.Payload.Usage == nil {
		return false
	}
	u := l.Message.Payload.Usage
	t := Tokens{Input: u.Other, CacheRead: u.CacheRead, CacheWrite: u.CacheCreate, Output: u.Output}
	if t.Sum() == 0 {
		return false
	}
	key := l.Message.Payload.MessageID
	if key == "" {
		a.n++
		key = "\x01" + strconv.Itoa(a.n)
	}
	if a.msgs[key] == t {
		return false
	}
	a.msgs[key] = t
	return true
}

func (a *kimiAcc) totals() Totals {
	var s Tokens
	for _, t := range a.msgs {
		s = s.add(t)
	}
	return Totals{ByModel: map[string]Tokens{"": s}}
}
