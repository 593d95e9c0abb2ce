package approval

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/okstra/cockpit/state"
)

// RunDirOfReport is the run directory of a report: the parent of its
// reports/ directory, or the report's own directory when it is not in one.
func RunDirOfReport(reportPath string) string {
	dir := filepath.Dir(reportPath)
	if filepath.Base(dir) == "reports" {
		return filepath.Dir(dir)
	}
	return dir
}

// LedgerCandidates lists, in order, the ledgers a report may point at:
// <run dir>/state/approval-decisions-<task-type>-<seq>.json, then
// <run dir>/state/approval-decisions.json.
func LedgerCandidates(reportPath string) []string {
	stateDir := filepath.Join(RunDirOfReport(reportPath), "state")
	var out []string
	if m := InferRunMeta(reportPath); m.TaskType != "" && m.Seq != "" {
		out = append(out, filepath.Join(stateDir, fmt.Sprintf("approval-decisions-%s-%s.json", m.TaskType, m.Seq)))
	}
	return append(out, filepath.Join(stateDir, "approval-decisions.json"))
}

// LedgerForReport finds the ledger a report points at: the first of
// LedgerCandidates that exists, else the only approval-decisions*.json in the
// run's state/ directory. Several other ledgers, or none, is an error that
// names where it looked and says to pass --ledger.
func LedgerForReport(reportPath string) (string, error) {
	cands := LedgerCandidates(reportPath)
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c, nil
		}
	}
	stateDir := filepath.Join(RunDirOfReport(reportPath), "state")
	matches, _ := filepath.Glob(filepath.Join(stateDir, "approval-decisions*.json"))
	sort.Strings(matches)
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", &state.Error{Field: "--report", Msg: fmt.Sprintf("no approval-decision ledger beside %s (looked for %s); pass --ledger", reportPath, strings.Join(cands, ", "))}
	}
	return "", &state.Error{Field: "--report", Msg: fmt.Sprintf("several ledgers beside %s (%s) and none is named for the report; pass --ledger", reportPath, strings.Join(matches, ", "))}
}

// ShowResult is what `user-response show` reports: the open rows of the
// ledger a report points at, and the answers its sidecar already holds.
type ShowResult struct {
	Report  string `json:"report"`
	Ledger  string `json:"ledger"`
	Sidecar string `json:"sidecar"`
	// SidecarExists says whether the sidecar file is there yet.
	SidecarExists bool      `json:"sidecarExists"`
	Rows          []ShowRow `json:"rows"`
}

// ShowRow is one open row, with the sidecar's answer when there is one.
type ShowRow struct {
	Row
	// SidecarAnswer is the answer the sidecar records for the row, if any;
	// the row stays open until the lead resolves it.
	SidecarAnswer *Answer `json:"sidecarAnswer,omitempty"`
	// Incomplete says what the row still lacks (Row.Incomplete), e.g.
	// "C-003 options: has 0 option(s); ..."; empty for a complete row. An
	// incomplete row cannot be answered until its options are added.
	Incomplete string `json:"incomplete,omitempty"`
}

// Show lists the open rows of the ledger reportPath points at (see
// LedgerForReport), in ledger order.
func Show(reportPath string) (*ShowResult, error) {
	return ShowWith(reportPath, "")
}

