// Package rawjson reads JSON documents as the bytes they were written with
// and lays new values over them, so that a rewrite of a run file keeps the
// members other okstra tools wrote, where they were and as they were
// written. It is the one way the state packages keep members they do not
// know: the team-state codec and the approval ledger both use it.
//
// A value is a subslice of the document: nothing is decoded or copied until
// a caller asks. The scanners assume valid JSON (check it first, with
// json.Valid or json.Compact); on other input they return an error or a
// wrong split, never panic.
//
// Member names match as encoding/json matches them to struct fields: the
// exact name, or else the same name ignoring case (Unicode simple folding),
// after escapes are decoded. The documents are Go structs on the cockpit's
// side, so a member encoding/json would decode into a field is that field's
// member here too, whatever its spelling.
package rawjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Member is one object member as written.
type Member struct {
	Key []byte // the name with its quotes and escapes, as written
	Val []byte // the value, as written
}

// SplitObject returns the members of the object b, which starts with '{',
// in file order. Repeated names are all returned.
func SplitObject(b []byte) ([]Member, error) { return AppendObject(nil, b) }

// AppendObject is SplitObject appending to ms, so a caller that splits
// many objects can reuse one slice.
func AppendObject(ms []Member, b []byte) ([]Member, error) {
	i := SkipSpace(b, 1)
	if i < len(b) && b[i] == '}' {
		return ms, nil
	}
	for i < len(b) {
		if b[i] != '"' {
			return nil, fmt.Errorf("json object: expected a key at byte %d", i)
		}
		kend, err := End(b, i)
		if err != nil {
			return nil, err
		}
		key := b[i:kend]
		i = SkipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return nil, fmt.Errorf("json object: expected ':' at byte %d", i)
		}
		i = SkipSpace(b, i+1)
		vend, err := End(b, i)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Member{Key: key, Val: b[i:vend]})
		i = SkipSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = SkipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return ms, nil
		}
		return nil, fmt.Errorf("json object: expected ',' or '}' at byte %d", i)
	}
	return nil, errors.New("json object: unexpected end")
}

// SplitArray returns the elements of the array b, which starts with '['.
func SplitArray(b []byte) ([][]byte, error) {
	var es [][]byte
	i := SkipSpace(b, 1)
	if i < len(b) && b[i] == ']' {
		return es, nil
	}
	for i < len(b) {
		vend, err := End(b, i)
		if err != nil {
			return nil, err
		}
		es = append(es, b[i:vend])
		i = SkipSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = SkipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return es, nil
		}
		return nil, fmt.Errorf("json array: expected ',' or ']' at byte %d", i)
	}
	return nil, errors.New("json array: unexpected end")
}

// End returns the index just past the JSON value starting at b[i].
func End(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errors.New("json: unexpected end")
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1, nil
			}
		}
		return 0, errors.New("json: unterminated string")
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := End(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errors.New("json: unterminated container")
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j, nil
		}
		j++
	}
	return j, nil
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// Name returns the member name a key spells: key without its quotes, its
// escapes decoded (invalid UTF-8 reads as U+FFFD, as encoding/json reads it).
func Name(key []byte) string {
	in := key[1 : len(key)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return string(in)
	}
	var s string
	if json.Unmarshal(key, &s) != nil {
		return string(in)
	}
	return s
}

// SameName reports whether key names the member name: exactly, or else
// ignoring case, as encoding/json matches a member to a struct field.
func SameName(key []byte, name string) bool {
	in := key[1 : len(key)-1]
	if string(in) == name {
		return true
	}
	if bytes.IndexByte(in, '\\') < 0 {
		return bytes.EqualFold(in, []byte(name))
	}
	return strings.EqualFold(Name(key), name)
}

// Fields matches member names to a struct's field names the way
// encoding/json does. The names must differ from one another ignoring case.
type Fields struct {
	exact map[string]string
	lower map[string]string // ASCII-lowercased name → name
	names []string
}

// NewFields returns a matcher for names.
func NewFields(names ...string) *Fields {
	f := &Fields{exact: map[string]string{}, lower: map[string]string{}, names: names}
	for _, n := range names {
		f.exact[n] = n
		f.lower[strings.ToLower(n)] = n
	}
	return f
}

