package approval

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/okstra/cockpit/state"
)

// SchemaVersion is written into a ledger the cockpit creates.
const SchemaVersion = "1.0"

// Ledger is an approval-decision ledger as read: its rows carry their
// effective status (see Read).
type Ledger struct {
	SchemaVersion string `json:"schemaVersion"`
	TaskKey       string `json:"taskKey"`
	Rows          []Row  `json:"rows"`
}

// Row returns the row with id, or nil.
func (l *Ledger) Row(id string) *Row {
	for i := range l.Rows {
		if l.Rows[i].ClarificationID == id {
			return &l.Rows[i]
		}
	}
	return nil
}

// Open returns the rows whose status is open, in ledger order.
func (l *Ledger) Open() []Row {
	var out []Row
	for _, r := range l.Rows {
		if r.Status == StatusOpen {
			out = append(out, r)
		}
	}
	return out
}

// effectiveRows applies the supersession rule to rows: a row superseded by a
// resolved row reads obsolete, whatever its stored status. The cockpit also
// writes that status when it resolves the superseding row; applying the rule
// on read as well makes a ledger written by another tool read the same.
func effectiveRows(rows []Row) []Row {
	out := make([]Row, len(rows))
	copy(out, rows)
	idx := map[string]int{}
	for i, r := range out {
		idx[r.ClarificationID] = i
	}
	for _, r := range rows {
		if r.Status != StatusResolved || r.Supersedes == "" {
			continue
		}
		if j, ok := idx[r.Supersedes]; ok {
			out[j].Status = StatusObsolete
			if out[j].ObsoletedBy == "" {
				out[j].ObsoletedBy = r.ClarificationID
			}
		}
	}
	return out
}

// Read reads the ledger at path. Each row's Status is its effective status:
// a row superseded by a resolved row reads obsolete even when the file still
// says answered (see docs/GATES.md).
func Read(path string) (*Ledger, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fileErr(path, "", "does not exist; open a row first with `approval-decision open`, or check --ledger")
	}
	if err != nil {
		return nil, fmt.Errorf("read ledger %s: %w", path, err)
	}
	d, err := parseLedger(data, path)
	if err != nil {
		return nil, err
	}
	return &Ledger{SchemaVersion: d.str("schemaVersion"), TaskKey: d.str("taskKey"), Rows: effectiveRows(d.rows)}, nil
}

// List returns the rows of the ledger at path whose effective status is one
// of statuses (every row when none is given), in ledger order.
func List(path string, statuses ...string) ([]Row, error) {
	l, err := Read(path)
	if err != nil {
		return nil, err
	}
	if len(statuses) == 0 {
		return l.Rows, nil
	}
	var out []Row
	for _, r := range l.Rows {
		if oneOf(r.Status, statuses) {
			out = append(out, r)
		}
	}
	return out, nil
}

// update is the locked read-modify-write of a ledger. fn changes the
// decoded document and reports whether it changed anything; nothing is
// written when it fails or changes nothing, so a rejected input leaves the
// file byte for byte as it was.
func update(path string, create bool, taskKey string, fn func(d *ledgerDoc) (bool, error)) error {
	if path == "" {
		return &state.Error{Field: "--ledger", Msg: "is required; pass the approval-decision ledger's path"}
	}
	// The lock file lives beside the ledger, so its directory must exist
	// before the lock is taken.
	if dir := filepath.Dir(path); create {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create ledger directory: %w", err)
		}
	} else if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return fileErr(path, "", "does not exist; open a row first with `approval-decision open`, or check --ledger")
	}
	return state.WithLock(path, func() error {
		data, err := os.ReadFile(path)
		var d *ledgerDoc
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if !create {
				return fileErr(path, "", "does not exist; open a row first with `approval-decision open`, or check --ledger")
			}
			d = &ledgerDoc{display: path, top: newObject()}
			_ = d.top.set("schemaVersion", SchemaVersion)
			_ = d.top.set("taskKey", taskKey)
		case err != nil:
			return fmt.Errorf("read ledger %s: %w", path, err)
		default:
			if d, err = parseLedger(data, path); err != nil {
				return err
			}
			if have := d.str("taskKey"); taskKey != "" && have != "" && have != taskKey {
				return &state.Error{File: path, Field: "--task-key", Msg: fmt.Sprintf("is %q but the ledger belongs to task %q; pass the ledger of task %s", taskKey, have, taskKey)}
			}
		}
		changed, err := fn(d)
		if err != nil || !changed {
			return err
		}
		out, err := d.encode()
		if err != nil {
			return fmt.Errorf("encode ledger %s: %w", path, err)
		}
		return state.WriteFileAtomic(path, out, 0o644)
	})
}

