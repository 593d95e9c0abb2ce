package approval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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
	OptionsFile            string   // --options-file <path>: a JSON array of option objects
	Supersedes             string   // --supersedes C-NNN
	JSON                   bool     // --json
}

// optionHint is the shape of one option, for errors.
const optionHint = `{"role","answer","rationale","reach","scopeEffects","addedWork","directionChange","disposition"}`

// parseOptions decodes the --option flags, in order, then the options of
// --options-file (a JSON array of option objects, resolved like the other
// paths). Each is decoded strictly; the rules are checked by the caller.
func parseOptions(projectRoot string, flags []string, file string) ([]Option, error) {
	var opts []Option
	for i, s := range flags {
		var opt Option
		if err := decodeStrict(s, &opt); err != nil {
			return nil, &state.Error{Field: fmt.Sprintf("--option %d", i+1), Msg: fmt.Sprintf("is not an option object (%v); give %s", err, optionHint), Err: err}
		}
		opts = append(opts, opt)
	}
	if file == "" {
		return opts, nil
	}
	path, err := resolve(projectRoot, file, "--options-file")
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
		var opt Option
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
func incompleteLine(ledger string, inc *RuleError) string {
	return fmt.Sprintf("incomplete: %s — add options with `approval-decision option --ledger %s --clarification-id %s --option <json>`", inc.Error(), ledger, inc.ID)
}

// RunOpen adds one open row to the ledger and prints it. A row with fewer
// than two options, or without exactly one recommended, is recorded and
// reported incomplete on a second line (in the JSON: "incomplete").
func RunOpen(o OpenOptions, out io.Writer) error {
	ledger, err := resolve(o.ProjectRoot, o.Ledger, "--ledger")
	if err != nil {
		return err
	}
	opts, err := parseOptions(o.ProjectRoot, o.Options, o.OptionsFile)
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
		Options: opts,
	}
	stored, err := openRow(ledger, o.TaskKey, row, o.Supersedes)
	if err != nil {
		return err
	}
	inc := stored.Incomplete()
	if o.JSON {
		res := map[string]any{"ledger": ledger, "row": stored}
		if inc != nil {
			res["incomplete"] = inc.Error()
		}
		return printJSON(out, res)
	}
	msg := fmt.Sprintf("opened %s in %s\n", stored.ClarificationID, ledger)
	if inc != nil {
		msg += incompleteLine(ledger, inc) + "\n"
	}
	_, err = io.WriteString(out, msg)
	return err
}

// OptionOptions are the flags of `approval-decision option`.
type OptionOptions struct {
	ProjectRoot     string   // --project-root: when set, paths are resolved inside it
	Ledger          string   // --ledger
	ClarificationID string   // --clarification-id C-NNN: an open row
	Options         []string // --option <json object>, once per option
	OptionsFile     string   // --options-file <path>: a JSON array of option objects
	Replace         bool     // --replace: the options replace the row's instead of adding to them
	JSON            bool     // --json
}

// RunOption adds options to an open row (see AddOptions) and prints how many
// it now offers, and whether it is still incomplete.
func RunOption(o OptionOptions, out io.Writer) error {
	ledger, err := resolve(o.ProjectRoot, o.Ledger, "--ledger")
	if err != nil {
		return err
	}
	if o.ClarificationID == "" {
		return &state.Error{Field: "--clarification-id", Msg: "is required; name the open row the options belong to"}
	}
	opts, err := parseOptions(o.ProjectRoot, o.Options, o.OptionsFile)
	if err != nil {
		return err
	}
	r, err := AddOptions(ledger, o.ClarificationID, opts, o.Replace)
	if err != nil {
		return err
	}
	inc := r.Incomplete()
	if o.JSON {
		res := map[string]any{"ledger": ledger, "row": r}
		if inc != nil {
			res["incomplete"] = inc.Error()
		}
		return printJSON(out, res)
	}
	msg := fmt.Sprintf("%s in %s offers %d option(s)", r.ClarificationID, ledger, len(r.Options))
	if inc != nil {
		msg += "\n" + incompleteLine(ledger, inc) + "\n"
	} else {
		msg += "; it is complete\n"
	}
	_, err = io.WriteString(out, msg)
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
		return nil, &state.Error{Field: "--answers", Msg: fmt.Sprintf("is not a JSON array of answers (%v); give [{\"clarificationId\":\"C-003\",\"answer\":\"...\",\"disposition\":\"select\"}]", err), Err: err}
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
			return &state.Error{Field: "--plan-decision", Msg: fmt.Sprintf("is not a JSON object (%v); give {\"status\":\"approved\",\"implementationOption\":\"...\",\"reason\":\"...\"}", err), Err: err}
		}
		req.PlanDecision = &d
	}
	if strings.TrimSpace(o.ReportAuthoring) != "" {
		var d ReportAuthoring
		if err := decodeStrict(o.ReportAuthoring, &d); err != nil {
			return &state.Error{Field: "--report-authoring", Msg: fmt.Sprintf("is not a JSON object (%v); give {\"status\":\"approved\",\"reason\":\"...\"}", err), Err: err}
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
