package team

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/okstra/cockpit/runtime/lifecycle"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/state/approval"
)

// SourceGateAsk is the ledger source of the checkpoints gate ask records.
const SourceGateAsk = "gate ask"

// GateFromRow turns an approval-decision row into the gate the screen
// shows: the statement, then the options with the recommended one first.
func GateFromRow(r approval.Row) view.Gate {
	g := view.Gate{ID: r.ClarificationID, Kind: state.GateDecision, ClarificationID: r.ClarificationID, Statement: r.Statement, ExpectedForm: r.ExpectedForm}
	var rec, alt []view.GateOption
	for _, o := range r.Options {
		opt := view.GateOption{Role: o.Role, Answer: o.Answer, Rationale: o.Rationale, Reach: o.Reach, ScopeEffects: o.ScopeEffects, AddedWork: o.AddedWork, DirectionChange: o.DirectionChange, Disposition: o.Disposition}
		if o.Role == "recommended" {
			rec = append(rec, opt)
		} else {
			alt = append(alt, opt)
		}
	}
	g.Options = append(rec, alt...)
	return g
}

// GateRequest is one `gate ask` or `gate report-authoring`.
type GateRequest struct {
	Run    *state.Run
	Gate   view.Gate
	Report string // absolute path of the report the answer belongs to
	// Fallback, when set, asks on this terminal when no cockpit listens
	// (decision gates only).
	Fallback *TerminalPrompt
	// Open, when set, is a row not yet in the ledger: the seed's order is
	// to ask first and open the row "after the user confirmed it", so it
	// is opened once the human answered, with the answer as its
	// userConfirmation.
	Open *GateOpen
}

// GateOpen is the row a gate opens after the answer.
type GateOpen struct {
	Ledger     string // absolute
	TaskKey    string
	Row        approval.Row
	Supersedes string
}

// AnswerNotSaved is AskGate's error when the human answered but the
// user-response sidecar could not be written: the answer was kept in
// Fallback (the run's gate-answers.jsonl), or nowhere when that failed
// too; the outcome is returned beside it, so the caller still prints it.
type AnswerNotSaved struct {
	Sidecar  string
	Err      error
	Fallback string // "" when the answer is kept nowhere but the output
	FallErr  error
}

func (e *AnswerNotSaved) Error() string {
	if e.Fallback != "" {
		return fmt.Sprintf("the answer could not be written to the user-response sidecar %s (%v); it is kept in %s and printed above — write it with `cockpit user-response write` once the sidecar can be written", e.Sidecar, e.Err, e.Fallback)
	}
	return fmt.Sprintf("the answer could not be written to the user-response sidecar %s (%v), nor kept in the run's gate-answers file (%v); it is printed above — record it by hand", e.Sidecar, e.Err, e.FallErr)
}

func (e *AnswerNotSaved) Unwrap() error { return e.Err }

// TerminalPrompt is the headless fallback's terminal.
type TerminalPrompt struct {
	In  io.Reader
	Out io.Writer
}

// GateOutcome is what a gate command prints as JSON.
type GateOutcome struct {
	GateID          string         `json:"gateId"`
	Kind            state.GateKind `json:"kind"`
	ClarificationID string         `json:"clarificationId,omitempty"`
	Answer          string         `json:"answer,omitempty"`
	Disposition     string         `json:"disposition,omitempty"`
	Status          string         `json:"status,omitempty"`
	Note            string         `json:"note,omitempty"`
	Sidecar         string         `json:"sidecar"`
	AnsweredIn      string         `json:"answeredIn"` // "cockpit" or "terminal"
	// Opened is the row this gate opened in the ledger after the answer
	// (GateRequest.Open); KeptIn where the answer was kept when the
	// sidecar could not be written (AnswerNotSaved).
	Opened        string   `json:"opened,omitempty"`
	KeptIn        string   `json:"keptIn,omitempty"`
	ProgressLines []string `json:"progressLines"`
}

// DefaultReport is where a run's final report lives:
// <runDir>/reports/final-report-<taskType>-<runSeq>.md.
func DefaultReport(run *state.Run) string {
	m := run.Manifest
	return filepath.Join(run.RunDir, "reports", fmt.Sprintf("final-report-%s-%s.md", m.TaskType, m.RunSeq))
}

