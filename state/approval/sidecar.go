package approval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/internal/lazyre"
	"github.com/okstra/cockpit/state"
)

// Section headings of a user-response sidecar.
const (
	HeadingPlanDecision    = "PLAN DECISION"
	HeadingReportAuthoring = "REPORT AUTHORING"
)

// The statuses of the sidecar's decisions. okstra's PLAN_DECISION_APPROVED
// is "approved"; revision-requested and rejected are the ones its
// --plan-decision help and gates name; approved and denied are its
// _REPORT_AUTHORING_STATUSES.
const (
	DecisionApproved          = "approved"
	DecisionRevisionRequested = "revision-requested"
	DecisionRejected          = "rejected"
	DecisionDenied            = "denied"
)

// PlanDecisionStatuses are the statuses a PLAN DECISION may have.
var PlanDecisionStatuses = []string{DecisionApproved, DecisionRevisionRequested, DecisionRejected}

// ReportAuthoringStatuses are the statuses a REPORT AUTHORING answer may
// have.
var ReportAuthoringStatuses = []string{DecisionApproved, DecisionDenied}

// Answer is the user's answer to one row, as `user-response write --answers`
// takes it: [{"clarificationId": "C-003", "answer": "...", "disposition":
// "select"}]. "id" is accepted for clarificationId.
type Answer struct {
	ClarificationID string `json:"clarificationId"`
	Answer          string `json:"answer"`
	Disposition     string `json:"disposition,omitempty"`
	Note            string `json:"note,omitempty"`
}

// PlanDecision is the user's decision on a plan (`--plan-decision`).
type PlanDecision struct {
	Status               string `json:"status"`
	ImplementationOption string `json:"implementationOption,omitempty"`
	Reason               string `json:"reason,omitempty"`
}

