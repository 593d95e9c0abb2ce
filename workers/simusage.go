package workers

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
)

// simTokens appends the sim's simulated token use, one claude-shaped
// assistant message per step of its work, to <prompt>.usage.jsonl (the
// prompt the wrapper names in COCKPIT_PROMPT_PATH; nothing without it).
// The shape is claude's session transcript, so the cockpit reads it as it
// reads claude's, and cockpit demo shows a cost per pane; the file sits
// beside the prompt so a demo writes nothing under ~/.claude.
type simTokens struct {
	path  string
	model string
	step  int
	scale int64 // 10–19 tenths: workers of different models spend differently
}

func newSimTokens(model string) *simTokens {
	p := os.Getenv(EnvPromptPath)
	if p == "" {
		return nil
	}
	// A new attempt of the prompt starts the file again, as the wrapper
	// starts the log again.
	_ = os.Remove(p + ".usage.jsonl")
	h := fnv.New32a()
	h.Write([]byte(model))
	return &simTokens{path: p + ".usage.jsonl", model: model, scale: 10 + int64(h.Sum32()%10)}
}

// spend records one more model call: a growing cached context, a cache
// write and some output, as an agent's turns look.
func (u *simTokens) spend() {
	if u == nil {
		return
	}
	u.step++
	n := int64(u.step)
	line := map[string]any{
		"type":      "assistant",
		"requestId": fmt.Sprintf("req_sim_%d", n),
		"message": map[string]any{
			"id": fmt.Sprintf("msg_sim_%d", n), "type": "message", "role": "assistant", "model": u.model,
			"usage": map[string]int64{
				"input_tokens": 40 + 7*n, "cache_creation_input_tokens": 1200 * u.scale,
				"cache_read_input_tokens": 40000 * (n - 1), "output_tokens": (90 + 30*n) * u.scale,
			},
		},
	}
	data, err := json.Marshal(line)
	if err != nil {
		return
	}
	f, err := os.OpenFile(u.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(data, '\n'))
}
