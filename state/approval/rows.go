package approval

import (
	"fmt"
	"strings"

	"github.com/okstra/cockpit/internal/lazyre"
)

// Row statuses.
const (
	StatusOpen     = "open"     // asked, not yet resolved in this run
	StatusAnswered = "answered" // answered in an earlier run and carried in
	StatusResolved = "resolved" // the user's disposition was recorded in this run
	StatusObsolete = "obsolete" // replaced by a resolved row that supersedes it
)

// Statuses lists every row status, in lifecycle order.
var Statuses = []string{StatusOpen, StatusAnswered, StatusResolved, StatusObsolete}

// Option roles.
const (
	RoleRecommended = "recommended"
	RoleAlternative = "alternative"
)

// Reaches are the values of an option's reach.
var Reaches = []string{"in-repo", "cross-repo"}

// ScopeEffects are the tokens an option's scopeEffects may hold.
var ScopeEffects = []string{"new-schema", "deferrable"}

// Dispositions are the effects of selecting an option, and the dispositions a
// resolve may record.
var Dispositions = []string{"select", "accept-risk", "request-revision", "reject"}

// Row is one approval decision of the ledger. The JSON names are okstra's.
// Members the cockpit does not know stay in the file; they are not part of
// this struct.
type Row struct {
	ClarificationID        string   `json:"clarificationId"`
	TicketID               string   `json:"ticketId"`
	Statement              string   `json:"statement"`
	ExpectedForm           string   `json:"expectedForm"`
	Classification         string   `json:"classification"`
	Origin                 string   `json:"origin"`
	UserConfirmation       string   `json:"userConfirmation"`
	UnblockCondition       string   `json:"unblockCondition"`
	RecommendedDisposition string   `json:"recommendedDisposition"`
	Status                 string   `json:"status"`
	Supersedes             string   `json:"supersedes"`
	Options                []Option `json:"options"`

	// TaskType and RunSeq name the run that opened the row.
	TaskType string `json:"taskType,omitempty"`
	RunSeq   string `json:"runSeq,omitempty"`
	// OpenedAt is when `open` or `carry` added the row (UTC, RFC 3339).
	OpenedAt string `json:"openedAt,omitempty"`
	// Carried rows were answered in an earlier run; CarriedFrom is the
	// user-responses file (or directory) the answer came from.
	Carried     bool   `json:"carried,omitempty"`
	CarriedFrom string `json:"carriedFrom,omitempty"`
	// Resolution is the user's disposition: recorded by resolve, or copied
	// from the earlier answer by carry.
	Resolution *Resolution `json:"resolution,omitempty"`
	// ObsoletedBy names the resolved row that superseded this one.
	ObsoletedBy string `json:"obsoletedBy,omitempty"`
}

// Option is one answer a row offers.
type Option struct {
	Role            string   `json:"role"`
	Answer          string   `json:"answer"`
	Rationale       string   `json:"rationale"`
	Reach           string   `json:"reach"`
	ScopeEffects    []string `json:"scopeEffects"`
	AddedWork       string   `json:"addedWork"`
	DirectionChange string   `json:"directionChange"`
	Disposition     string   `json:"disposition"`
}

// Resolution is the recorded disposition of a row.
type Resolution struct {
	Disposition     string `json:"disposition"`
	UserText        string `json:"userText"`
	UserResponseRef string `json:"userResponseRef"`
	ResolvedAt      string `json:"resolvedAt"`
}

var idRE = &lazyre.Regexp{Pattern: `^C-[0-9]+$`}

// CheckID checks that id is a clarification id: "C-" and digits.
func CheckID(id string) error {
	if !idRE.Get().MatchString(id) {
		return fmt.Errorf("%q is not a clarification id; use C- and digits, e.g. C-007", id)
	}
	return nil
}

func oneOf(v string, set []string) bool {
	for _, s := range set {
		if v == s {
			return true
		}
	}
	return false
}

