package approval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/okstra/cockpit/state"
)

// ledgerDoc is a ledger file decoded member by member, so a rewrite keeps
// what it does not know.
type ledgerDoc struct {
	display string
	top     *object
	rowObjs []*object
	rows    []Row
}

func fileErr(display, field, format string, args ...any) *state.Error {
	return &state.Error{File: display, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// wrapFileErr is fileErr keeping err as the underlying error.
func wrapFileErr(err error, display, field, format string, args ...any) *state.Error {
	e := fileErr(display, field, format, args...)
	e.Err = err
	return e
}

func parseLedger(data []byte, display string) (*ledgerDoc, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fileErr(display, "", "is empty; expected a JSON object with rows, or remove the file to start a new ledger")
	}
	top, err := parseObject(data)
	if err != nil {
		return nil, wrapFileErr(err, display, "", "is not a valid ledger (%v); restore it from the run, or remove it to start a new ledger", err)
	}
	d := &ledgerDoc{display: display, top: top}
	for _, k := range []string{"schemaVersion", "taskKey"} {
		if raw, ok := top.get(k); ok && string(raw) != "null" {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, fileErr(display, k, "is not a string")
			}
		}
	}
	raw, ok := top.get("rows")
	if !ok || string(raw) == "null" {
		return d, nil
	}
	elems, err := splitArray(raw)
	if err != nil {
		return nil, fileErr(display, "rows", "is not an array of rows")
	}
	for i, e := range elems {
		at := fmt.Sprintf("rows[%d]", i)
		obj, err := splitCompact(e)
		if err != nil {
			return nil, fileErr(display, at, "is not a row object")
		}
		var r Row
		if err := json.Unmarshal(e, &r); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) {
				return nil, fileErr(display, at+"."+typ.Field, "is a JSON %s; expected %s", typ.Value, typ.Type.String())
			}
			return nil, wrapFileErr(err, display, at, "%v", err)
		}
		d.rowObjs = append(d.rowObjs, obj)
		d.rows = append(d.rows, r)
	}
	return d, nil
}

func (d *ledgerDoc) str(k string) string {
	raw, ok := d.top.get(k)
	if !ok {
		return ""
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func (d *ledgerDoc) index(id string) int {
	for i, r := range d.rows {
		if r.ClarificationID == id {
			return i
		}
	}
	return -1
}

// appendRow adds r as the last row.
func (d *ledgerDoc) appendRow(r Row) error {
	raw, err := marshal(r)
	if err != nil {
		return err
	}
	obj, err := splitCompact(raw) // marshal writes compact JSON
	if err != nil {
		return err
	}
	d.rowObjs = append(d.rowObjs, obj)
	d.rows = append(d.rows, r)
	return nil
}

// setMember sets one member of row i, in place, in the file and in the typed
// view.
func (d *ledgerDoc) setMember(i int, k string, v any) error {
	if err := d.rowObjs[i].set(k, v); err != nil {
		return err
	}
	return json.Unmarshal(d.rowObjs[i].compact(), &d.rows[i])
}

// setOptions sets the options of row i to its first keep options as the
// file holds them (members the cockpit does not know stay) followed by add.
func (d *ledgerDoc) setOptions(i, keep int, add []Option) error {
	var elems [][]byte
	if raw, ok := d.rowObjs[i].get("options"); ok && string(raw) != "null" {
		var err error
		if elems, err = splitArray(raw); err != nil {
			return fileErr(d.display, fmt.Sprintf("rows[%d].options", i), "is not an array of options")
		}
	}
	if keep > len(elems) {
		keep = len(elems)
	}
	elems = elems[:keep]
	for _, o := range add {
		raw, err := marshal(o)
		if err != nil {
			return err
		}
		elems = append(elems, raw)
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for k, e := range elems {
		if k > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteByte(']')
	d.rowObjs[i].setRaw("options", b.Bytes())
	return json.Unmarshal(d.rowObjs[i].compact(), &d.rows[i])
}

func (d *ledgerDoc) encode() ([]byte, error) {
	var rows bytes.Buffer
	rows.WriteByte('[')
	for i, o := range d.rowObjs {
		if i > 0 {
			rows.WriteByte(',')
		}
		rows.Write(o.compact())
	}
	rows.WriteByte(']')
	d.top.setRaw("rows", rows.Bytes())
	return indent(d.top.compact())
}

// nextFreeID proposes the id after the highest C-NNN of the ledger, keeping
// the width of the ids already used.
func (d *ledgerDoc) nextFreeID() string {
	high, width := 0, 3
	for _, r := range d.rows {
		if n, err := strconv.Atoi(strings.TrimPrefix(r.ClarificationID, "C-")); err == nil && strings.HasPrefix(r.ClarificationID, "C-") {
			if n > high {
				high = n
			}
			if w := len(r.ClarificationID) - 2; w > width {
				width = w
			}
		}
	}
	return fmt.Sprintf("C-%0*d", width, high+1)
}
