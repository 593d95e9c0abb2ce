package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"unsafe"

	"github.com/okstra/cockpit/state/internal/rawjson"
)

// Team-state is the one run file rewritten on every dispatch and settle, by
// many writers, and it grows with every attempt. Its codec keeps the cost of
// an update proportional to what the update changed, not to the file:
//
//   - workerDispatches is decoded without reflection (teamstate_dispatch.go);
//   - runs of dispatches the update did not touch are found with one memory
//     comparison per run and copied to the new file as one slice of the old
//     bytes (which also keeps foreign members and formatting exactly);
//   - the process that wrote the file last hands its decoded state to its
//     next writer (tsCache), so a busy cockpit does not decode its own writes.
//
// Only the read, the write and a few memory-speed passes scale with size.
// It decodes as encoding/json decodes a TeamState (FuzzTeamStateCodec holds
// it to that), and keeps members it does not know as rawjson does.

// span is a half-open byte range of a document.
type span struct{ start, end int }

func (s span) of(b []byte) []byte { return b[s.start:s.end] }

// teamStateDoc remembers where a decoded team-state came from.
type teamStateDoc struct {
	data     []byte
	members  []memberSpan
	disp     []span     // each workerDispatches element in data
	dispOrig []Dispatch // each element as decoded; nil: reuse no element as it is
	ids      map[string]struct{}
}

type memberSpan struct {
	key, val span
	name     string // the TeamState member it is ("" for a foreign member)
}

// The TeamState members, as their tags name them.
const (
	tsTeamName         = "teamName"
	tsTeamCreate       = "teamCreate"
	tsWorkers          = "workers"
	tsWorkerDispatches = "workerDispatches"
)

var teamStateNames = []string{tsTeamName, tsTeamCreate, tsWorkers, tsWorkerDispatches}

// teamStateFields matches member names spelt otherwise than the tags spell
// them; made on first use (an init would cost every command).
var teamStateFields = sync.OnceValue(func() *rawjson.Fields { return rawjson.NewFields(teamStateNames...) })

// teamStateMember returns the TeamState member key names, or "".
func teamStateMember(key []byte) string {
	switch string(key) {
	case `"teamName"`:
		return tsTeamName
	case `"teamCreate"`:
		return tsTeamCreate
	case `"workers"`:
		return tsWorkers
	case `"workerDispatches"`:
		return tsWorkerDispatches
	}
	name, _ := teamStateFields().Match(key)
	return name
}

func decodeTeamState(data []byte, display string) (*TeamState, *teamStateDoc, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, &Error{File: display, Msg: "is empty; expected a JSON object"}
	}
	if !json.Valid(data) {
		var v any
		return nil, nil, jsonError(display, data, json.Unmarshal(data, &v))
	}
	start := rawjson.SkipSpace(data, 0)
	if data[start] != '{' {
		return nil, nil, &Error{File: display, Msg: "is not a JSON object"}
	}
	end, err := rawjson.End(data, start)
	if err != nil {
		return nil, nil, &Error{File: display, Msg: err.Error(), Err: err}
	}
	members, err := rawjson.SplitObject(data[start:end])
	if err != nil {
		return nil, nil, &Error{File: display, Msg: err.Error(), Err: err}
	}
	ts := &TeamState{}
	doc := &teamStateDoc{data: data, members: make([]memberSpan, 0, len(members))}
	seen := map[string]bool{}
	repeated := false
	for _, m := range members {
		name := teamStateMember(m.Key)
		doc.members = append(doc.members, memberSpan{key: spanIn(data, m.Key), val: spanIn(data, m.Val), name: name})
		repeated = repeated || seen[name]
		seen[name] = name != ""
		var err error
		switch name {
		case tsTeamName:
			err = json.Unmarshal(m.Val, &ts.TeamName)
		case tsTeamCreate:
			err = json.Unmarshal(m.Val, &ts.TeamCreate)
		case tsWorkers:
			err = json.Unmarshal(m.Val, &ts.Workers)
		case tsWorkerDispatches:
			if derr := decodeDispatches(m.Val, ts, doc, data, display); derr != nil {
				return nil, nil, derr
			}
		}
		if err != nil {
			return nil, nil, jsonError(display, m.Val, fieldErr(err, name))
		}
	}
	if err := ts.validate(display); err != nil {
		return nil, nil, err
	}
	if repeated {
		// A member written twice decodes as encoding/json decodes it (the
		// later one laid over the earlier), so no single element's bytes
		// are its decoded value: every element is encoded anew.
		doc.dispOrig = nil
		return ts, doc, nil
	}
	doc.dispOrig = append([]Dispatch(nil), ts.WorkerDispatches...)
	doc.ids = make(map[string]struct{}, len(ts.WorkerDispatches))
	for i := range ts.WorkerDispatches {
		doc.ids[ts.WorkerDispatches[i].DispatchID] = struct{}{}
	}
	return ts, doc, nil
}

