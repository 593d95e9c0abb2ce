package approval

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/okstra/cockpit/state/internal/rawjson"
)

// object is a JSON object as its members in file order, each as written
// (rawjson). Setting a member replaces its value where it stands; a new
// member goes last. This is how a rewrite keeps members written by other
// okstra tools, and their order.
type object struct {
	ms []rawjson.Member
}

func newObject() *object { return &object{} }

// parseObject splits data, which must hold one JSON object, into its
// members, compacted.
func parseObject(data []byte) (*object, error) {
	var c bytes.Buffer
	c.Grow(len(data))
	if err := json.Compact(&c, data); err != nil {
		return nil, err
	}
	return splitCompact(c.Bytes())
}

// splitCompact is parseObject for a value already compact and valid.
func splitCompact(data []byte) (*object, error) {
	if len(data) == 0 || data[0] != '{' {
		return nil, fmt.Errorf("is not a JSON object")
	}
	ms, err := rawjson.SplitObject(data)
	if err != nil {
		return nil, err
	}
	return &object{ms: ms}, nil
}

// splitArray returns the elements of raw, a compact and valid JSON value
// that must be an array.
func splitArray(raw []byte) ([][]byte, error) {
	if len(raw) == 0 || raw[0] != '[' {
		return nil, fmt.Errorf("is not a JSON array")
	}
	return rawjson.SplitArray(raw)
}

// get returns the value of member k as encoding/json would decode it into
// a field named k: the last member so named (exactly, or else ignoring case).
func (o *object) get(k string) (json.RawMessage, bool) {
	for i := len(o.ms) - 1; i >= 0; i-- {
		if rawjson.SameName(o.ms[i].Key, k) {
			return o.ms[i].Val, true
		}
	}
	return nil, false
}

// setRaw sets member k to v: every member so named takes v where it stands,
// or, when there is none, a new member goes last.
func (o *object) setRaw(k string, v json.RawMessage) {
	found := false
	for i := range o.ms {
		if rawjson.SameName(o.ms[i].Key, k) {
			o.ms[i].Val = v
			found = true
		}
	}
	if !found {
		key, _ := marshal(k)
		o.ms = append(o.ms, rawjson.Member{Key: key, Val: v})
	}
}

// set encodes v and stores it under k.
func (o *object) set(k string, v any) error {
	raw, err := marshal(v)
	if err != nil {
		return err
	}
	o.setRaw(k, raw)
	return nil
}

// compact renders o as compact JSON.
func (o *object) compact() []byte {
	n := 2
	for _, m := range o.ms {
		n += len(m.Key) + len(m.Val) + 2
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, m := range o.ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m.Key...)
		b = append(b, ':')
		b = append(b, m.Val...)
	}
	return append(b, '}')
}

// marshal encodes v without HTML escaping, so a statement that reads
// "<model>" stays readable in the file.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// indent renders compact JSON with two-space indentation and a final newline.
func indent(compact []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
