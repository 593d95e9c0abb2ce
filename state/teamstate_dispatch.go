package state

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/okstra/cockpit/state/internal/rawjson"
)

// The team-state codec reads Dispatch members by hand (decodeDispatch) and
// compares dispatches as raw memory (dispatchBytes). Both mirror the struct;
// TestDispatchCodecKnowsEveryMember holds the first to the struct's tags,
// and TestDispatchLayoutCheck (checkDispatchLayout, in the test) the second
// to its layout.
// The check is the test's, not an init's: fields of string, int and *int
// lie end to end on every GOARCH, so what it catches is a field of another
// kind added to the struct, on any machine the tests run on — and an init
// would make every command of the binary pay for reflecting over Dispatch.

// dispatchFields matches Dispatch member names that are not spelt as the
// tags spell them (another case, escapes); made on first use.
var dispatchFields = sync.OnceValue(func() *rawjson.Fields {
	t := reflect.TypeFor[Dispatch]()
	var names []string
	for i := range t.NumField() {
		names = append(names, jsonName(t.Field(i)))
	}
	return rawjson.NewFields(names...)
})

// jsonName is the member name encoding/json gives field f.
func jsonName(f reflect.StructField) string {
	tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if tag == "" {
		return f.Name
	}
	return tag
}

// decodeErr is a problem with one member of a dispatch.
type decodeErr struct {
	field, msg string
	err        error // the underlying error, if any
}

// at is the JSON path suffix the error names: ".field", or "" for the
// element itself.
func (e *decodeErr) at() string {
	if e.field == "" {
		return ""
	}
	return "." + e.field
}

// decodeDispatch decodes one workerDispatches element into d as
// encoding/json does: members in order, a later one over an earlier, null
// leaving a field as it is (or a pointer nil), names matched exactly or else
// without case. Members it does not know are skipped (they stay in the raw
// bytes).
func decodeDispatch(raw []byte, d *Dispatch) *decodeErr {
	_, derr := decodeDispatchInto(raw, d, nil)
	return derr
}

// decodeDispatchInto is decodeDispatch splitting into scratch, which it
// returns for the next element.
func decodeDispatchInto(raw []byte, d *Dispatch, scratch []rawjson.Member) ([]rawjson.Member, *decodeErr) {
	if raw[0] == 'n' {
		return scratch, nil
	}
	if raw[0] != '{' {
		return scratch, &decodeErr{field: "", msg: "is " + jsonKind(raw) + "; expected an object"}
	}
	ms, err := rawjson.AppendObject(scratch[:0], raw)
	if err != nil {
		return scratch, &decodeErr{"", err.Error(), err}
	}
	return ms, d.setMembers(ms)
}

func (d *Dispatch) setMembers(ms []rawjson.Member) *decodeErr {
	for _, m := range ms {
		known, derr := d.setMember(string(m.Key[1:len(m.Key)-1]), m.Val)
		if known || derr != nil {
			if derr != nil {
				return derr
			}
			continue
		}
		if name, ok := dispatchFields().Match(m.Key); ok {
			if _, derr := d.setMember(name, m.Val); derr != nil {
				return derr
			}
		}
	}
	return nil
}

// setMember decodes val into the field whose JSON name is key. It reports
// false for a name Dispatch does not have. Every tag of Dispatch needs its
// case here (TestDispatchCodecKnowsEveryMember).
func (d *Dispatch) setMember(key string, val []byte) (bool, *decodeErr) {
	var sp *string
	var ip *int
	switch key {
	case "dispatchId":
		sp = &d.DispatchID
	case "dispatchKind":
		sp = (*string)(&d.DispatchKind)
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
		sp = (*string)(&d.Status)
	case "reason":
		sp = &d.Reason
	case "dispatchedAt":
		sp = &d.DispatchedAt
	case "settledAt":
		sp = &d.SettledAt
	case "collectedAt":
		sp = &d.CollectedAt
	case "resultDigest":
		sp = &d.ResultDigest
	case "idleTimeoutSource":
		sp = &d.IdleTimeoutSource
	case "attempt":
		ip = &d.Attempt
	case "pid":
		ip = &d.PID
	case "idleTimeoutSeconds":
		ip = &d.IdleTimeoutSeconds
	case "exitCode":
		if val[0] == 'n' {
			d.ExitCode = nil
			return true, nil
		}
		n, derr := decodeInt(key, val)
		if derr == nil {
			d.ExitCode = &n
		}
		return true, derr
	default:
		return false, nil
	}
	if val[0] == 'n' { // null leaves the field as it is
		return true, nil
	}
	if ip != nil {
		n, derr := decodeInt(key, val)
		if derr == nil {
			*ip = n
		}
		return true, derr
	}
	if val[0] != '"' {
		return true, &decodeErr{field: strings.Clone(key), msg: "is " + jsonKind(val) + "; expected a string"}
	}
	if in := val[1 : len(val)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		*sp = string(in)
		return true, nil
	}
	// Escapes, or bytes that are not UTF-8 (read as U+FFFD).
	if err := json.Unmarshal(val, sp); err != nil {
		return true, &decodeErr{strings.Clone(key), "is not a valid string", err}
	}
	return true, nil
}

func decodeInt(key string, val []byte) (int, *decodeErr) {
	n, err := strconv.Atoi(string(val))
	if err != nil {
		return 0, &decodeErr{strings.Clone(key), "is " + jsonKind(val) + "; expected an integer", err}
	}
	return n, nil
}

// dispatchBytes views ds as raw memory. Dispatch holds only 8-byte words
// (string headers, ints, a pointer; checked at init), so it has no padding
// and a copy of an element the update did not touch compares equal byte for
// byte. A field set to an equal string at another address compares unequal;
// that only costs a re-encode, which then finds the JSON unchanged.
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
