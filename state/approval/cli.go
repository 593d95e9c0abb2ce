package approval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/okstra/cockpit/state"
)

// The Options structs and Run functions below are what cmd/cockpit wires to
// flags, one struct field per flag (docs/GATES.md lists the command lines).
// Each Run function checks its flags, does the work and prints its result to
// out; errors are one line naming the flag or file.

// resolve turns a path flag into a filesystem path: inside the project root
// when one is given (refusing paths that leave it), as given otherwise.
func resolve(projectRoot, p, flag string) (string, error) {
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

func printJSON(out io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := out.Write(b.Bytes())
	return err
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

// OpenOptions are the flags of `approval-decision open`.
type OpenOptions struct {
	ProjectRoot            string   // --project-root: when set, --ledger is resolved inside it
	Ledger                 string   // --ledger
	TaskKey                string   // --task-key: the ledger's task; a new ledger records it
	TaskType               string   // --task-type
	RunSeq                 string   // --run-seq
	ClarificationID        string   // --clarification-id C-NNN
	TicketID               string   // --ticket-id
	Statement              string   // --statement
	ExpectedForm           string   // --expected-form
	Classification         string   // --classification
	Origin                 string   // --origin
	UserConfirmation       string   // --user-confirmation
	UnblockCondition       string   // --unblock-condition
	RecommendedDisposition string   // --recommended-disposition
	Options                []string // --option <json object>, once per option
	Supersedes             string   // --supersedes C-NNN
	JSON                   bool     // --json
}

// RunOpen adds one open row to the ledger and prints it.
func RunOpen(o OpenOptions, out io.Writer) error {
	ledger, err := resolve(o.ProjectRoot, o.Ledger, "--ledger")
	if err != nil {
		return err
	}
	row := Row{
		ClarificationID: o.ClarificationID, TicketID: o.TicketID,
		Statement: o.Statement, ExpectedForm: o.ExpectedForm,
		Classification: o.Classification, Origin: o.Origin,
		UserConfirmation: o.UserConfirmation, UnblockCondition: o.UnblockCondition,
		RecommendedDisposition: o.RecommendedDisposition,
		TaskType:               o.TaskType, RunSeq: o.RunSeq,
	}
	for i, s := range o.Options {
		var opt Option
		if err := decodeStrict(s, &opt); err != nil {
			return &state.Error{Field: fmt.Sprintf("--option %d", i+1), Msg: fmt.Sprintf("is not an option object (%v); give {\"role\",\"answer\",\"rationale\",\"reach\",\"scopeEffects\",\"addedWork\",\"directionChange\",\"disposition\"}", err)}
		}
		row.Options = append(row.Options, opt)
	}
	stored, err := openRow(ledger, o.TaskKey, row, o.Supersedes)
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(out, map[string]any{"ledger": ledger, "row": stored})
	}
	_, err = fmt.Fprintf(out, "opened %s in %s\n", stored.ClarificationID, ledger)
	return err
}

// CarryOptions are the flags of `approval-decision carry`.
type CarryOptions struct {
	ProjectRoot   string   // --project-root
	Ledger        string   // --ledger
	FromResponses string   // --from-responses <file or directory>
	IDs           []string // --clarification-id, repeatable
	JSON          bool     // --json
}

// RunCarry carries earlier answers into the ledger and prints what it did.
func RunCarry(o CarryOptions, out io.Writer) error {
	ledger, err := resolve(o.ProjectRoot, o.Ledger, "--ledger")
	if err != nil {
		return err
	}
	from, err := resolve(o.ProjectRoot, o.FromResponses, "--from-responses")
	if err != nil {
		return err
	}
	res, err := CarryWith(CarryRequest{Ledger: ledger, FromResponses: from, IDs: o.IDs, ProjectRoot: o.ProjectRoot})
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(out, res)
	}
	for _, r := range res.Carried {
		if _, err := fmt.Fprintf(out, "carried %s into %s\n", r.ClarificationID, ledger); err != nil {
			return err
		}
	}
	for _, id := range res.AlreadyCarried {
		if _, err := fmt.Fprintf(out, "%s was already carried into %s\n", id, ledger); err != nil {
			return err
		}
	}
	return nil
}

// ResolveOptions are the flags of `approval-decision resolve`.
type ResolveOptions struct {
	ProjectRoot     string // --project-root
	Ledger          string // --ledger
	ClarificationID string // --clarification-id
	Disposition     string // --disposition
	UserText        string // --user-text
	UserResponseRef string // --user-response-ref
	JSON            bool   // --json
}