// decodeDispatches decodes the workerDispatches array val into ts, as
// encoding/json does: null empties it, and an element is decoded over the
// element at its index that an earlier workerDispatches member left.
func decodeDispatches(val []byte, ts *TeamState, doc *teamStateDoc, data []byte, display string) error {
	if val[0] == 'n' {
		ts.WorkerDispatches, doc.disp = nil, nil
		return nil
	}
	if val[0] != '[' {
		return errf(display, tsWorkerDispatches, "is %s; expected an array", jsonKind(val))
	}
	elems, err := rawjson.SplitArray(val)
	if err != nil {
		return wrapf(err, display, tsWorkerDispatches, "%v", err)
	}
	ds := make([]Dispatch, len(elems))
	copy(ds, ts.WorkerDispatches)
	doc.disp = make([]span, len(elems))
	var scratch []rawjson.Member
	for i, e := range elems {
		var derr *decodeErr
		if scratch, derr = decodeDispatchInto(e, &ds[i], scratch); derr != nil {
			return wrapf(derr.err, display, fmt.Sprintf("%s[%d]%s", tsWorkerDispatches, i, derr.at()), "%s", derr.msg)
		}
		doc.disp[i] = spanIn(data, e)
	}
	ts.WorkerDispatches = ds
	return nil
}

// spanIn locates sub, a subslice of b, as a span of b.
func spanIn(b, sub []byte) span {
	if len(sub) == 0 {
		return span{}
	}
	off := int(uintptr(unsafe.Pointer(&sub[0])) - uintptr(unsafe.Pointer(&b[0])))
	return span{off, off + len(sub)}
}

// fieldErr fills in the field of a type error raised while decoding one
// member on its own.
func fieldErr(err error, field string) error {
	if te, ok := err.(*json.UnmarshalTypeError); ok {
		if te.Field == "" {
			te.Field = field
		} else {
			te.Field = field + "." + te.Field
		}
	}
	return err
}