// ReportAuthoring is the user's answer on letting the lead author the final
// report itself (`--report-authoring`). A Reason is required even on
// approval: the report carries it forward.
type ReportAuthoring struct {
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// QuotedField renders one sidecar bullet whose value is quoted, as okstra's
// _quoted_sidecar_field does: the value as a JSON string (so quotes,
// backslashes and line breaks stay on one line), then a newline.
func QuotedField(name, value string) string {
	q, _ := marshal(value)
	return "- " + name + ": " + escapeControls(string(q)) + "\n"
}

// escapeControls writes, inside a JSON string, the controls encoding/json
// leaves raw — DEL and the C1 controls (U+0080–U+009F: 0x9b is CSI to an
// 8-bit terminal) — as \u escapes.
func escapeControls(q string) string {
	if !strings.ContainsFunc(q, isLateControl) {
		return q
	}
	var b strings.Builder
	for _, r := range q {
		if isLateControl(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isLateControl(r rune) bool { return r == 0x7f || (r >= 0x80 && r <= 0x9f) }

// hasControl reports whether s holds any control character.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || isLateControl(r) })
}

// SerializePlanDecision renders the `## PLAN DECISION` chunk, starting with
// the blank line that separates it from the chunk before. A status outside
// approved, revision-requested and rejected is refused, and so is a
// non-approving decision without a Reason.
func SerializePlanDecision(d PlanDecision) (string, error) {
	if !oneOf(d.Status, PlanDecisionStatuses) {
		return "", fmt.Errorf("invalid PLAN DECISION status: %s", d.Status)
	}
	if d.Status != DecisionApproved && blank(d.Reason) {
		return "", fmt.Errorf("PLAN DECISION %s requires a Reason", d.Status)
	}
	var b strings.Builder
	b.WriteString("\n## " + HeadingPlanDecision + "\n")
	b.WriteString("- Status: " + d.Status + "\n")
	if d.ImplementationOption != "" {
		b.WriteString(plainField("Implementation Option", d.ImplementationOption))
	}
	if !blank(d.Reason) {
		b.WriteString(QuotedField("Reason", d.Reason))
	}
	return b.String(), nil
}

// SerializeReportAuthoring renders the `## REPORT AUTHORING` chunk exactly as
// okstra's _serialize_report_authoring: the status must be approved or
// denied ("invalid REPORT AUTHORING status: <status>") and the Reason must
// not be blank, even on approval ("REPORT AUTHORING requires a Reason").
func SerializeReportAuthoring(d ReportAuthoring) (string, error) {
	if !oneOf(d.Status, ReportAuthoringStatuses) {
		return "", fmt.Errorf("invalid REPORT AUTHORING status: %s", d.Status)
	}
	if strings.TrimSpace(d.Reason) == "" {
		return "", errors.New("REPORT AUTHORING requires a Reason")
	}
	return "\n## " + HeadingReportAuthoring + "\n" +
		"- Status: " + d.Status + "\n" +
		QuotedField("Reason", d.Reason), nil
}

// plainField renders a bullet unquoted unless the value would not read back
// as itself (a line break, surrounding spaces, a leading quote).
func plainField(name, value string) string {
	if hasControl(value) || strings.TrimSpace(value) != value || strings.HasPrefix(value, `"`) {
		return QuotedField(name, value)
	}
	return "- " + name + ": " + value + "\n"
}

// unquote reads a bullet value back: a JSON string when it is one, the text
// as written otherwise.
func unquote(v string) string {
	if strings.HasPrefix(v, `"`) {
		var s string
		if json.Unmarshal([]byte(v), &s) == nil {
			return s
		}
	}
	return v
}

// Field is one line of a sidecar section: a "- Key: value" bullet, or any
// other line kept as written (Key empty, Value the line).
type Field struct {
	Key   string
	Value string // unquoted
	raw   string // the line as read; "" for a field set by the cockpit
}

// Section is one "## " section of a sidecar.
type Section struct {
	Heading string
	Fields  []Field
}

// Get returns the value of the first bullet named key.
func (s *Section) Get(key string) string {
	for _, f := range s.Fields {
		if f.Key == key {
			return f.Value
		}
	}
	return ""
}

// set replaces the first bullet named key, or appends one; an empty value
// removes it.
func (s *Section) set(key, value string) {
	for i, f := range s.Fields {
		if f.Key == key {
			if value == "" {
				s.Fields = append(s.Fields[:i], s.Fields[i+1:]...)
				return
			}
			s.Fields[i] = Field{Key: key, Value: value}
			return
		}
	}
	if value != "" {
		s.Fields = append(s.Fields, Field{Key: key, Value: value})
	}
}

func (s *Section) render() string {
	var b strings.Builder
	b.WriteString("\n## " + s.Heading + "\n")
	for _, f := range s.Fields {
		switch {
		case f.raw != "":
			b.WriteString(f.raw + "\n")
		case f.Key == "":
			b.WriteString(f.Value + "\n")
		case f.Key == "Reason":
			b.WriteString(QuotedField(f.Key, f.Value))
		default:
			b.WriteString(plainField(f.Key, f.Value))
		}
	}
	return b.String()
}

// Sidecar is a user-response file as read: its head, its answer sections
// (## C-NNN), its PLAN DECISION and REPORT AUTHORING sections, and every
// other section, kept as written.
type Sidecar struct {
	Title        string
	CreatedAt    string
	SourceReport string
	// HeadExtra are head lines other than the title, Created At and Source
	// Report, kept in their order.
	HeadExtra       []string
	Entries         []*Section
	PlanDecision    *Section
	ReportAuthoring *Section
	Other           []*Section
}

// Entry returns the answer section of id, or nil.
func (s *Sidecar) Entry(id string) *Section {
	for _, e := range s.Entries {
		if e.Heading == id {
			return e
		}
	}
	return nil
}

var bulletRE = &lazyre.Regexp{Pattern: `^- ([^:]+): ?(.*)$`}

// ParseSidecar reads a user-response sidecar. It accepts anything: lines it
// does not understand are kept as written.
func ParseSidecar(data []byte) *Sidecar {
	s := &Sidecar{}
	var cur *Section
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for _, line := range lines {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			cur = &Section{Heading: strings.TrimSpace(h)}
			switch {
			case idRE.Get().MatchString(cur.Heading):
				s.Entries = append(s.Entries, cur)
			case cur.Heading == HeadingPlanDecision:
				s.PlanDecision = cur
			case cur.Heading == HeadingReportAuthoring:
				s.ReportAuthoring = cur
			default:
				s.Other = append(s.Other, cur)
			}
			continue
		}
		if cur == nil {
			switch m := bulletRE.Get().FindStringSubmatch(line); {
			case strings.HasPrefix(line, "# ") && s.Title == "":
				s.Title = strings.TrimPrefix(line, "# ")
			case m != nil && m[1] == "Created At":
				s.CreatedAt = unquote(m[2])
			case m != nil && m[1] == "Source Report":
				s.SourceReport = unquote(m[2])
			case strings.TrimSpace(line) != "":
				s.HeadExtra = append(s.HeadExtra, line)
			}
			continue
		}
		if m := bulletRE.Get().FindStringSubmatch(line); m != nil {
			cur.Fields = append(cur.Fields, Field{Key: m[1], Value: unquote(m[2]), raw: line})
		} else {
			cur.Fields = append(cur.Fields, Field{Value: line, raw: line})
		}
	}
	for _, sec := range s.sections() {
		// The blank line before the next heading belongs to the layout,
		// not to the section.
		for len(sec.Fields) > 0 && sec.Fields[len(sec.Fields)-1].Key == "" && strings.TrimSpace(sec.Fields[len(sec.Fields)-1].Value) == "" {
			sec.Fields = sec.Fields[:len(sec.Fields)-1]
		}
	}
	return s
}

func (s *Sidecar) sections() []*Section {
	out := append([]*Section(nil), s.Entries...)
	if s.PlanDecision != nil {
		out = append(out, s.PlanDecision)
	}
	out = append(out, s.Other...)
	if s.ReportAuthoring != nil {
		out = append(out, s.ReportAuthoring)
	}
	return out
}

// Render serializes the sidecar as okstra does: the head, then one chunk per
// section, each opened by a blank line — answers, PLAN DECISION, other
// sections, REPORT AUTHORING.
func (s *Sidecar) Render() string {
	var b strings.Builder
	b.WriteString("# " + s.Title + "\n\n")
	b.WriteString("- Created At: " + s.CreatedAt + "\n")
	b.WriteString("- Source Report: " + s.SourceReport + "\n")
	for _, l := range s.HeadExtra {
		b.WriteString(l + "\n")
	}
	for _, sec := range s.sections() {
		b.WriteString(sec.render())
	}
	return b.String()
}

// RunMeta is what a report's path says about its run.
type RunMeta struct {
	TaskKey  string
	TaskType string
	Seq      string
}

var reportNameRE = &lazyre.Regexp{Pattern: `^final-report-(.+)-([0-9]+)(?:\.[^/]*)?\.md$`}

// InferRunMeta reads task key, task type and run seq from a report path laid
// out as okstra lays it out:
// .okstra/tasks/<task-key>/runs/<task-type>/reports/final-report-<task-type>-<seq>.md.
// Parts it cannot find stay empty.
func InferRunMeta(reportPath string) RunMeta {
	var m RunMeta
	p := filepath.ToSlash(reportPath)
	if mm := reportNameRE.Get().FindStringSubmatch(filepath.Base(p)); mm != nil {
		m.TaskType, m.Seq = mm[1], mm[2]
	}
	parts := strings.Split(p, "/")
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == "tasks" && i > 0 && parts[i-1] == ".okstra" {
			m.TaskKey = parts[i+1]
		}
		if parts[i] == "runs" && m.TaskType == "" && i+1 < len(parts)-1 {
			m.TaskType = parts[i+1]
		}
	}
	return m
}

// SidecarDir is where the sidecars of a report live: a user-responses/
// directory beside the report, as okstra's user_responses_dir_for_report.
func SidecarDir(reportPath string) string {
	return filepath.Join(filepath.Dir(reportPath), "user-responses")
}

// SidecarPath is the sidecar of a report:
// <report dir>/user-responses/user-response-<stem>.md, where <stem> is the
// report's name without ".md" and without a leading "final-report-"
// (final-report-feature-analysis-002.md → user-response-feature-analysis-002.md).
func SidecarPath(reportPath string) string {
	stem := strings.TrimSuffix(filepath.Base(reportPath), ".md")
	stem = strings.TrimPrefix(stem, "final-report-")
	return filepath.Join(SidecarDir(reportPath), "user-response-"+stem+".md")
}

// projectRootOf infers the project root from a path inside .okstra/: the
// directory that holds .okstra. "" when the path has no .okstra segment.
func projectRootOf(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	parts := strings.Split(filepath.ToSlash(abs), "/")
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == ".okstra" {
			return filepath.FromSlash(strings.Join(parts[:i], "/"))
		}
	}
	return ""
}

