package usage

import (
	"os"

	"github.com/okstra/cockpit/workers"
)

// The wrapper (package workers, which this package imports) reads the
// served model through this package's readers: it registers ServedModel.
func init() { workers.RegisterServedModelReader(ServedModel) }

// sources name each format's evidence in a served-model attestation.
var sources = map[Format]string{
	StreamJSON:    workers.SourceStreamJSON,
	ClaudeSession: workers.SourceSessionLog,
	CodexRollout:  workers.SourceRollout,
	GeminiChat:    workers.SourceChatRecording,
	KimiWire:      workers.SourceWireLog,
}

// servedID is the dispatch id ServedModel's one-worker tracker uses.
const servedID = "served"

// ServedModel reads, once a worker's CLI has exited, the model its
// evidence names as having served it: the evidence a Tracker follows for
// the worker (found, tied to it and parsed the same way, with the CLI
// homes of the environment), and of its models the one with most tokens
// (claude's stream-json: of its assistant messages, which carry the model
// the API answered with; codex: the model its log says the API rerouted
// its requests to, else its rollout's). Model is "" when the evidence names none (grok;
// kimi's wire names no model; no evidence file).
func ServedModel(cat *workers.Catalog, ev workers.ServedEvidence) workers.ServedObservation {
	return servedModel(cat, HomesFromEnv(os.Getenv), ev)
}

func servedModel(cat *workers.Catalog, homes Homes, ev workers.ServedEvidence) workers.ServedObservation {
	t := NewTracker(cat, homes)
	t.Add(Dispatch{ID: servedID, Provider: ev.Provider, Model: ev.Model, Prompt: ev.Prompt, Log: ev.Log,
		Cwd: ev.Cwd, SessionID: ev.SessionID, Started: ev.Started})
	t.Settled(servedID)
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.ds[servedID]
	if w != nil && w.format == CodexRollout {
		// The rollout names the model codex asked for; its log says when
		// the API answered with another.
		if m := CodexRerouteFromLog(ev.Log); m != "" {
			return workers.ServedObservation{Model: m, Source: workers.SourceExecLog}
		}
	}
	if w == nil || w.f == nil {
		return workers.ServedObservation{}
	}
	model := servedOf(w.f.acc)
	if model == "" {
		return workers.ServedObservation{}
	}
	return workers.ServedObservation{Model: model, Source: sources[w.format]}
}

// servedOf is the model acc's lines name as having served: the one with
// most tokens, the last one named on a tie. claude's are read from the
// assistant messages of the worker's own conversation: its subagents may
// run on another model (claude-code's Explore agent on haiku) and spend
// more, and its result event's modelUsage is claude-code's own accounting
// of both.
func servedOf(acc accumulator) string {
	t := acc.totals()
	switch a := acc.(type) {
	case *streamAcc:
		if c := a.claude.mainTotals(); c.All().Sum() > 0 {
			t = c
		}
	case *claudeAcc:
		t = a.mainTotals()
	}
	best, most := "", int64(0)
	for m, tok := range t.ByModel {
		n := tok.Sum()
		if m == "" || n == 0 {
			continue
		}
		if n > most || (n == most && (m == t.Last || (best != t.Last && m < best))) {
			best, most = m, n
		}
	}
	return best
}