func jsonKind(v []byte) string {
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// validateUpdate checks the dispatch ids after fn changed ts, looking only
// at dispatches that changed. It returns the id set of the result and the
// runs of dispatches left as they were, for the encoder.
func validateUpdate(ts *TeamState, doc *teamStateDoc, file string) (map[string]struct{}, []span, error) {
	ds := ts.WorkerDispatches
	var runs []span
	var changed []int
	for i := 0; doc != nil && i < len(ds); {
		j := unchangedRun(ds, doc.dispOrig, i)
		if j > i {
			runs = append(runs, span{i, j})
			i = j
			continue
		}
		changed = append(changed, i)
		i++
	}
	if doc == nil || doc.ids == nil || len(ds) < len(doc.dispOrig) {
		if err := ts.validate(file); err != nil {
			return nil, nil, err
		}
		ids := make(map[string]struct{}, len(ds))
		for i := range ds {
			ids[ds[i].DispatchID] = struct{}{}
		}
		return ids, runs, nil
	}
	ids := doc.ids
	for _, i := range changed {
		if i < len(doc.dispOrig) {
			delete(ids, doc.dispOrig[i].DispatchID)
		}
	}
	for _, i := range changed {
		id := ds[i].DispatchID
		if id == "" {
			return nil, nil, errf(file, fmt.Sprintf("workerDispatches[%d].dispatchId", i), "is missing")
		}
		if _, dup := ids[id]; dup {
			return nil, nil, errf(file, fmt.Sprintf("workerDispatches[%d].dispatchId", i), "%q appears twice", id)
		}
		ids[id] = struct{}{}
	}
	return ids, runs, nil
}

// encodeTeamState writes ts over the document it was decoded from (nil for
// a new file): members in their old order, unknown members and unchanged
// dispatches byte for byte, changed values merged over their old bytes, new
// members appended. It returns the bytes and the document they form, so the
// writer can remember what it wrote without decoding it again.
func encodeTeamState(ts *TeamState, doc *teamStateDoc, ids map[string]struct{}, runs []span) ([]byte, *teamStateDoc, error) {
	if doc == nil {
		doc = &teamStateDoc{}
	}
	e := &tsEncoder{ts: ts, doc: doc, runs: runs}
	e.out.Grow(len(doc.data) + 512*(len(ts.WorkerDispatches)-len(doc.dispOrig)+1) + 256)
	e.out.WriteString("{")
	var written [4]bool
	for _, m := range doc.members {
		for k, n := range teamStateNames {
			written[k] = written[k] || n == m.name
		}
		if err := e.member(m.name, m.key.of(doc.data), m.val.of(doc.data)); err != nil {
			return nil, nil, err
		}
	}
	for k, n := range teamStateNames {
		if !written[k] {
			if err := e.member(n, nil, nil); err != nil {
				return nil, nil, err
			}
		}
	}
	e.out.WriteString("\n}\n")
	nd := &teamStateDoc{
		data:     e.out.Bytes(),
		members:  e.members,
		disp:     e.disp,
		dispOrig: append([]Dispatch(nil), ts.WorkerDispatches...),
		ids:      ids,
	}
	return nd.data, nd, nil
}

type tsEncoder struct {
	ts      *TeamState
	doc     *teamStateDoc
	out     bytes.Buffer
	members []memberSpan
	disp    []span
	runs    []span // runs of dispatches unchanged since doc, ascending
}

// member writes one top-level member: name is the TeamState member it is
// ("" for a foreign one, written as it was), key its key as written (nil
// for a new member) and old its previous value (nil for a new member).
func (e *tsEncoder) member(name string, key, old []byte) error {
	var nv []byte
	var err error
	switch name {
	case tsTeamName:
		nv, err = json.Marshal(e.ts.TeamName)
	case tsTeamCreate:
		if e.ts.TeamCreate != nil {
			nv, err = json.Marshal(e.ts.TeamCreate)
		}
	case tsWorkers:
		if e.ts.Workers == nil {
			nv = []byte("[]")
		} else {
			nv, err = json.Marshal(e.ts.Workers)
		}
	}
	if err != nil {
		return err
	}
	if nv == nil && old == nil && name != tsWorkerDispatches {
		return nil
	}
	if len(e.members) > 0 {
		e.out.WriteByte(',')
	}
	e.out.WriteString("\n  ")
	ks := e.out.Len()
	if key == nil {
		e.out.WriteString(`"` + name + `"`)
	} else {
		e.out.Write(key)
	}
	ke := e.out.Len()
	e.out.WriteString(": ")
	vs := e.out.Len()
	switch {
	case name == tsWorkerDispatches:
		err = e.dispatches()
	case nv == nil:
		e.out.Write(old)
	default:
		err = writeMerged(&e.out, old, nv, "  ")
	}
	e.members = append(e.members, memberSpan{key: span{ks, ke}, val: span{vs, e.out.Len()}, name: name})
	return err
}

// dispatches writes the workerDispatches array. A document that holds the
// array twice gets it twice; the later one is the one remembered.
func (e *tsEncoder) dispatches() error {
	ds := e.ts.WorkerDispatches
	e.disp = make([]span, len(ds))
	if len(ds) == 0 {
		e.out.WriteString("[]")
		return nil
	}
	old := e.doc
	runs := e.runs
	e.out.WriteString("[")
	for i := 0; i < len(ds); {
		if i > 0 {
			e.out.WriteByte(',')
		}
		e.out.WriteString("\n    ")
		for len(runs) > 0 && runs[0].end <= i {
			runs = runs[1:]
		}
		if len(runs) > 0 && runs[0].start == i {
			j := runs[0].end
			// One copy for the whole run, separators included.
			from := old.disp[i].start
			shift := e.out.Len() - from
			e.out.Write(old.data[from:old.disp[j-1].end])
			for k := i; k < j; k++ {
				e.disp[k] = span{old.disp[k].start + shift, old.disp[k].end + shift}
			}
			i = j
			continue
		}
		nv, err := json.Marshal(&ds[i])
		if err != nil {
			return err
		}
		var prev []byte
		if i < len(old.disp) {
			prev = old.disp[i].of(old.data)
		}
		start := e.out.Len()
		if err := writeMerged(&e.out, prev, nv, "    "); err != nil {
			return err
		}
		e.disp[i] = span{start, e.out.Len()}
		i++
	}
	e.out.WriteString("\n  ]")
	return nil
}

// writeMerged writes newer merged over older (which may be nil), indented
// for a value whose first line sits at prefix.
func writeMerged(out *bytes.Buffer, older, newer []byte, prefix string) error {
	val := newer
	if older != nil {
		if rawjson.Equal(older, newer) {
			out.Write(older)
			return nil
		}
		var compact, merged bytes.Buffer
		if err := json.Compact(&compact, older); err != nil {
			return err
		}
		if err := rawjson.Merge(&merged, compact.Bytes(), newer); err != nil {
			return err
		}
		val = merged.Bytes()
	}
	return json.Indent(out, val, prefix, "  ")
}
