package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// Team-state is the one run file rewritten on every dispatch and settle, by
// many writers, and it grows with every attempt. Its codec keeps the cost of
// an update proportional to what the update changed, not to the file:
//
//   - workerDispatches is decoded without reflection;
//   - runs of dispatches the update did not touch are found with one memory
//     comparison per run and copied to the new file as one slice of the old
//     bytes (which also keeps foreign members and formatting exactly);
//   - the process that wrote the file last hands its decoded state to its
//     next writer (tsCache), so a busy cockpit does not decode its own writes.
//
// Only the read, the write and a few memory-speed passes scale with size.

// span is a half-open byte range of a document.
type span struct{ start, end int }

func (s span) of(b []byte) []byte { return b[s.start:s.end] }

// teamStateDoc remembers where a decoded team-state came from.
type teamStateDoc struct {
	data     []byte
	members  []memberSpan
	disp     []span     // each workerDispatches element in data
	dispOrig []Dispatch // each element as decoded
	ids      map[string]struct{}
}

type memberSpan struct {
	key, val span
}

func decodeTeamState(data []byte, display string) (*TeamState, *teamStateDoc, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, &Error{File: display, Msg: "is empty; expected a JSON object"}
	}
	if !json.Valid(data) {
		var v any
		return nil, nil, jsonError(display, data, json.Unmarshal(data, &v))
	}
	start := skipWS(data, 0)
	if data[start] != '{' {
		return nil, nil, &Error{File: display, Msg: "is not a JSON object"}
	}
	end, err := valueEnd(data, start)
	if err != nil {
		return nil, nil, &Error{File: display, Msg: err.Error(), Err: err}
	}
	members, err := splitObject(data[start:end])
	if err != nil {
		return nil, nil, &Error{File: display, Msg: err.Error(), Err: err}
	}
	ts := &TeamState{}
	doc := &teamStateDoc{data: data}
	for _, m := range members {
		ms := memberSpan{key: spanIn(data, m.key), val: spanIn(data, m.val)}
		doc.members = append(doc.members, ms)
		var err error
		switch string(m.key) {
		case `"teamName"`:
			err = json.Unmarshal(m.val, &ts.TeamName)
		case `"teamCreate"`:
			err = json.Unmarshal(m.val, &ts.TeamCreate)
		case `"workers"`:
			err = json.Unmarshal(m.val, &ts.Workers)
		case `"workerDispatches"`:
			if m.val[0] == 'n' {
				continue
			}
			if m.val[0] != '[' {
				return nil, nil, errf(display, "workerDispatches", "is %s; expected an array", jsonKind(m.val))
			}
			elems, serr := splitArray(m.val)
			if serr != nil {
				return nil, nil, errf(display, "workerDispatches", "%v", serr)
			}
			ts.WorkerDispatches = make([]Dispatch, len(elems))
			doc.disp = make([]span, len(elems))
			for i, e := range elems {
				if derr := decodeDispatch(e, &ts.WorkerDispatches[i]); derr != nil {
					return nil, nil, errf(display, fmt.Sprintf("workerDispatches[%d].%s", i, derr.field), "%s", derr.msg)
				}
				doc.disp[i] = spanIn(data, e)
			}
			doc.dispOrig = append([]Dispatch(nil), ts.WorkerDispatches...)
			continue
		default:
			continue
		}
		if err != nil {
			return nil, nil, jsonError(display, m.val, fieldErr(err, strings.Trim(string(m.key), `"`)))
		}
	}
	if err := ts.validate(display); err != nil {
		return nil, nil, err
	}
	doc.ids = make(map[string]struct{}, len(ts.WorkerDispatches))
	for i := range ts.WorkerDispatches {
		doc.ids[ts.WorkerDispatches[i].DispatchID] = struct{}{}
	}
	return ts, doc, nil
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

type decodeErr struct{ field, msg string }