// AskGate runs a gate: it first reclaims the finished panes as a gate
// cleanup (phase-gate-cleanup, recorded nowhere), records user-confirm for a
// decision gate, then asks the human in the cockpit and blocks until the
// answer comes, and writes it into the report's user-response sidecar. The
// lead never answers: the cockpit takes answers only from its screen.
// progress receives each PROGRESS line as soon as it is known.
func AskGate(ctx context.Context, req GateRequest, progress func(string)) (*GateOutcome, error) {
	run, g := req.Run, req.Gate
	res := &GateOutcome{GateID: g.ID, Kind: g.Kind, ClarificationID: g.ClarificationID}
	emit := func(line string) {
		res.ProgressLines = append(res.ProgressLines, line)
		if progress != nil {
			progress(line)
		}
	}
	// Before anything, the answer must have a place to go: a sidecar that
	// cannot be written is refused now, not after the human answered.
	if err := approval.CheckSidecarWritable(req.Report); err != nil {
		return nil, fmt.Errorf("the answer would have nowhere to go: %w; fix it and ask again", err)
	}
	// Reach the cockpit first: without one (and without a terminal to ask
	// on) nothing may be cleaned up or recorded.
	cl, err := control.DialRunAs(ctx, run, control.RunDial{Client: "gate ask"})
	var nc *control.NoCockpitError
	terminal := false
	switch {
	case errors.As(err, &nc) && req.Fallback != nil && g.Kind == state.GateDecision:
		terminal = true
	case errors.As(err, &nc):
		return nil, fmt.Errorf("no cockpit is serving this run to show the question (no live socket at %s); start one with `cockpit open --project-root %s --run-manifest %s --lead -- <lead command>` and ask again", nc.Socket, run.Root.Dir(), run.Manifest.Display)
	case err != nil:
		return nil, err
	default:
		defer cl.Close()
	}
	// 1. Finished panes go before the human is shown the question.
	cleaned := 0
	if run.Manifest.IsPaneBackend() {
		var host lifecycle.PaneHost = cl
		if cl == nil { // no cockpit: the terminal asks
			host = &lifecycle.RunSocket{Run: run, Client: "gate ask"}
		}
		r, err := lifecycle.ReclaimOn(ctx, host, run, lifecycle.ReclaimOptions{Gate: true})
		if err != nil {
			return nil, err
		}
		cleaned = len(r.Panes)
	}
	ev, err := state.NewEvent(SourceGateAsk, "phase-gate-cleanup", "", [][2]string{{"panes", strconv.Itoa(cleaned)}}, "")
	if err != nil {
		return nil, err
	}
	emit(ev.ProgressLine)
	// 2. The user-confirm checkpoint names the row the answer will match:
	// once per row, however often it is asked (a gate asked again after an
	// interruption prints it again but records it once).
	if g.Kind == state.GateDecision {
		rec := lifecycle.NewRecorder(run, SourceGateAsk, !userConfirmed(run, g.ClarificationID))
		rec.PrintOnly()
		if err := rec.Record("user-confirm", "", nil, g.ClarificationID+" "+oneLine(g.Statement)); err != nil {
			return nil, err
		}
		emit(rec.Lines()[0])
	}

	// 3. Ask. In the cockpit the engine writes the answer into the
	// sidecar before its screen says "answered" (a failed write keeps the
	// gate open there, with the reason, for the human to answer again).
	var ans view.GateAnswer
	written := ""
	if terminal {
		if ans, err = askOnTerminal(g, req.Fallback); err != nil {
			return nil, err
		}
		res.AnsweredIn = "terminal"
	} else {
		gr, err := control.Gate.Call(ctx, cl, control.GateParams{Gate: g, Report: req.Report})
		if err != nil {
			return nil, fmt.Errorf("gate %s: %w", g.ID, err)
		}
		ans, written = gr.Answer, gr.Sidecar
		res.AnsweredIn = "cockpit"
	}
	// 4. Record the answer where okstra reads it (unless the engine did).
	wr, err := lifecycle.GateAnswerRequest(run, g, ans, req.Report)
	if err != nil {
		return nil, err
	}
	if g.Kind == state.GateReportAuthoring {
		res.Status, res.Note = ans.Status, ans.Note
	} else {
		a := wr.Answers[0]
		res.Answer, res.Disposition, res.Note = a.Answer, a.Disposition, a.Note
	}
	res.Sidecar = written
	if written == "" {
		res.Sidecar, err = approval.WriteSidecar(wr)
	}
	if err != nil {
		nse := &AnswerNotSaved{Sidecar: run.Root.Rel(approval.SidecarPath(req.Report)), Err: err}
		if nse.Fallback, nse.FallErr = keepAnswer(run, res); nse.Fallback != "" {
			res.KeptIn = run.Root.Rel(nse.Fallback)
			nse.Fallback = res.KeptIn
		}
		res.Sidecar = ""
		return res, nse
	}
	res.Sidecar = run.Root.Rel(res.Sidecar)
	// 5. A row asked before it was opened is opened now, with the answer as
	// the user's confirmation.
	if o := req.Open; o != nil {
		row := o.Row
		row.UserConfirmation = res.Answer
		if res.Note != "" {
			row.UserConfirmation += " — " + res.Note
		}
		stored, err := approval.OpenInTask(o.Ledger, o.TaskKey, row, o.Supersedes)
		if err != nil {
			return res, fmt.Errorf("the answer is in %s, but opening %s in the ledger failed: %w", res.Sidecar, row.ClarificationID, err)
		}
		res.Opened = stored.ClarificationID
	}
	return res, nil
}

