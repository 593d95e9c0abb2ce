package demo

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// Story is the headless demo's narration as a plain state machine: fed
// one event at a time (Next), it returns the lines to print and the
// actions its driver takes (start the engine, run a lead step, answer the
// gate, read the run, finish). It does no I/O, so it is tested by feeding
// it events; Headless is its driver.
//
// The story: the intro; on a pane run, the engine starts and its events are
// narrated while the lead dispatches, awaits, reclaims (dry run first),
// opens a decision and asks the gate, which the story answers with the
// recommended option as a person would in the screen; on a cli-wrapper run,
// worker-dispatch runs the batch. Then the dispatches, results and ledger.
type Story struct {
	backend  string
	steps    [][]string
	next     int      // index in steps of the next step to run
	running  []string // the step running, nil between steps
	jsonOut  strings.Builder
	wire     control.Wire
	answered bool
	quiet    bool                  // the steps are over: engine events are no longer told
	usage    map[string]view.Usage // the last view's, for the summary's costs
}

// Events a Story is fed.
type (
	// Began starts the story on the demo run at Root.
	Began struct{ Root, Backend string }
	// EngineStarted says the engine serves the run at Socket.
	EngineStarted struct{ Socket string }
	// StepOutput is one line the running step printed.
	StepOutput struct{ Line string }
	// StepDone says the running step exited; Err says how it failed.
	StepDone struct{ Err error }
	// EngineEvent is one event of the engine (engine.Subscribe).
	EngineEvent struct{ Event view.Event }
	// Quiet says the last engine events had time to come through.
	Quiet struct{}
	// Summary is what the run's files say at the end: the dispatches, the
	// first line of each result that exists (by result path), and the
	// ledger's size.
	Summary struct {
		Dispatches  []state.Dispatch
		Results     map[string]string
		Checkpoints int
		Ledger      string
	}
)

// Actions a Story asks its driver to take.
type (
	// StartEngine asks for the run's engine; the driver feeds
	// EngineStarted, then the engine's events as EngineEvent.
	StartEngine struct{}
	// RunStep asks to run `cockpit Args` as the lead; the driver feeds
	// its output lines as StepOutput, then StepDone.
	RunStep struct{ Args []string }
	// AnswerGate asks to answer a gate as the human would.
	AnswerGate struct{ Answer view.GateAnswer }
	// WaitQuiet asks for Quiet once the last engine events had time to
	// come through.
	WaitQuiet struct{}
	// Summarize asks to read the run's files and feed Summary.
	Summarize struct{}
	// Finish ends the story, with the error that ended it.
	Finish struct{ Err error }
)

// paneSteps are the lead's steps on a pane run; the gate is asked last.
func paneSteps() [][]string {
	return [][]string{
		{"team", "dispatch", "--jobs-file", JobsInitial},
		{"team", "await"},
		{"team", "reclaim", "--dry-run"},
		{"team", "reclaim"},
		GateArgs(),
		{"gate", "ask", "--ledger", Approvals, "--clarification-id", GateID},
	}
}

// NewStory starts a story.
func NewStory() *Story { return &Story{} }

