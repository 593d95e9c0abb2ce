package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/state/approval"
)

// The run functions of the approval-decision and user-response commands:
// each resolves its path flags, decodes its JSON flags, calls the ledger or
// sidecar operation of state/approval and prints the result (text, or the
// JSON document with --json). Errors are one line naming the flag or file.

// resolveIn turns a path flag into a filesystem path: inside the project
// root when one is given (refusing paths that leave it), as given otherwise.
func resolveIn(projectRoot, p, flag string) (string, error) {
	if p == "" {
		return "", &state.Error{Field: flag, Msg: "is required"}
	}
	if projectRoot == "" {
		return p, nil
	}
	root, err := state.OpenRoot(projectRoot)
	if err != nil {
		return "", err
	}
	return root.Resolve(p, flag)
}

// decodeStrict decodes one JSON value, refusing unknown members so a
// misspelt field is reported rather than dropped.
func decodeStrict(data string, v any) error {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("holds more than one JSON value")
	}
	return nil
}

// optionHint is the shape of one option, for errors.
const optionHint = `{"role","answer","rationale","reach","scopeEffects","addedWork","directionChange","disposition"}`

// parseOptionFlags decodes the --option flags, in order, then the options
// of --options-file (a JSON array of option objects, resolved like the
// other paths). Each is decoded strictly; the ledger checks the rules.
func parseOptionFlags(projectRoot string, flags []string, file string) ([]approval.Option, error) {
	var opts []approval.Option
	for i, s := range flags {
		var opt approval.Option
		if err := decodeStrict(s, &opt); err != nil {
			return nil, &state.Error{Field: fmt.Sprintf("--option %d", i+1), Msg: fmt.Sprintf("is not an option object (%v); give %s", err, optionHint), Err: err}
		}
		opts = append(opts, opt)
	}
	if file == "" {
		return opts, nil
	}
	path, err := resolveIn(projectRoot, file, "--options-file")
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &state.Error{Field: "--options-file", Msg: fmt.Sprintf("cannot read %s (%v); pass a file holding a JSON array of options", file, unwrapPath(err)), Err: err}
	}
	var raws []json.RawMessage
	if err := decodeStrict(string(data), &raws); err != nil || raws == nil {
		if err == nil {
			err = fmt.Errorf("null")
		}
		return nil, &state.Error{File: file, Msg: fmt.Sprintf("is not a JSON array of options (%v); give [%s, ...]", err, optionHint), Err: err}
	}
	for i, raw := range raws {
		var opt approval.Option
		if err := decodeStrict(string(raw), &opt); err != nil {
			return nil, &state.Error{File: file, Field: fmt.Sprintf("[%d]", i), Msg: fmt.Sprintf("is not an option object (%v); give %s", err, optionHint), Err: err}
		}
		opts = append(opts, opt)
	}
	return opts, nil
}

// unwrapPath drops the path an *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// incompleteLine is the line that reports an incomplete row and says how to
// complete it.
func incompleteLine(ledger string, inc *approval.RuleError) string {
	return fmt.Sprintf("incomplete: %s — add options with `approval-decision option --ledger %s --clarification-id %s --option <json>`", inc.Error(), ledger, inc.ID)
}

// rowOutput is the --json document of open and option: the ledger, the
// row as stored, and why it is incomplete when it is.
func rowOutput(ledger string, r *approval.Row) map[string]any {
	res := map[string]any{"ledger": ledger, "row": r}
	if inc := r.Incomplete(); inc != nil {
		res["incomplete"] = inc.Error()
	}
	return res
}