func listOr(set []string) string {
	switch len(set) {
	case 0:
		return ""
	case 1:
		return set[0]
	}
	return strings.Join(set[:len(set)-1], ", ") + " or " + set[len(set)-1]
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// RuleError is a row that breaks a ledger rule. Field is a JSON path inside
// the row ("options[1].reach"); its text is one line.
type RuleError struct {
	ID    string // the row's clarification id, when known
	Field string
	Msg   string
	Err   error // the underlying error, when there is one; not in the text
}

// Unwrap returns the underlying error, or nil.
func (e *RuleError) Unwrap() error { return e.Err }

// Error renders "<id> <field>: <message>".
func (e *RuleError) Error() string {
	var b strings.Builder
	if e.ID != "" {
		b.WriteString(e.ID)
		if e.Field != "" {
			b.WriteByte(' ')
		}
	}
	b.WriteString(e.Field)
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ValidateRow checks r against the ledger rules: the id, a non-empty
// statement and expected form, at least two options with exactly one
// recommended (the rest alternative), each option's answer, rationale,
// addedWork and directionChange non-empty, reach in-repo or cross-repo,
// scopeEffects drawn from new-schema and deferrable, a known disposition,
// and a known status. It returns the first broken rule.
//
// ValidateRow is the rule for a complete row. A ledger may also hold an
// incomplete row (see Incomplete): CheckRow is ValidateRow without the two
// completeness rules, and is what open, option and carry require.
func ValidateRow(r Row) error { return checkRow(r, true) }

// CheckRow checks every rule of ValidateRow except the two that make a row
// complete (at least two options; exactly one recommended): the row may be
// recorded, and Incomplete says what it still lacks.
func CheckRow(r Row) error { return checkRow(r, false) }

// Incomplete reports what keeps r from being complete, in okstra's words:
// "a row that omits options[], offers fewer than two, or marks zero or two
// options as recommended is incomplete and must be completed before the
// report is finalised". It returns nil for a complete row; otherwise a
// *RuleError on the field "options", e.g. "C-003 options: has 0 option(s);
// a row needs at least 2: one recommended, the others alternative".
func (r Row) Incomplete() *RuleError {
	rule := func(format string, args ...any) *RuleError {
		return &RuleError{ID: r.ClarificationID, Field: "options", Msg: fmt.Sprintf(format, args...)}
	}
	if len(r.Options) < 2 {
		return rule("has %d option(s); a row needs at least 2: one recommended, the others alternative", len(r.Options))
	}
	var recommended []string
	for i, o := range r.Options {
		if o.Role == RoleRecommended {
			recommended = append(recommended, fmt.Sprintf("options[%d]", i))
		}
	}
	switch len(recommended) {
	case 1:
		return nil
	case 0:
		return rule("mark no option recommended; exactly one must be recommended, the others alternative")
	}
	return rule("mark %d options recommended (%s); exactly one may be", len(recommended), strings.Join(recommended, ", "))
}

func checkRow(r Row, complete bool) error {
	id := r.ClarificationID
	rule := func(field, format string, args ...any) error {
		return &RuleError{ID: id, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if err := CheckID(id); err != nil {
		return &RuleError{Field: "clarificationId", Msg: err.Error(), Err: err}
	}
	if blank(r.Statement) {
		return rule("statement", "is empty; state the question the user must decide")
	}
	if blank(r.ExpectedForm) {
		return rule("expectedForm", "is empty; give the shape of the answer (one of the options, a file path, a number, a date)")
	}
	if r.Status != "" && !oneOf(r.Status, Statuses) {
		return rule("status", "is %q; expected %s", r.Status, listOr(Statuses))
	}
	if r.RecommendedDisposition != "" && !oneOf(r.RecommendedDisposition, Dispositions) {
		return rule("recommendedDisposition", "is %q; expected %s", r.RecommendedDisposition, listOr(Dispositions))
	}
	if r.Supersedes != "" {
		if err := CheckID(r.Supersedes); err != nil {
			return &RuleError{ID: id, Field: "supersedes", Msg: err.Error(), Err: err}
		}
		if r.Supersedes == id {
			return rule("supersedes", "names the row itself; name the carried or answered row this one replaces")
		}
	}
	if complete && len(r.Options) < 2 {
		return r.Incomplete()
	}
	for i, o := range r.Options {
		if err := CheckOption(o); err != nil {
			err.ID = id
			err.Field = fmt.Sprintf("options[%d]%s", i, err.Field)
			return err
		}
	}
	if complete {
		if err := r.Incomplete(); err != nil {
			return err
		}
	}
	return nil
}

// CheckOption checks one option against the ledger rules: its role
// recommended or alternative; answer, rationale, addedWork and
// directionChange non-empty; reach in-repo or cross-repo; scopeEffects drawn
// from new-schema and deferrable, each once; a known disposition. The
// returned error's Field is relative to the option (".reach"); its ID is
// empty.
func CheckOption(o Option) *RuleError {
	rule := func(field, format string, args ...any) *RuleError {
		return &RuleError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	switch o.Role {
	case RoleRecommended, RoleAlternative:
	default:
		return rule(".role", "is %q; expected recommended or alternative", o.Role)
	}
	for _, f := range []struct{ name, val, hint string }{
		{"answer", o.Answer, "the choice itself, phrased so the user can pick it as-is"},
		{"rationale", o.Rationale, "why this option is on the board"},
		{"addedWork", o.AddedWork, "the work this choice creates that the others do not"},
		{"directionChange", o.DirectionChange, "what this choice reverses, or say that it reverses nothing"},
	} {
		if blank(f.val) {
			return rule("."+f.name, "is empty; give %s", f.hint)
		}
	}
	if !oneOf(o.Reach, Reaches) {
		return rule(".reach", "is %q; expected exactly one of %s", o.Reach, listOr(Reaches))
	}
	seen := map[string]bool{}
	for j, s := range o.ScopeEffects {
		if !oneOf(s, ScopeEffects) {
			return rule(fmt.Sprintf(".scopeEffects[%d]", j), "is %q; allowed: %s", s, strings.Join(ScopeEffects, ", "))
		}
		if seen[s] {
			return rule(fmt.Sprintf(".scopeEffects[%d]", j), "repeats %q; list each effect once", s)
		}
		seen[s] = true
	}
	if !oneOf(o.Disposition, Dispositions) {
		return rule(".disposition", "is %q; expected %s", o.Disposition, listOr(Dispositions))
	}
	return nil
}

// RecommendedFirst returns the options with the recommended one first and
// the others in their order: the order a gate shows them in.
func (r Row) RecommendedFirst() []Option {
	out := make([]Option, 0, len(r.Options))
	for _, o := range r.Options {
		if o.Role == RoleRecommended {
			out = append(out, o)
		}
	}
	for _, o := range r.Options {
		if o.Role != RoleRecommended {
			out = append(out, o)
		}
	}
	return out
}