// userConfirmed reports whether the ledger holds a user-confirm checkpoint
// for id already.
func userConfirmed(run *state.Run, id string) bool {
	events, err := state.ReadEvents(run.LeadEventsPath, run.Manifest.LeadEventsPath)
	if err != nil {
		return false
	}
	for _, e := range events {
		phase, detail := e.Phase, e.Detail
		if phase == "" {
			phase, _, _ = lifecycle.ParseProgressLine(e.ProgressLine)
			detail = strings.TrimPrefix(e.ProgressLine, "PROGRESS: user-confirm ")
		}
		if phase == "user-confirm" && (detail == id || strings.HasPrefix(detail, id+" ")) {
			return true
		}
	}
	return false
}

// gateAnswers is where an answer is kept when its sidecar cannot be
// written: one JSON line per answer, in the run's state directory.
func gateAnswers(run *state.Run) string { return filepath.Join(run.StateDir(), "gate-answers.jsonl") }

// keepAnswer appends the outcome to the run's gate-answers file and fsyncs
// it; the file's path, or the error.
func keepAnswer(run *state.Run, res *GateOutcome) (string, error) {
	line, err := json.Marshal(struct {
		At string `json:"at"`
		*GateOutcome
	}{state.Timestamp(state.Now()), res})
	if err != nil {
		return "", err
	}
	p := gateAnswers(run)
	if err := state.AppendLine(p, line); err != nil {
		return "", err
	}
	return p, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// askOnTerminal is the headless fallback: the question and every option in
// full on the terminal, the choice read as a number.
func askOnTerminal(g view.Gate, t *TerminalPrompt) (view.GateAnswer, error) {
	w := t.Out
	fmt.Fprintf(w, "\n%s  %s\n", g.ClarificationID, g.Statement)
	if g.ExpectedForm != "" {
		fmt.Fprintf(w, "   expected: %s\n", g.ExpectedForm)
	}
	for i, o := range g.Options {
		mark := ""
		if o.Role == "recommended" {
			mark = "  (recommended)"
		}
		fmt.Fprintf(w, "\n  %d. %s%s\n", i+1, o.Answer, mark)
		fmt.Fprintf(w, "     rationale:        %s\n", o.Rationale)
		fmt.Fprintf(w, "     reach:            %s\n", o.Reach)
		fmt.Fprintf(w, "     added work:       %s\n", o.AddedWork)
		fmt.Fprintf(w, "     direction change: %s\n", o.DirectionChange)
	}
	r := bufio.NewReader(t.In)
	for {
		fmt.Fprintf(w, "\nChoose 1-%d: ", len(g.Options))
		line, err := r.ReadString('\n')
		n, perr := strconv.Atoi(strings.TrimSpace(line))
		if perr == nil && n >= 1 && n <= len(g.Options) {
			fmt.Fprint(w, "Note (optional, enter to skip): ")
			note, _ := r.ReadString('\n')
			return view.GateAnswer{GateID: g.ID, Option: n - 1, Note: strings.TrimSpace(note)}, nil
		}
		if err != nil {
			return view.GateAnswer{}, fmt.Errorf("read the answer: %w", err)
		}
	}
}