// approvalOpenRun adds one open row to the ledger and prints it. A row with
// fewer than two options, or without exactly one recommended, is recorded
// and reported incomplete on a second line (in the JSON: "incomplete").
func approvalOpenRun(o *ApprovalOpenOptions) error {
	if o.RunManifest != "" && (o.Ledger == "" || o.TaskKey == "" || o.TaskType == "" || o.RunSeq == "") {
		// As gate ask: the run manifest names the ledger and the run.
		run, err := (&runFlags{ProjectRoot: o.ProjectRoot, RunManifest: o.RunManifest}).load()
		if err != nil {
			return err
		}
		m := run.Manifest
		if o.Ledger == "" {
			if m.ApprovalDecisionsPath == "" {
				return &usageError{fmt.Errorf("--ledger is required: the run manifest %s names no approvalDecisionsPath", m.Display)}
			}
			o.Ledger = m.ApprovalDecisionsPath
		}
		o.TaskKey, o.TaskType, o.RunSeq = orDefault(o.TaskKey, m.TaskKey), orDefault(o.TaskType, m.TaskType), orDefault(o.RunSeq, m.RunSeq)
	}
	ledger, err := resolveIn(o.ProjectRoot, o.Ledger, "--ledger")
	if err != nil {
		return err
	}
	opts, err := parseOptionFlags(o.ProjectRoot, o.Options, o.OptionsFile)
	if err != nil {
		return err
	}
	row := approval.Row{
		ClarificationID: o.ClarificationID, TicketID: o.TicketID,
		Statement: o.Statement, ExpectedForm: o.ExpectedForm,
		Classification: o.Classification, Origin: o.Origin,
		UserConfirmation: o.UserConfirmation, UnblockCondition: o.UnblockCondition,
		RecommendedDisposition: o.RecommendedDisposition,
		TaskType:               o.TaskType, RunSeq: o.RunSeq,
		Options: opts,
	}
	stored, err := approval.OpenInTask(ledger, o.TaskKey, row, o.Supersedes)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, rowOutput(ledger, stored))
	}
	msg := fmt.Sprintf("opened %s in %s\n", stored.ClarificationID, ledger)
	if inc := stored.Incomplete(); inc != nil {
		msg += incompleteLine(ledger, inc) + "\n"
	}
	_, err = io.WriteString(o.IO.Out, msg)
	return err
}

// approvalOptionRun adds options to an open row (approval.AddOptions) and
// prints how many it now offers, and whether it is still incomplete.
func approvalOptionRun(o *ApprovalOptionOptions) error {
	ledger, err := resolveIn(o.ProjectRoot, o.Ledger, "--ledger")
	if err != nil {
		return err
	}
	if o.ClarificationID == "" {
		return &state.Error{Field: "--clarification-id", Msg: "is required; name the open row the options belong to"}
	}
	opts, err := parseOptionFlags(o.ProjectRoot, o.Options, o.OptionsFile)
	if err != nil {
		return err
	}
	r, err := approval.AddOptions(ledger, o.ClarificationID, opts, o.Replace)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, rowOutput(ledger, r))
	}
	msg := fmt.Sprintf("%s in %s offers %d option(s)", r.ClarificationID, ledger, len(r.Options))
	if inc := r.Incomplete(); inc != nil {
		msg += "\n" + incompleteLine(ledger, inc) + "\n"
	} else {
		msg += "; it is complete\n"
	}
	_, err = io.WriteString(o.IO.Out, msg)
	return err
}

// approvalCarryRun carries earlier answers into the ledger and prints what
// it did.
func approvalCarryRun(o *ApprovalCarryOptions) error {
	ledger, err := resolveIn(o.ProjectRoot, o.Ledger, "--ledger")
	if err != nil {
		return err
	}
	from, err := resolveIn(o.ProjectRoot, o.FromResponses, "--from-responses")
	if err != nil {
		return err
	}
	res, err := approval.CarryWith(approval.CarryRequest{Ledger: ledger, FromResponses: from, IDs: o.IDs, ProjectRoot: o.ProjectRoot})
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, res)
	}
	for _, r := range res.Carried {
		if _, err := fmt.Fprintf(o.IO.Out, "carried %s into %s\n", r.ClarificationID, ledger); err != nil {
			return err
		}
	}
	for _, id := range res.AlreadyCarried {
		if _, err := fmt.Fprintf(o.IO.Out, "%s was already carried into %s\n", id, ledger); err != nil {
			return err
		}
	}
	return nil
}

// approvalResolveRun records the user's disposition of a row and prints
// the row.
func approvalResolveRun(o *ApprovalResolveOptions) error {
	ledger, err := resolveIn(o.ProjectRoot, o.Ledger, "--ledger")
	if err != nil {
		return err
	}
	r, err := approval.Resolve(ledger, o.ClarificationID, o.Disposition, o.UserText, o.UserResponseRef)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, map[string]any{"ledger": ledger, "row": r})
	}
	msg := fmt.Sprintf("resolved %s (%s) in %s", r.ClarificationID, r.Resolution.Disposition, ledger)
	if r.Supersedes != "" {
		msg += fmt.Sprintf("; %s is now obsolete", r.Supersedes)
	}
	_, err = fmt.Fprintln(o.IO.Out, msg)
	return err
}