func ruleToFileErr(path string, err error) error {
	var re *RuleError
	if errors.As(err, &re) {
		return &state.Error{File: path, Field: strings.TrimSpace(re.ID + " " + re.Field), Msg: re.Msg, Err: err}
	}
	return err
}

// Open adds row to the ledger at path as an open row, creating the ledger
// when it does not exist. supersedes, when not empty, names the carried or
// answered row the new one replaces: once the new row is resolved, that row
// reads obsolete. The row must pass CheckRow and its id must be new to the
// ledger. A row with fewer than two options, or without exactly one
// recommended, is recorded all the same: it is incomplete (Row.Incomplete),
// and AddOptions completes it. It returns the row as stored.
func Open(path string, row Row, supersedes string) (*Row, error) {
	return openRow(path, "", row, supersedes)
}

// OpenInTask is Open for a ledger of task taskKey: a ledger it creates
// records the key (`approval-decision open --task-key`).
func OpenInTask(path, taskKey string, row Row, supersedes string) (*Row, error) {
	return openRow(path, taskKey, row, supersedes)
}

func openRow(path, taskKey string, row Row, supersedes string) (*Row, error) {
	if supersedes != "" && row.Supersedes != "" && supersedes != row.Supersedes {
		return nil, &state.Error{Field: "--supersedes", Msg: fmt.Sprintf("is %s but the row says it supersedes %s; give one", supersedes, row.Supersedes)}
	}
	if supersedes != "" {
		row.Supersedes = supersedes
	}
	row.Status = StatusOpen
	row.Resolution = nil
	row.ObsoletedBy = ""
	row.Carried, row.CarriedFrom = false, ""
	row.fillScopeEffects()
	if err := CheckRow(row); err != nil {
		return nil, ruleToFileErr(path, err)
	}
	row.OpenedAt = state.Timestamp(state.Now())
	err := update(path, true, taskKey, func(d *ledgerDoc) (bool, error) {
		id := row.ClarificationID
		if i := d.index(id); i >= 0 {
			st := effectiveRows(d.rows)[i].Status
			msg := fmt.Sprintf("%s already exists (status %s); use the next free id, %s", id, st, d.nextFreeID())
			if st == StatusOpen {
				msg += fmt.Sprintf(", or add options to %s with `approval-decision option --clarification-id %s`", id, id)
			}
			return false, &state.Error{File: path, Field: "--clarification-id", Msg: msg}
		}
		if s := row.Supersedes; s != "" {
			if err := checkSupersedable(d, s); err != nil {
				return false, err
			}
		}
		return true, d.appendRow(row)
	})
	if err != nil {
		return nil, err
	}
	return &row, nil
}

