package state

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// mergeJSON lays newer over older and returns the result, indented.
//
// Other okstra tools write the same files, so a rewrite must keep what the
// cockpit does not know, where it was: every object member of older keeps its
// position; its value is newer's when newer has that member (merged again if
// both are objects or arrays), and older's otherwise. Members only in newer are
// appended. Arrays merge element by element (the cockpit only appends to or
// edits the arrays it rewrites, under the file's lock); a shorter newer array
// drops the tail. Anything else is newer's value.
//
// older may be empty (a new file). Both inputs must be valid JSON; callers
// decode them first.
func mergeJSON(older, newer []byte) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(older) + len(newer)/4)
	if len(bytes.TrimSpace(older)) == 0 {
		out.Write(newer)
	} else {
		// Compact first so that unchanged members compare equal byte for
		// byte and are copied without descending into them.
		var compact bytes.Buffer
		compact.Grow(len(older))
		if err := json.Compact(&compact, older); err != nil {
			return nil, fmt.Errorf("compact: %w", err)
		}
		if err := mergeValue(&out, compact.Bytes(), newer); err != nil {
			return nil, err
		}
	}
	var ind bytes.Buffer
	ind.Grow(out.Len() * 5 / 4)
	if err := json.Indent(&ind, out.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("indent merged json: %w", err)
	}
	ind.WriteByte('\n')
	return ind.Bytes(), nil
}

func mergeValue(out *bytes.Buffer, older, newer []byte) error {
	older = trimWS(older)
	newer = trimWS(newer)
	switch {
	case len(older) > 0 && len(newer) > 0 && older[0] == '{' && newer[0] == '{':
		return mergeObject(out, older, newer)
	case len(older) > 0 && len(newer) > 0 && older[0] == '[' && newer[0] == '[':
		return mergeArray(out, older, newer)
	}
	out.Write(newer)
	return nil
}

type member struct {
	key []byte // with its quotes, as written
	val []byte
}

func mergeObject(out *bytes.Buffer, older, newer []byte) error {
	om, err := splitObject(older)
	if err != nil {
		return err
	}
	nm, err := splitObject(newer)
	if err != nil {
		return err
	}
	idx := make(map[string]int, len(nm))
	for i, m := range nm {
		idx[string(m.key)] = i
	}
	used := make([]bool, len(nm))
	out.WriteByte('{')
	first := true
	sep := func() {
		if !first {
			out.WriteByte(',')
		}
		first = false
	}
	for _, m := range om {
		sep()
		out.Write(m.key)
		out.WriteByte(':')
		if i, ok := idx[string(m.key)]; ok {
			used[i] = true
			if bytes.Equal(m.val, nm[i].val) {
				out.Write(m.val)
				continue
			}
			if err := mergeValue(out, m.val, nm[i].val); err != nil {
				return err
			}
			continue
		}
		out.Write(m.val)
	}
	for i, m := range nm {
		if used[i] {
			continue
		}
		sep()
		out.Write(m.key)
		out.WriteByte(':')
		out.Write(m.val)
	}
	out.WriteByte('}')
	return nil
}

func mergeArray(out *bytes.Buffer, older, newer []byte) error {
	oe, err := splitArray(older)
	if err != nil {
		return err
	}
	ne, err := splitArray(newer)
	if err != nil {
		return err
	}
	out.WriteByte('[')
	for i, v := range ne {
		if i > 0 {
			out.WriteByte(',')
		}
		if i < len(oe) {
			if bytes.Equal(oe[i], v) {
				out.Write(v)
				continue
			}
			if err := mergeValue(out, oe[i], v); err != nil {
				return err
			}
			continue
		}
		out.Write(v)
	}
	out.WriteByte(']')
	return nil
}

func splitObject(b []byte) ([]member, error) {
	var ms []member
	i := skipWS(b, 1)
	if i < len(b) && b[i] == '}' {
		return ms, nil
	}
	for i < len(b) {
		if b[i] != '"' {
			return nil, fmt.Errorf("json object: expected a key at byte %d", i)
		}
		kend, err := valueEnd(b, i)
		if err != nil {
			return nil, err
		}
		key := b[i:kend]
		i = skipWS(b, kend)
		if i >= len(b) || b[i] != ':' {
			return nil, fmt.Errorf("json object: expected ':' at byte %d", i)
		}
		i = skipWS(b, i+1)
		vend, err := valueEnd(b, i)
		if err != nil {
			return nil, err
		}
		ms = append(ms, member{key: key, val: b[i:vend]})
		i = skipWS(b, vend)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return ms, nil
		}
		return nil, fmt.Errorf("json object: expected ',' or '}' at byte %d", i)
	}
	return nil, fmt.Errorf("json object: unexpected end")
}

func splitArray(b []byte) ([][]byte, error) {
	var es [][]byte
	i := skipWS(b, 1)
	if i < len(b) && b[i] == ']' {
		return es, nil
	}
	for i < len(b) {
		vend, err := valueEnd(b, i)
		if err != nil {
			return nil, err
		}
		es = append(es, b[i:vend])
		i = skipWS(b, vend)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return es, nil
		}
		return nil, fmt.Errorf("json array: expected ',' or ']' at byte %d", i)
	}
	return nil, fmt.Errorf("json array: unexpected end")
}

// valueEnd returns the index just past the JSON value starting at b[i].
func valueEnd(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, fmt.Errorf("json: unexpected end")
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
		return 0, fmt.Errorf("json: unterminated string")
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := valueEnd(b, j)
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
		return 0, fmt.Errorf("json: unterminated container")
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

func skipWS(b []byte, i int) int {
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

func trimWS(b []byte) []byte { return bytes.TrimSpace(b) }