// decodeDispatch decodes one workerDispatches element. Members it does not
// know are skipped (they stay in the raw bytes).
func decodeDispatch(raw []byte, d *Dispatch) *decodeErr {
	if raw[0] != '{' {
		return &decodeErr{"", "is " + jsonKind(raw) + "; expected an object"}
	}
	ms, err := splitObject(raw)
	if err != nil {
		return &decodeErr{"", err.Error()}
	}
	for _, m := range ms {
		key := string(m.key[1 : len(m.key)-1])
		var sp *string
		switch key {
		case "dispatchId":
			sp = &d.DispatchID
		case "dispatchKind":
			sp = &d.DispatchKind
		case "invocationRef":
			sp = &d.InvocationRef
		case "roleExecutionRef":
			sp = &d.RoleExecutionRef
		case "role":
			sp = &d.Role
		case "workerId":
			sp = &d.WorkerID
		case "provider":
			sp = &d.Provider
		case "model":
			sp = &d.Model
		case "executionLabel":
			sp = &d.ExecutionLabel
		case "promptPath":
			sp = &d.PromptPath
		case "resultPath":
			sp = &d.ResultPath
		case "statusPath":
			sp = &d.StatusPath
		case "logPath":
			sp = &d.LogPath
		case "metadataPath":
			sp = &d.MetadataPath
		case "backend":
			sp = &d.Backend
		case "paneId":
			sp = &d.PaneID
		case "status":
			sp = &d.Status
		case "reason":
			sp = &d.Reason
		case "dispatchedAt":
			sp = &d.DispatchedAt
		case "settledAt":
			sp = &d.SettledAt
		case "collectedAt":
			sp = &d.CollectedAt
		case "idleTimeoutSource":
			sp = &d.IdleTimeoutSource
		case "attempt", "pid", "exitCode", "idleTimeoutSeconds":
			if m.val[0] == 'n' { // null
				continue
			}
			n, err := strconv.Atoi(string(m.val))
			if err != nil {
				return &decodeErr{key, "is " + jsonKind(m.val) + "; expected an integer"}
			}
			switch key {
			case "attempt":
				d.Attempt = n
			case "pid":
				d.PID = n
			case "idleTimeoutSeconds":
				d.IdleTimeoutSeconds = n
			default:
				d.ExitCode = &n
			}
			continue
		default:
			continue
		}
		if m.val[0] == 'n' {
			*sp = ""
			continue
		}
		if m.val[0] != '"' {
			return &decodeErr{key, "is " + jsonKind(m.val) + "; expected a string"}
		}
		if bytes.IndexByte(m.val, '\\') < 0 {
			*sp = string(m.val[1 : len(m.val)-1])
			continue
		}
		if err := json.Unmarshal(m.val, sp); err != nil {
			return &decodeErr{key, "is not a valid string"}
		}
	}
	return nil
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

// dispatchBytes views ds as raw memory. Dispatch holds only 8-byte words
// (string headers, ints, a pointer), so it has no padding and a copy of an
// element the update did not touch compares equal byte for byte. A field set
// to an equal string at another address compares unequal; that only costs a
// re-encode, which then finds the JSON unchanged.
func dispatchBytes(ds []Dispatch) []byte {
	if len(ds) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&ds[0])), len(ds)*int(unsafe.Sizeof(ds[0])))
}