// Match returns the field name key names, if any.
func (f *Fields) Match(key []byte) (string, bool) {
	name := Name(key)
	if n, ok := f.exact[name]; ok {
		return n, true
	}
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		n, ok := f.lower[strings.ToLower(name)]
		return n, ok
	}
	// Beyond ASCII, only U+212A (Kelvin) and U+017F (long s) fold to the
	// ASCII letters field names are spelt with.
	for _, n := range f.names {
		if strings.EqualFold(name, n) {
			return n, true
		}
	}
	return "", false
}

// Merge writes newer laid over older: every object member of older keeps
// its position; its value is newer's when newer has that member (merged
// again if both are objects or arrays), and older's otherwise. Members only
// in newer are appended. Arrays merge element by element (the cockpit only
// appends to or edits the arrays it rewrites, under the file's lock); a
// shorter newer array drops the tail. Any other value is newer's.
//
// Both must be valid JSON. Give older compact (json.Compact): members equal
// to newer's are then found byte for byte and copied without descending
// into them. The output is compact where its inputs are.
func Merge(out *bytes.Buffer, older, newer []byte) error {
	older = bytes.TrimSpace(older)
	newer = bytes.TrimSpace(newer)
	switch {
	case len(older) > 0 && len(newer) > 0 && older[0] == '{' && newer[0] == '{':
		return mergeObject(out, older, newer)
	case len(older) > 0 && len(newer) > 0 && older[0] == '[' && newer[0] == '[':
		return mergeArray(out, older, newer)
	}
	out.Write(newer)
	return nil
}

func mergeObject(out *bytes.Buffer, older, newer []byte) error {
	om, err := SplitObject(older)
	if err != nil {
		return err
	}
	nm, err := SplitObject(newer)
	if err != nil {
		return err
	}
	idx := make(map[string]int, len(nm))
	for i, m := range nm {
		idx[string(m.Key)] = i
	}
	used := make([]bool, len(nm))
	out.WriteByte('{')
	for k, m := range om {
		if k > 0 {
			out.WriteByte(',')
		}
		out.Write(m.Key)
		out.WriteByte(':')
		i, ok := idx[string(m.Key)]
		if !ok {
			i = sameMember(m.Key, nm)
		}
		if i < 0 {
			out.Write(m.Val)
			continue
		}
		used[i] = true
		if bytes.Equal(m.Val, nm[i].Val) {
			out.Write(m.Val)
			continue
		}
		if err := Merge(out, m.Val, nm[i].Val); err != nil {
			return err
		}
	}
	sep := len(om) > 0
	for i, m := range nm {
		if used[i] {
			continue
		}
		if sep {
			out.WriteByte(',')
		}
		sep = true
		out.Write(m.Key)
		out.WriteByte(':')
		out.Write(m.Val)
	}
	out.WriteByte('}')
	return nil
}

// sameMember returns the index of the member of ms that key names ignoring
// case or escapes, or -1.
func sameMember(key []byte, ms []Member) int {
	name := Name(key)
	for i, m := range ms {
		if SameName(m.Key, name) {
			return i
		}
	}
	return -1
}

func mergeArray(out *bytes.Buffer, older, newer []byte) error {
	oe, err := SplitArray(older)
	if err != nil {
		return err
	}
	ne, err := SplitArray(newer)
	if err != nil {
		return err
	}
	out.WriteByte('[')
	for i, v := range ne {
		if i > 0 {
			out.WriteByte(',')
		}
		if i < len(oe) && !bytes.Equal(oe[i], v) {
			if err := Merge(out, oe[i], v); err != nil {
				return err
			}
			continue
		}
		out.Write(v)
	}
	out.WriteByte(']')
	return nil
}

// Equal reports whether two JSON texts are the same but for white space
// outside strings.
func Equal(a, b []byte) bool {
	i, j := 0, 0
	inStr := false
	for {
		if !inStr {
			i = SkipSpace(a, i)
			j = SkipSpace(b, j)
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
