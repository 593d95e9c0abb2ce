package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/lifecycle"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/state/approval"
)

// Gate queues a question for the human and waits for the answer; when ctx
// ends first, the gate is withdrawn.
func (c *Engine) Gate(ctx context.Context, p control.GateParams) (control.GateResult, error) {
	g := p.Gate
	if g.ID == "" {
		return control.GateResult{}, &control.RPCError{Code: control.CodeBadRequest, Message: "a gate needs an id"}
	}
	if g.Kind != state.GateReportAuthoring && len(g.Options) < 2 {
		return control.GateResult{}, &control.RPCError{Code: control.CodeBadRequest, Message: fmt.Sprintf("gate %s offers %d options; a decision needs at least two", g.ID, len(g.Options))}
	}
	if g.OpenedAt.IsZero() {
		g.OpenedAt = time.Now()
	}
	pg := &pendingGate{gate: g, answer: make(chan view.GateAnswer, 1), report: p.Report}
	c.mu.Lock()
	for _, q := range c.gates {
		if q.gate.ID == g.ID {
			c.mu.Unlock()
			return control.GateResult{}, &control.RPCError{Code: control.CodeBadRequest, Message: fmt.Sprintf("gate %s is already waiting for an answer", g.ID)}
		}
	}
	c.gates = append(c.gates, pg)
	c.mu.Unlock()
	c.log.Info("gate opened", "gate", g.ID, "kind", string(g.Kind), "options", len(g.Options))
	c.broker.publish(view.Notice{Text: "gate " + g.ID + " is waiting for your answer"})
	c.kick()
	select {
	case a := <-pg.answer:
		c.log.Info("gate answered", "gate", g.ID, "option", a.Option, "status", a.Status)
		return control.GateResult{Answer: a, Sidecar: pg.sidecar}, nil
	case <-ctx.Done():
		c.dropGate(g.ID)
		c.log.Info("gate withdrawn: its asker went away", "gate", g.ID)
		return control.GateResult{}, &control.RPCError{Code: control.CodeCancelled, Message: "the gate was withdrawn"}
	case <-c.done:
		c.dropGate(g.ID)
		return control.GateResult{}, &control.RPCError{Code: control.CodeCancelled, Message: "the cockpit closed before the gate was answered"}
	}
}

func (c *Engine) dropGate(id string) *pendingGate {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, q := range c.gates {
		if q.gate.ID == id {
			c.gates = append(c.gates[:i], c.gates[i+1:]...)
			c.kick()
			return q
		}
	}
	return nil
}

// AnswerGate delivers the human's answer to a waiting gate. A gate asked
// with a report gets the answer written into its user-response sidecar
// first, durably: only then is it handed over and nil returned (the screen
// then says "answered"); a failed write returns its error and keeps the
// gate waiting, so the human can answer again.
func (c *Engine) AnswerGate(a view.GateAnswer) error {
	c.mu.Lock()
	var pg *pendingGate
	for _, q := range c.gates {
		if q.gate.ID == a.GateID {
			pg = q
		}
	}
	c.mu.Unlock()
	if pg == nil {
		return fmt.Errorf("no gate %q is waiting", a.GateID)
	}
	if err := checkAnswer(pg.gate, a); err != nil {
		return err
	}
	sidecar := ""
	if pg.report != "" {
		sc, err := lifecycle.WriteGateAnswer(c.run, pg.gate, a, pg.report)
		if err != nil {
			c.log.Info("gate answer not written", "gate", a.GateID, "err", err)
			return fmt.Errorf("the answer could not be written: %w", err)
		}
		sidecar = sc
	}
	if c.dropGate(a.GateID) == nil {
		return fmt.Errorf("gate %s was withdrawn (its asker went away) before the answer arrived", a.GateID)
	}
	pg.sidecar = sidecar // only the answer that dropped the gate gets here
	pg.answer <- a
	return nil
}

func checkAnswer(g view.Gate, a view.GateAnswer) error {
	if g.Kind == state.GateReportAuthoring {
		if !slices.Contains(approval.ReportAuthoringStatuses, a.Status) {
			return fmt.Errorf("choose %s or %s", approval.DecisionApproved, approval.DecisionDenied)
		}
		if strings.TrimSpace(a.Note) == "" {
			return fmt.Errorf("REPORT AUTHORING requires a Reason")
		}
		return nil
	}
	if a.Option < 0 || a.Option >= len(g.Options) {
		return fmt.Errorf("choose one of the %d options", len(g.Options))
	}
	return nil
}