// RunResolve records the user's disposition of a row and prints the row.
func RunResolve(o ResolveOptions, out io.Writer) error {
	ledger, err := resolve(o.ProjectRoot, o.Ledger, "--ledger")
	if err != nil {
		return err
	}
	r, err := Resolve(ledger, o.ClarificationID, o.Disposition, o.UserText, o.UserResponseRef)
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(out, map[string]any{"ledger": ledger, "row": r})
	}
	msg := fmt.Sprintf("resolved %s (%s) in %s", r.ClarificationID, r.Resolution.Disposition, ledger)
	if r.Supersedes != "" {
		msg += fmt.Sprintf("; %s is now obsolete", r.Supersedes)
	}
	_, err = fmt.Fprintln(out, msg)
	return err
}

// WriteOptions are the flags of `user-response write`.
type WriteOptions struct {
	ProjectRoot     string // --project-root
	Report          string // --report
	Answers         string // --answers <json array>
	PlanDecision    string // --plan-decision <json object>
	ReportAuthoring string // --report-authoring <json object>
	TaskKey         string // --task-key: overrides the key read from the report path
}

// ParseAnswers decodes the --answers JSON: an array of {"clarificationId"
// (or "id"), "answer", "disposition", "note"}.
func ParseAnswers(data string) ([]Answer, error) {
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
		return nil, &state.Error{Field: "--answers", Msg: fmt.Sprintf("is not a JSON array of answers (%v); give [{\"clarificationId\":\"C-003\",\"answer\":\"...\",\"disposition\":\"select\"}]", err)}
	}
	out := make([]Answer, 0, len(raw))
	for i, r := range raw {
		id := r.ClarificationID
		if id == "" {
			id = r.ID
		} else if r.ID != "" && r.ID != id {
			return nil, &state.Error{Field: fmt.Sprintf("--answers[%d]", i), Msg: fmt.Sprintf("gives id %s and clarificationId %s; give one", r.ID, id)}
		}
		out = append(out, Answer{ClarificationID: id, Answer: r.Answer, Disposition: r.Disposition, Note: r.Note})
	}
	return out, nil
}

// RunWrite records the user's answers in the report's sidecar and prints
// {"sidecar": "<path>"}, as okstra does.
func RunWrite(o WriteOptions, out io.Writer) error {
	report, err := resolve(o.ProjectRoot, o.Report, "--report")
	if err != nil {
		return err
	}
	answers, err := ParseAnswers(o.Answers)
	if err != nil {
		return err
	}
	req := WriteRequest{Report: report, ProjectRoot: o.ProjectRoot, TaskKey: o.TaskKey, Answers: answers}
	if strings.TrimSpace(o.PlanDecision) != "" {
		var d PlanDecision
		if err := decodeStrict(o.PlanDecision, &d); err != nil {
			return &state.Error{Field: "--plan-decision", Msg: fmt.Sprintf("is not a JSON object (%v); give {\"status\":\"approved\",\"implementationOption\":\"...\",\"reason\":\"...\"}", err)}
		}
		req.PlanDecision = &d
	}
	if strings.TrimSpace(o.ReportAuthoring) != "" {
		var d ReportAuthoring
		if err := decodeStrict(o.ReportAuthoring, &d); err != nil {
			return &state.Error{Field: "--report-authoring", Msg: fmt.Sprintf("is not a JSON object (%v); give {\"status\":\"approved\",\"reason\":\"...\"}", err)}
		}
		req.ReportAuthoring = &d
	}
	path, err := WriteSidecar(req)
	if err != nil {
		return err
	}
	return printJSON(out, map[string]string{"sidecar": path})
}

// ShowOptions are the flags of `user-response show`.
type ShowOptions struct {
	ProjectRoot string // --project-root
	Report      string // --report
	Ledger      string // --ledger: overrides the ledger found from the report
	JSON        bool   // --json
}

// RunShow prints the open rows of the ledger the report points at.
func RunShow(o ShowOptions, out io.Writer) error {
	report, err := resolve(o.ProjectRoot, o.Report, "--report")
	if err != nil {
		return err
	}
	ledger := ""
	if o.Ledger != "" {
		if ledger, err = resolve(o.ProjectRoot, o.Ledger, "--ledger"); err != nil {
			return err
		}
	}
	res, err := ShowWith(report, ledger)
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(out, res)
	}
	_, err = io.WriteString(out, res.Text())
	return err
}