// parseAnswersFlag decodes --answers: a JSON array of {"clarificationId"
// (or "id"), "answer", "disposition", "note"}.
func parseAnswersFlag(data string) ([]approval.Answer, error) {
	if strings.TrimSpace(data) == "" {
		return nil, nil
	}
	var raw []struct {
		ClarificationID string `json:"clarificationId"`
		ID              string `json:"id"`
		Answer          string `json:"answer"`
		Disposition     string `json:"disposition"`
		Note            string `json:"note"`
	}
	if err := decodeStrict(data, &raw); err != nil {
		return nil, &state.Error{Field: "--answers", Msg: fmt.Sprintf("is not a JSON array of answers (%v); give [{\"clarificationId\":\"C-003\",\"answer\":\"...\",\"disposition\":\"select\"}]", err), Err: err}
	}
	out := make([]approval.Answer, 0, len(raw))
	for i, r := range raw {
		id := r.ClarificationID
		if id == "" {
			id = r.ID
		} else if r.ID != "" && r.ID != id {
			return nil, &state.Error{Field: fmt.Sprintf("--answers[%d]", i), Msg: fmt.Sprintf("gives id %s and clarificationId %s; give one", r.ID, id)}
		}
		out = append(out, approval.Answer{ClarificationID: id, Answer: r.Answer, Disposition: r.Disposition, Note: r.Note})
	}
	return out, nil
}

// userResponseWriteOutput is `user-response write --json`: the sidecar it
// wrote, the report as given, the clarification ids answered (in the order
// given), whether a PLAN DECISION was written, and the REPORT AUTHORING
// status written ("approved", "denied"; "" when none).
type userResponseWriteOutput struct {
	Sidecar          string   `json:"sidecar"`
	Report           string   `json:"report"`
	ClarificationIDs []string `json:"clarificationIds"`
	PlanDecision     bool     `json:"planDecision"`
	ReportAuthoring  string   `json:"reportAuthoring"`
}

// userResponseWriteRun records the user's answers in the report's sidecar
// and prints {"sidecar": "<path>"}, as okstra does, or with --json what it
// wrote (userResponseWriteOutput).
func userResponseWriteRun(o *UserResponseWriteOptions) error {
	report, err := resolveIn(o.ProjectRoot, o.Report, "--report")
	if err != nil {
		return err
	}
	answers, err := parseAnswersFlag(o.Answers)
	if err != nil {
		return err
	}
	// okstra's write_sidecar, as the seed writes it (docs/GATES.md, "Merging").
	req := approval.WriteRequest{Report: report, ProjectRoot: o.ProjectRoot, TaskKey: o.TaskKey, Answers: answers, Okstra: true}
	if strings.TrimSpace(o.PlanDecision) != "" {
		var d approval.PlanDecision
		if err := decodeStrict(o.PlanDecision, &d); err != nil {
			return &state.Error{Field: "--plan-decision", Msg: fmt.Sprintf("is not a JSON object (%v); give {\"status\":\"approved\",\"implementationOption\":\"...\",\"reason\":\"...\"}", err), Err: err}
		}
		req.PlanDecision = &d
	}
	if strings.TrimSpace(o.ReportAuthoring) != "" {
		var d approval.ReportAuthoring
		if err := decodeStrict(o.ReportAuthoring, &d); err != nil {
			return &state.Error{Field: "--report-authoring", Msg: fmt.Sprintf("is not a JSON object (%v); give {\"status\":\"approved\",\"reason\":\"...\"}", err), Err: err}
		}
		req.ReportAuthoring = &d
	}
	path, err := approval.WriteSidecar(req)
	if err != nil {
		return err
	}
	if !o.JSON {
		return writeJSON(o.IO.Out, map[string]string{"sidecar": path})
	}
	out := userResponseWriteOutput{Sidecar: path, Report: o.Report, ClarificationIDs: []string{}, PlanDecision: req.PlanDecision != nil}
	for _, a := range answers {
		out.ClarificationIDs = append(out.ClarificationIDs, a.ClarificationID)
	}
	if req.ReportAuthoring != nil {
		out.ReportAuthoring = req.ReportAuthoring.Status
	}
	return writeJSON(o.IO.Out, out)
}

// userResponseShowRun prints the open rows of the ledger the report points
// at.
func userResponseShowRun(o *UserResponseShowOptions) error {
	report, err := resolveIn(o.ProjectRoot, o.Report, "--report")
	if err != nil {
		return err
	}
	ledger := ""
	if o.Ledger != "" {
		if ledger, err = resolveIn(o.ProjectRoot, o.Ledger, "--ledger"); err != nil {
			return err
		}
	}
	res, err := approval.ShowWith(report, ledger)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, res)
	}
	_, err = io.WriteString(o.IO.Out, res.Text())
	return err
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