// unchangedRun returns j ≥ i such that ds[i:j] are byte-identical to
// orig[i:j], comparing in blocks first.
func unchangedRun(ds, orig []Dispatch, i int) int {
	limit := min(len(ds), len(orig))
	j := i
	for block := 64; j < limit; {
		n := min(block, limit-j)
		if bytes.Equal(dispatchBytes(ds[j:j+n]), dispatchBytes(orig[j:j+n])) {
			j += n
			continue
		}
		if n == 1 {
			return j
		}
		block = max(1, n/8)
	}
	return j
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
	written := map[string]bool{}
	for _, m := range doc.members {
		key := string(m.key.of(doc.data))
		written[key] = true
		if err := e.member(key, m.val.of(doc.data)); err != nil {
			return nil, nil, err
		}
	}
	for _, k := range []string{`"teamName"`, `"teamCreate"`, `"workers"`, `"workerDispatches"`} {
		if !written[k] {
			if err := e.member(k, nil); err != nil {
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

// member writes one top-level member; old is its previous value or nil.
func (e *tsEncoder) member(key string, old []byte) error {
	var nv []byte
	var err error
	switch key {
	case `"teamName"`:
		nv, err = json.Marshal(e.ts.TeamName)
	case `"teamCreate"`:
		if e.ts.TeamCreate != nil {
			nv, err = json.Marshal(e.ts.TeamCreate)
		}
	case `"workers"`:
		if e.ts.Workers == nil {
			nv = []byte("[]")
		} else {
			nv, err = json.Marshal(e.ts.Workers)
		}
	}
	if err != nil {
		return err
	}
	if nv == nil && old == nil && key != `"workerDispatches"` {
		return nil
	}
	if len(e.members) > 0 {
		e.out.WriteByte(',')
	}
	e.out.WriteString("\n  ")
	ks := e.out.Len()
	e.out.WriteString(key)
	ke := e.out.Len()
	e.out.WriteString(": ")
	vs := e.out.Len()
	switch {
	case key == `"workerDispatches"`:
		err = e.dispatches()
	case nv == nil:
		e.out.Write(old)
	default:
		err = writeMerged(&e.out, old, nv, "  ")
	}
	e.members = append(e.members, memberSpan{key: span{ks, ke}, val: span{vs, e.out.Len()}})
	return err
}

func (e *tsEncoder) dispatches() error {
	ds := e.ts.WorkerDispatches
	e.disp = make([]span, len(ds))
	if len(ds) == 0 {
		e.out.WriteString("[]")
		return nil
	}
	old := e.doc
	e.out.WriteString("[")
	for i := 0; i < len(ds); {
		if i > 0 {
			e.out.WriteByte(',')
		}
		e.out.WriteString("\n    ")
		for len(e.runs) > 0 && e.runs[0].end <= i {
			e.runs = e.runs[1:]
		}
		if len(e.runs) > 0 && e.runs[0].start == i {
			j := e.runs[0].end
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
		if jsonEqual(older, newer) {
			out.Write(older)
			return nil
		}
		var compact, merged bytes.Buffer
		if err := json.Compact(&compact, older); err != nil {
			return err
		}
		if err := mergeValue(&merged, compact.Bytes(), newer); err != nil {
			return err
		}
		val = merged.Bytes()
	}
	return json.Indent(out, val, prefix, "  ")
}

// jsonEqual compares two JSON texts ignoring whitespace outside strings.
func jsonEqual(a, b []byte) bool {
	i, j := 0, 0
	inStr := false
	for {
		if !inStr {
			i = skipWS(a, i)
			j = skipWS(b, j)
		}
		if i >= len(a) || j >= len(b) {
			return i >= len(a) && j >= len(b)
		}
		if a[i] != b[j] {
			return false
		}
		switch {
		case inStr && a[i] == '\\':
			if i+1 >= len(a) || j+1 >= len(b) || a[i+1] != b[j+1] {
				return false
			}
			i++
			j++
		case a[i] == '"':
			inStr = !inStr
		}
		i++
		j++
	}
}

// tsCache remembers, per team-state path, the last document this process
// wrote, and hands it to the next writer of that path, who then owns it. A
// writer that finds those exact bytes on disk (no one else wrote in between)
// skips decoding; any other bytes are decoded as usual, so the cache can only
// save work, never change a result.
var tsCache struct {
	sync.Mutex
	m map[string]tsCached
}

type tsCached struct {
	sum uint64
	ts  *TeamState
	doc *teamStateDoc
}

var tsSeed = maphash.MakeSeed()

func cacheTake(path string, data []byte) (*TeamState, *teamStateDoc) {
	tsCache.Lock()
	c, ok := tsCache.m[path]
	delete(tsCache.m, path)
	tsCache.Unlock()
	if !ok || len(c.doc.data) != len(data) || c.sum != maphash.Bytes(tsSeed, data) {
		return nil, nil
	}
	c.doc.data = data // identical bytes; drop the reference to the old buffer
	return c.ts, c.doc
}

func cachePut(path string, ts *TeamState, doc *teamStateDoc) {
	tsCache.Lock()
	defer tsCache.Unlock()
	if tsCache.m == nil || len(tsCache.m) > 64 {
		tsCache.m = map[string]tsCached{}
	}
	tsCache.m[path] = tsCached{sum: maphash.Bytes(tsSeed, doc.data), ts: ts, doc: doc}
}

// cachePeek returns a copy of the state this process last wrote to path
// when data are still those bytes, without taking it from the cache.
func cachePeek(path string, data []byte) *TeamState {
	// The copy is made under the lock: once a writer has taken the state
	// (cacheTake, under the same lock) it changes it in place.
	tsCache.Lock()
	defer tsCache.Unlock()
	c, ok := tsCache.m[path]
	if !ok || len(c.doc.data) != len(data) || c.sum != maphash.Bytes(tsSeed, data) {
		return nil
	}
	out := *c.ts
	out.Workers = append([]Worker(nil), c.ts.Workers...)
	out.WorkerDispatches = append([]Dispatch(nil), c.ts.WorkerDispatches...)
	if c.ts.TeamCreate != nil {
		tc := *c.ts.TeamCreate
		out.TeamCreate = &tc
	}
	return &out
}