// ShowWith is Show with an explicit ledger; "" finds it from the report.
func ShowWith(reportPath, ledger string) (*ShowResult, error) {
	if reportPath == "" {
		return nil, &state.Error{Field: "--report", Msg: "is required; pass the report whose questions to show"}
	}
	if _, err := os.Stat(reportPath); errors.Is(err, fs.ErrNotExist) {
		return nil, &state.Error{Field: "--report", Msg: fmt.Sprintf("%s does not exist; pass the path of an existing final report", reportPath)}
	}
	if ledger == "" {
		var err error
		if ledger, err = LedgerForReport(reportPath); err != nil {
			return nil, err
		}
	}
	l, err := Read(ledger)
	if err != nil {
		return nil, err
	}
	res := &ShowResult{Report: reportPath, Ledger: ledger, Sidecar: SidecarPath(reportPath), Rows: []ShowRow{}}
	sc, err := ReadSidecar(reportPath)
	if err != nil {
		return nil, err
	}
	res.SidecarExists = sc != nil
	for _, r := range l.Open() {
		sr := ShowRow{Row: r}
		if inc := r.Incomplete(); inc != nil {
			sr.Incomplete = inc.Error()
		}
		if sc != nil {
			if e := sc.Entry(r.ClarificationID); e != nil && e.Get("Answer") != "" {
				sr.SidecarAnswer = &Answer{ClarificationID: r.ClarificationID, Answer: e.Get("Answer"), Disposition: e.Get("Disposition"), Note: e.Get("Note")}
			}
		}
		res.Rows = append(res.Rows, sr)
	}
	return res, nil
}

// Text renders the result for a person: each open row with its options,
// recommended first, each with rationale, added work and direction change.
// An incomplete row is marked "[open, incomplete]" with a line saying what
// it lacks.
func (r *ShowResult) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ledger: %s\n", r.Ledger)
	if len(r.Rows) == 0 {
		b.WriteString("no open rows\n")
		return b.String()
	}
	for _, row := range r.Rows {
		status := row.Status
		if row.Incomplete != "" {
			status += ", incomplete"
		}
		fmt.Fprintf(&b, "\n%s [%s] %s\n", row.ClarificationID, status, row.Statement)
		fmt.Fprintf(&b, "  expected: %s\n", row.ExpectedForm)
		if row.Incomplete != "" {
			fmt.Fprintf(&b, "  incomplete: %s — add options with `approval-decision option --clarification-id %s`\n", row.Incomplete, row.ClarificationID)
		}
		if row.Supersedes != "" {
			fmt.Fprintf(&b, "  supersedes: %s\n", row.Supersedes)
		}
		for _, o := range row.RecommendedFirst() {
			mark := "-"
			if o.Role == RoleRecommended {
				mark = "*"
			}
			effects := ""
			if len(o.ScopeEffects) > 0 {
				effects = "; " + strings.Join(o.ScopeEffects, ", ")
			}
			fmt.Fprintf(&b, "  %s %s (%s, %s%s)\n", mark, o.Answer, o.Disposition, o.Reach, effects)
			fmt.Fprintf(&b, "      why: %s\n", o.Rationale)
			fmt.Fprintf(&b, "      added work: %s\n", o.AddedWork)
			fmt.Fprintf(&b, "      direction change: %s\n", o.DirectionChange)
		}
		if a := row.SidecarAnswer; a != nil {
			fmt.Fprintf(&b, "  answered in %s: %s", r.Sidecar, a.Answer)
			if a.Disposition != "" {
				fmt.Fprintf(&b, " (%s)", a.Disposition)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// RowForGate returns the row id of l that a gate may ask: a row of the
// ledger, open, and complete (Row.Incomplete). display names the ledger in
// errors. Each refusal is one line naming --clarification-id.
func RowForGate(l *Ledger, display, id string) (*Row, error) {
	row := l.Row(id)
	if row == nil {
		return nil, &state.Error{File: display, Field: "--clarification-id", Msg: fmt.Sprintf("%s is not a row of the ledger; open it first with `cockpit approval-decision open`", id)}
	}
	if row.Status != StatusOpen {
		return nil, &state.Error{File: display, Field: "--clarification-id", Msg: fmt.Sprintf("%s is %s, not open: there is nothing to ask", id, row.Status)}
	}
	if inc := row.Incomplete(); inc != nil {
		return nil, &state.Error{File: display, Field: "--clarification-id", Msg: fmt.Sprintf("%s is incomplete (%s): there is nothing the user can choose yet; add options with `cockpit approval-decision option --clarification-id %s --option <json>` and ask again", id, inc.Msg, id)}
	}
	return row, nil
}