// checkSupersedable checks that id names a carried or answered row that no
// other row supersedes yet.
func checkSupersedable(d *ledgerDoc, id string) error {
	eff := effectiveRows(d.rows)
	i := d.index(id)
	if i < 0 {
		return &state.Error{File: d.display, Field: "--supersedes", Msg: fmt.Sprintf("names %s, which is not a row of this ledger; carry it first (`approval-decision carry --clarification-id %s`) or name an existing answered row", id, id)}
	}
	for _, r := range eff {
		if r.Supersedes == id {
			return &state.Error{File: d.display, Field: "--supersedes", Msg: fmt.Sprintf("%s is already superseded by %s; supersede %s instead", id, r.ClarificationID, r.ClarificationID)}
		}
	}
	switch st := eff[i].Status; st {
	case StatusAnswered:
		return nil
	case StatusOpen:
		return &state.Error{File: d.display, Field: "--supersedes", Msg: fmt.Sprintf("%s is still open; only a carried or answered row can be superseded — resolve %s instead", id, id)}
	default:
		return &state.Error{File: d.display, Field: "--supersedes", Msg: fmt.Sprintf("%s is %s; only a carried or answered row can be superseded", id, st)}
	}
}

// fillScopeEffects gives an option without scopeEffects an empty array, as
// okstra writes it.
func (r *Row) fillScopeEffects() {
	opts := make([]Option, len(r.Options))
	for i, o := range r.Options {
		if o.ScopeEffects == nil {
			o.ScopeEffects = []string{}
		}
		opts[i] = o
	}
	r.Options = opts
}

