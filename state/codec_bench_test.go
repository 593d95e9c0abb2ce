package state

import (
	"fmt"
	"strings"
	"testing"
)

// benchTeamState is a team-state with n dispatches as a busy run has them:
// every field set, every tenth dispatch carrying a member another tool
// wrote, and foreign members at the top level.
func benchTeamState(n int) []byte {
	var b strings.Builder
	b.WriteString("{\n  \"teamName\": \"bench\",\n  \"lead\": {\"sessionId\": \"5f0c2d1e\"},\n")
	b.WriteString("  \"teamCreate\": {\"attempted\": false, \"status\": \"implicit\"},\n")
	b.WriteString("  \"workers\": [\n    {\"role\": \"Codex worker\", \"workerId\": \"codex\", \"provider\": \"codex\", \"model\": \"gpt-6.1-sol\"}\n  ],\n")
	b.WriteString("  \"workerDispatches\": [")
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		foreign := ""
		if i%10 == 0 {
			foreign = `, "x-audit": {"by": "okstra", "n": [1, 2]}`
		}
		fmt.Fprintf(&b, `
    {"dispatchId": "dispatch-%04d", "dispatchKind": "initial", "invocationRef": "invocation-%04d", "role": "Codex worker", "provider": "codex", "model": "gpt-6.1-sol", "executionLabel": "Codex analyser · gpt-6.1-sol", "promptPath": ".okstra/tasks/dev-1/runs/fa/prompts/codex-%04d.md", "resultPath": ".okstra/tasks/dev-1/runs/fa/worker-results/codex-%04d.md", "statusPath": ".okstra/tasks/dev-1/runs/fa/prompts/codex-%04d.md.status.json", "paneId": "pane-%d", "attempt": 1, "status": "in-progress", "reason": "", "pid": %d, "idleTimeoutSeconds": 1800, "idleTimeoutSource": "catalog", "dispatchedAt": "2026-11-29T10:02:10Z"%s}`,
			i, i, i, i, i, i, 1000+i, foreign)
	}
	b.WriteString("\n  ],\n  \"x-end\": \"kept\"\n}\n")
	return []byte(b.String())
}

const benchDispatches = 3200

// BenchmarkTeamStateDecode decodes a team-state no writer of this process
// has seen (a read by another process, or after another tool wrote).
func BenchmarkTeamStateDecode(b *testing.B) {
	data := benchTeamState(benchDispatches)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := decodeTeamState(data, "team-state"); err != nil {
			b.Fatal(err)
		}
	}
}

// benchUpdate is one settle or one append, as UpdateTeamState does it
// without the file: decode (cold) or take the last write (warm), change,
// check, encode.
func benchUpdate(b *testing.B, warm bool, change func(ts *TeamState, i int)) {
	data := benchTeamState(benchDispatches)
	ts, doc, err := decodeTeamState(data, "team-state")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	i := 0
	for b.Loop() {
		if !warm {
			if ts, doc, err = decodeTeamState(data, "team-state"); err != nil {
				b.Fatal(err)
			}
		}
		change(ts, i)
		i++
		ids, runs, err := validateUpdate(ts, doc, "team-state")
		if err != nil {
			b.Fatal(err)
		}
		out, ndoc, err := encodeTeamState(ts, doc, ids, runs)
		if err != nil {
			b.Fatal(err)
		}
		if warm {
			doc = ndoc
		}
		_ = out
	}
}

func settleOne(ts *TeamState, i int) {
	d := &ts.WorkerDispatches[(i*7919)%len(ts.WorkerDispatches)]
	d.Status = Status(fmt.Sprintf("completed-%d", i))
	d.SettledAt = "2026-11-29T10:14:53Z"
}

func appendOne(ts *TeamState, i int) {
	ts.WorkerDispatches = append(ts.WorkerDispatches, Dispatch{DispatchID: fmt.Sprintf("extra-%d", i), Status: StatusInProgress, Role: "Codex worker"})
}

// BenchmarkTeamStateSettle changes one dispatch of 3,200.
func BenchmarkTeamStateSettle(b *testing.B) {
	b.Run("cold", func(b *testing.B) { benchUpdate(b, false, settleOne) })
	b.Run("warm", func(b *testing.B) { benchUpdate(b, true, settleOne) })
}

// BenchmarkTeamStateAppend adds one dispatch to 3,200.
func BenchmarkTeamStateAppend(b *testing.B) {
	b.Run("cold", func(b *testing.B) { benchUpdate(b, false, appendOne) })
}