// projectRel renders p relative to the project root (given, or inferred from
// .okstra in the path), in slash form; p as given when it is outside.
func projectRel(root, p string) string {
	if root == "" {
		root = projectRootOf(p)
	}
	if root == "" {
		return filepath.ToSlash(p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	// A relative root ("." from --project-root .) is relative to the working
	// directory, like p: make it absolute, or Rel of an absolute p fails and
	// the absolute path would be stored.
	if r, err := filepath.Abs(root); err == nil {
		root = r
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(d, filepath.Base(abs))
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}

// WriteRequest is one `user-response write`.
type WriteRequest struct {
	// Report is the report the answers belong to; it must exist, unless
	// ReportPending says the answers come before it (a gate mid-run).
	Report        string
	ReportPending bool
	// ProjectRoot, when set, is what Source Report is relative to; otherwise
	// the directory holding .okstra in the report's path.
	ProjectRoot string
	// TaskKey overrides the task key read from the report's path (title).
	TaskKey         string
	Answers         []Answer
	PlanDecision    *PlanDecision
	ReportAuthoring *ReportAuthoring
	// Okstra writes as okstra's write_sidecar does (`user-response write`,
	// the seed): Created At is now on every write, and the file holds the
	// merged answers and only the PLAN DECISION and REPORT AUTHORING this
	// call passes — any other section is dropped. Without it (the gates'
	// own writes, one answer at a time) every section stays.
	Okstra bool
}

// Write records answers (and optionally a plan decision and a report
// authoring decision) in the sidecar of reportPath and returns the sidecar's
// path. See WriteSidecar.
func Write(reportPath string, answers []Answer, planDecision *PlanDecision, reportAuthoring *ReportAuthoring) (string, error) {
	return WriteSidecar(WriteRequest{Report: reportPath, Answers: answers, PlanDecision: planDecision, ReportAuthoring: reportAuthoring})
}

// WriteSidecar merges the request into the report's sidecar, under the
// sidecar's lock, and replaces the file atomically. An answer replaces the
// section of its id where it stands (its other bullets stay); new ids are
// appended, as okstra's write_sidecar merges. A plan decision or report
// authoring decision replaces the section of that name; when the request
// carries none, the section already in the file stays (okstra would drop it;
// a later answer must not erase a permission the user gave). Other sections
// and the file's Created At stay. Every input is checked before the file is
// touched: a bad one writes nothing.
func WriteSidecar(req WriteRequest) (string, error) {
	if req.Report == "" {
		return "", &state.Error{Field: "--report", Msg: "is required; pass the report the answers belong to"}
	}
	if st, err := os.Stat(req.Report); (err != nil && !req.ReportPending) || (err == nil && st.IsDir()) {
		return "", &state.Error{Field: "--report", Msg: fmt.Sprintf("%s is not a report file; pass the path of an existing final report", req.Report)}
	}
	seen := map[string]bool{}
	for i, a := range req.Answers {
		at := fmt.Sprintf("--answers[%d]", i)
		if err := CheckID(a.ClarificationID); err != nil {
			return "", &state.Error{Field: at + ".clarificationId", Msg: err.Error(), Err: err}
		}
		if seen[a.ClarificationID] {
			return "", &state.Error{Field: at, Msg: fmt.Sprintf("answers %s a second time; give one answer per row", a.ClarificationID)}
		}
		seen[a.ClarificationID] = true
		if blank(a.Answer) {
			return "", &state.Error{Field: at + ".answer", Msg: fmt.Sprintf("is empty; give the user's answer to %s", a.ClarificationID)}
		}
		if a.Disposition != "" && !oneOf(a.Disposition, Dispositions) {
			return "", &state.Error{Field: at + ".disposition", Msg: fmt.Sprintf("is %q; expected %s", a.Disposition, listOr(Dispositions))}
		}
	}
	var planChunk, authoringChunk string
	if d := req.PlanDecision; d != nil && d.Status != "" {
		c, err := SerializePlanDecision(*d)
		if err != nil {
			return "", &state.Error{Field: "--plan-decision", Msg: err.Error(), Err: err}
		}
		planChunk = c
	}
	// As okstra: a report-authoring object without a status is no decision.
	if d := req.ReportAuthoring; d != nil && d.Status != "" {
		c, err := SerializeReportAuthoring(*d)
		if err != nil {
			return "", &state.Error{Field: "--report-authoring", Msg: err.Error(), Err: err}
		}
		authoringChunk = c
	}
	path := SidecarPath(req.Report)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	err := state.WithLock(path, func() error {
		old, err := state.ReadRegular(path, path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			if state.IsNotRegular(err) {
				return err
			}
			return fmt.Errorf("read sidecar %s: %w", path, err)
		}
		s := ParseSidecar(old)
		if s.Title == "" {
			s.Title = sidecarTitle(req)
		}
		if s.CreatedAt == "" || req.Okstra {
			s.CreatedAt = state.Timestamp(state.Now())
		}
		if req.Okstra {
			s.PlanDecision, s.ReportAuthoring, s.Other, s.HeadExtra = nil, nil, nil, nil
		}
		// An absolute Source Report naming this very report (written by
		// an earlier cockpit from `--project-root .`) is made
		// project-relative; any other value stays as written.
		if s.SourceReport == "" || (filepath.IsAbs(s.SourceReport) && sameFile(s.SourceReport, req.Report)) {
			s.SourceReport = projectRel(req.ProjectRoot, req.Report)
		}
		for _, a := range req.Answers {
			e := s.Entry(a.ClarificationID)
			if e == nil {
				e = &Section{Heading: a.ClarificationID}
				s.Entries = append(s.Entries, e)
			}
			// A value with a control character is written quoted, its
			// controls escaped (plainField): a NUL or an escape sequence in
			// an answer (OSC 52 writes a terminal's clipboard) never reaches
			// okstra's Markdown raw.
			e.set("Answer", a.Answer)
			e.set("Disposition", a.Disposition)
			e.set("Note", a.Note)
		}
		if planChunk != "" {
			s.PlanDecision = chunkSection(planChunk)
		}
		if authoringChunk != "" {
			s.ReportAuthoring = chunkSection(authoringChunk)
		}
		out := []byte(s.Render())
		if bytes.Equal(out, old) {
			return nil
		}
		return state.WriteFileAtomic(path, out, 0o644)
	})
	if err != nil {
		return "", err
	}
	return path, nil
}

// chunkSection turns a serialized chunk back into a section that renders to
// the same bytes.
func chunkSection(chunk string) *Section {
	s := ParseSidecar([]byte(chunk))
	for _, sec := range s.sections() {
		return sec
	}
	return &Section{}
}

func sidecarTitle(req WriteRequest) string {
	m := InferRunMeta(req.Report)
	if req.TaskKey != "" {
		m.TaskKey = req.TaskKey
	}
	var parts []string
	for _, p := range []string{m.TaskKey, m.TaskType, m.Seq} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		parts = []string{filepath.Base(req.Report)}
	}
	return "User Response — " + strings.Join(parts, " ")
}

// ReadSidecar reads the sidecar of reportPath; (nil, nil) when there is none.
func ReadSidecar(reportPath string) (*Sidecar, error) {
	data, err := os.ReadFile(SidecarPath(reportPath))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read sidecar: %w", err)
	}
	return ParseSidecar(data), nil
}

func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// CheckSidecarWritable reports, before a gate asks, whether the answer to
// reportPath could be written: its sidecar, when it exists, must be a
// regular file the user has not made read-only, and its directory (or the
// nearest one that exists) writable. One line naming the file.
func CheckSidecarWritable(reportPath string) error {
	p := SidecarPath(reportPath)
	if st, err := os.Lstat(p); err == nil {
		if !st.Mode().IsRegular() && st.Mode()&fs.ModeSymlink == 0 {
			return &state.NotRegularError{File: p, Mode: st.Mode().Type()}
		}
		if st.Mode().IsRegular() && st.Mode().Perm()&0o200 == 0 {
			return &state.ReadOnlyError{File: p, Mode: st.Mode()}
		}
	}
	dir := filepath.Dir(p)
	for {
		st, err := os.Stat(dir)
		if err == nil {
			if !st.IsDir() {
				return &state.Error{File: dir, Msg: "is not a directory; the user-response sidecar cannot be written under it"}
			}
			if st.Mode().Perm()&0o200 == 0 || unix.Access(dir, unix.W_OK) != nil {
				return &state.Error{File: dir, Msg: fmt.Sprintf("is not writable (mode %04o); the user-response sidecar cannot be written there", st.Mode().Perm())}
			}
			return nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}