// Resolve records the user's disposition of the open row id: the row becomes
// resolved with a resolution {disposition, userText, userResponseRef,
// resolvedAt}. When the row supersedes another, that row is written obsolete
// (with obsoletedBy) in the same atomic write. Resolving a resolved row again
// with the same disposition, text and reference changes nothing.
func Resolve(path, id, disposition, userText, userResponseRef string) (*Row, error) {
	if err := CheckID(id); err != nil {
		return nil, &state.Error{Field: "--clarification-id", Msg: err.Error(), Err: err}
	}
	if !oneOf(disposition, Dispositions) {
		return nil, &state.Error{Field: "--disposition", Msg: fmt.Sprintf("is %q; expected %s", disposition, listOr(Dispositions))}
	}
	if blank(userText) {
		return nil, &state.Error{Field: "--user-text", Msg: "is empty; give the user's answer in their words"}
	}
	if blank(userResponseRef) {
		return nil, &state.Error{Field: "--user-response-ref", Msg: "is empty; give the user-response sidecar (or section) that records the answer"}
	}
	var out Row
	err := update(path, false, "", func(d *ledgerDoc) (bool, error) {
		i := d.index(id)
		if i < 0 {
			return false, &state.Error{File: path, Field: "--clarification-id", Msg: fmt.Sprintf("%s is not a row of this ledger; open it first", id)}
		}
		eff := effectiveRows(d.rows)
		r := eff[i]
		res := &Resolution{Disposition: disposition, UserText: userText, UserResponseRef: userResponseRef}
		switch r.Status {
		case StatusOpen:
		case StatusResolved:
			if p := r.Resolution; p != nil && p.Disposition == disposition && p.UserText == userText && p.UserResponseRef == userResponseRef {
				out = r
				return false, nil
			}
			return false, &state.Error{File: path, Field: "--clarification-id", Msg: fmt.Sprintf("%s is already resolved with another answer; to change it, open a new row with --supersedes %s", id, id)}
		case StatusAnswered:
			return false, &state.Error{File: path, Field: "--clarification-id", Msg: fmt.Sprintf("%s was answered in an earlier run; to replace that answer, open a new row with --supersedes %s and resolve the new row", id, id)}
		case StatusObsolete:
			return false, &state.Error{File: path, Field: "--clarification-id", Msg: fmt.Sprintf("%s is obsolete (superseded by %s); resolve %s instead", id, r.ObsoletedBy, r.ObsoletedBy)}
		default:
			return false, &state.Error{File: path, Field: fmt.Sprintf("rows[%d].status", i), Msg: fmt.Sprintf("is %q; expected %s", r.Status, listOr(Statuses))}
		}
		if s := r.Supersedes; s != "" {
			j := d.index(s)
			if j < 0 {
				return false, &state.Error{File: path, Field: id + " supersedes", Msg: fmt.Sprintf("names %s, which is not a row of this ledger; restore that row before resolving %s", s, id)}
			}
			if err := d.setMember(j, "status", StatusObsolete); err != nil {
				return false, err
			}
			if err := d.setMember(j, "obsoletedBy", id); err != nil {
				return false, err
			}
		}
		res.ResolvedAt = state.Timestamp(state.Now())
		if err := d.setMember(i, "status", StatusResolved); err != nil {
			return false, err
		}
		if err := d.setMember(i, "resolution", res); err != nil {
			return false, err
		}
		out = d.rows[i]
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// AddOptions adds options to the open row id of the ledger at path, or with
// replace puts them in place of the row's options. Each option must pass
// CheckOption. An option equal to one the row already offers is skipped, so
// a repeated call changes nothing; an option that offers an answer the row
// already offers, differently, is refused (replace the options instead). The
// row may stay incomplete (Row.Incomplete): adding options one call at a
// time is allowed. It returns the row as stored.
func AddOptions(path, id string, opts []Option, replace bool) (*Row, error) {
	if err := CheckID(id); err != nil {
		return nil, &state.Error{Field: "--clarification-id", Msg: err.Error(), Err: err}
	}
	if len(opts) == 0 {
		return nil, &state.Error{Field: "--option", Msg: "is required; give each option as --option <json>, or a JSON array of them in --options-file"}
	}
	add := Row{Options: opts}
	add.fillScopeEffects()
	opts = add.Options
	for i, o := range opts {
		if err := CheckOption(o); err != nil {
			return nil, &state.Error{Field: fmt.Sprintf("option %d%s", i+1, err.Field), Msg: err.Msg}
		}
	}
	var out Row
	err := update(path, false, "", func(d *ledgerDoc) (bool, error) {
		i := d.index(id)
		if i < 0 {
			return false, &state.Error{File: path, Field: "--clarification-id", Msg: fmt.Sprintf("%s is not a row of this ledger; open it first with `approval-decision open`", id)}
		}
		r := effectiveRows(d.rows)[i]
		if r.Status != StatusOpen {
			return false, &state.Error{File: path, Field: "--clarification-id", Msg: fmt.Sprintf("%s is %s; only an open row takes options — open a new row with --supersedes %s to ask again", id, r.Status, id)}
		}
		var next []Option
		keep := 0 // options of the file kept as written, with their foreign members
		if !replace {
			next = append(next, d.rows[i].Options...)
			keep = len(next)
		}
		for k, o := range opts {
			dup := false
			for j, have := range next {
				if have.Answer != o.Answer {
					continue
				}
				if !sameOption(have, o) {
					what := fmt.Sprintf("offers %q, which %s options[%d] already offers differently", o.Answer, id, j)
					if replace {
						what = fmt.Sprintf("offers %q twice", o.Answer)
					}
					return false, &state.Error{File: path, Field: fmt.Sprintf("option %d", k+1), Msg: what + "; give each answer once, or --replace with the full list"}
				}
				dup = true
			}
			if !dup {
				next = append(next, o)
			}
		}
		if next == nil {
			next = []Option{}
		}
		if optionsEqual(next, d.rows[i].Options) {
			out = d.rows[i]
			return false, nil
		}
		if err := d.setOptions(i, keep, next[keep:]); err != nil {
			return false, err
		}
		out = d.rows[i]
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

func sameOption(a, b Option) bool {
	if a.Role != b.Role || a.Answer != b.Answer || a.Rationale != b.Rationale || a.Reach != b.Reach ||
		a.AddedWork != b.AddedWork || a.DirectionChange != b.DirectionChange || a.Disposition != b.Disposition ||
		len(a.ScopeEffects) != len(b.ScopeEffects) {
		return false
	}
	for i := range a.ScopeEffects {
		if a.ScopeEffects[i] != b.ScopeEffects[i] {
			return false
		}
	}
	return true
}

func optionsEqual(a, b []Option) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameOption(a[i], b[i]) {
			return false
		}
	}
	return true
}