// Next feeds one event and returns the lines to print and the actions to
// take, in order.
func (s *Story) Next(ev any) (lines []string, acts []any) {
	switch e := ev.(type) {
	case Began:
		s.backend = e.Backend
		lines = append(lines, fmt.Sprintf("cockpit demo: a throwaway okstra run with %d simulated workers (sim provider, no LLM CLI) in %s", len(Workers), e.Root))
		for _, w := range Workers {
			lines = append(lines, fmt.Sprintf("  %-28s model %s", w.Label, w.Model))
		}
		if e.Backend == state.BackendCLIWrapper {
			lines = append(lines, "the run's terminalBackend is cli-wrapper: the batch runs as child processes, no panes")
			s.steps = [][]string{{"worker-dispatch", "--jobs-file", JobsInitial}}
			return s.runNext(lines)
		}
		return lines, []any{StartEngine{}}
	case EngineStarted:
		lines = append(lines, fmt.Sprintf("the cockpit serves the run at %s; its events:", e.Socket))
		s.steps = paneSteps()
		return s.runNext(lines)
	case StepOutput:
		if s.running != nil && s.running[0] == "worker-dispatch" {
			// Its JSON is for machines; the story shows its PROGRESS lines.
			s.jsonOut.WriteString(e.Line)
			return nil, nil
		}
		return []string{"    " + e.Line}, nil
	case StepDone:
		if s.jsonOut.Len() > 0 {
			var res struct {
				ProgressLines []string `json:"progressLines"`
			}
			if json.Unmarshal([]byte(s.jsonOut.String()), &res) == nil {
				for _, l := range res.ProgressLines {
					lines = append(lines, "    "+l)
				}
			}
			s.jsonOut.Reset()
		}
		s.running = nil
		if e.Err != nil {
			return lines, []any{Finish(e)} // the step's error ends the story
		}
		if s.next < len(s.steps) {
			return s.runNext(lines)
		}
		s.quiet = true
		if s.backend == state.BackendCLIWrapper {
			return lines, []any{Summarize{}}
		}
		// Let the last pane-closed events through before the story ends.
		return lines, []any{WaitQuiet{}}
	case EngineEvent:
		if vu, ok := e.Event.(view.ViewUpdated); ok {
			s.usage = vu.View.Usage
		}
		if s.quiet {
			return nil, nil
		}
		for _, m := range s.wire.Next(e.Event) {
			if m.Event == control.EventUsage {
				continue // one per model call: the summary gives the costs
			}
			lines = append(lines, "  ▸ "+control.EventLine(m))
		}
		// A gate: the lead asks, and — no human being here — the story
		// answers with the recommended option, as a person would in the
		// screen's dialog.
		if vu, ok := e.Event.(view.ViewUpdated); ok && !s.answered && len(vu.View.Gates) > 0 {
			g := vu.View.Gates[0]
			if len(g.Options) == 0 {
				return lines, nil
			}
			s.answered = true
			lines = append(lines, fmt.Sprintf("the human answers %s in the screen: option 1, %q", g.ID, g.Options[0].Answer))
			acts = append(acts, AnswerGate{Answer: view.GateAnswer{GateID: g.ID, Option: 0, Note: "the demo answered for you"}})
		}
		return lines, acts
	case Quiet:
		return nil, []any{Summarize{}}
	case Summary:
		lines = append(lines, "sidecars and results:")
		for _, d := range e.Dispatches {
			exit := "-"
			if d.ExitCode != nil {
				exit = fmt.Sprint(*d.ExitCode)
			}
			line := fmt.Sprintf("  %s %-28s %-9s exit %s", d.DispatchID, d.ExecutionLabel, d.Status, exit)
			if u, ok := s.usage[d.DispatchID]; ok {
				line += "  " + costText(u.CostUSD, u.Priced)
			}
			if d.Reason != "" {
				line += "  (" + d.Reason + ")"
			}
			lines = append(lines, line)
			if first, ok := e.Results[d.ResultPath]; ok {
				lines = append(lines, fmt.Sprintf("      result %s: %s", d.ResultPath, first))
			}
		}
		lines = append(lines, fmt.Sprintf("ledger: %d checkpoints in %s", e.Checkpoints, e.Ledger))
		if len(s.usage) > 0 {
			total, unpriced := view.RunView{Usage: s.usage}.TotalCost()
			lines = append(lines, fmt.Sprintf("cost: %s for %d workers (the sim's simulated tokens; docs/COST.md)", costText(total, unpriced == 0), len(s.usage)))
		}
		return lines, []any{Finish{}}
	}
	return nil, nil
}

// costText is a cost as the screen shows it: "$0.42", "$0.42?" when some
// tokens have no known price.
func costText(usd float64, priced bool) string {
	s := fmt.Sprintf("$%.2f", usd)
	if !priced {
		s += "?"
	}
	return s
}

// runNext starts the next step, after lines.
func (s *Story) runNext(lines []string) ([]string, []any) {
	step := s.steps[s.next]
	s.next++
	s.running = step
	return append(lines, "$ cockpit "+strings.Join(step, " ")), []any{RunStep{Args: step}}
}
