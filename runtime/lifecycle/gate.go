package lifecycle

import (
	"fmt"

	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/state/approval"
)

// GateAnswerRequest is the user-response write of the human's answer a to
// gate g, for the report (absolute): a report-authoring grant, or one
// answer of a decision. Both the engine (before the screen says
// "answered") and `gate ask` (answered on a terminal, or an engine that
// does not write) write it.
func GateAnswerRequest(run *state.Run, g view.Gate, a view.GateAnswer, report string) (approval.WriteRequest, error) {
	wr := approval.WriteRequest{Report: report, ReportPending: true, ProjectRoot: run.Root.Dir(), TaskKey: run.Manifest.TaskKey}
	if g.Kind == state.GateReportAuthoring {
		wr.ReportAuthoring = &approval.ReportAuthoring{Status: a.Status, Reason: a.Note}
		return wr, nil
	}
	if a.Option < 0 || a.Option >= len(g.Options) {
		return wr, fmt.Errorf("gate %s: the answer names option %d of %d", g.ID, a.Option, len(g.Options))
	}
	opt := g.Options[a.Option]
	wr.Answers = []approval.Answer{{ClarificationID: g.ClarificationID, Answer: opt.Answer, Disposition: opt.Disposition, Note: a.Note}}
	return wr, nil
}

// WriteGateAnswer writes the answer durably into the report's
// user-response sidecar (atomic, fsynced) and returns the sidecar's path.
func WriteGateAnswer(run *state.Run, g view.Gate, a view.GateAnswer, report string) (string, error) {
	wr, err := GateAnswerRequest(run, g, a, report)
	if err != nil {
		return "", err
	}
	return approval.WriteSidecar(wr)
}
