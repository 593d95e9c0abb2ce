package state

import (
	"bytes"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/okstra/cockpit/assets"
)

// The run files' shapes are the JSON Schemas the project ships
// (assets/schemas). A file is validated against its schema first; what a
// schema cannot say (one file against another, paths inside the root,
// files that exist) stays by hand. A schema's complaint becomes the same one
// line as every other run-file error: the file, the JSON path of the value
// (`jobs[2].provider`), what is wrong and, from fieldHints, what to do.

var (
	schemaOnce sync.Once
	schemas    map[string]*jsonschema.Schema
	schemaErr  error
)

// compiledSchema is the schema assets/schemas/<name>, compiled once.
func compiledSchema(name string) (*jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		schemas = map[string]*jsonschema.Schema{}
		c := jsonschema.NewCompiler()
		entries, err := assets.FS.ReadDir("schemas")
		if err != nil {
			schemaErr = err
			return
		}
		for _, e := range entries {
			data, err := assets.FS.ReadFile("schemas/" + e.Name())
			if err != nil {
				schemaErr = err
				return
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				schemaErr = fmt.Errorf("schema %s: %w", e.Name(), err)
				return
			}
			if err := c.AddResource(e.Name(), doc); err != nil {
				schemaErr = err
				return
			}
		}
		for _, e := range entries {
			s, err := c.Compile(e.Name())
			if err != nil {
				schemaErr = fmt.Errorf("compile schema %s: %w", e.Name(), err)
				return
			}
			schemas[e.Name()] = s
		}
	})
	if schemaErr != nil {
		return nil, schemaErr
	}
	s := schemas[name]
	if s == nil {
		return nil, fmt.Errorf("no schema %s", name)
	}
	return s, nil
}

// validateSchema checks data (already known to be JSON) against the schema
// name and returns the first problem as an *Error naming display and the
// JSON path, or nil.
func validateSchema(name string, data []byte, display string) error {
	s, err := compiledSchema(name)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return jsonError(display, data, err)
	}
	err = s.Validate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return &Error{File: display, Msg: err.Error(), Err: err}
	}
	leaf := firstLeaf(ve)
	return leafError(leaf, display)
}

// firstLeaf is the validation error to report: the first cause, depth
// first, that has no causes of its own (the most precise), preferring the
// one at the earliest place in the document.
func firstLeaf(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	var leaves []*jsonschema.ValidationError
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(e)
	sort.SliceStable(leaves, func(i, j int) bool { return lessLocation(leaves[i].InstanceLocation, leaves[j].InstanceLocation) })
	return leaves[0]
}

// lessLocation orders instance locations as the document lists them:
// array indexes numerically, a parent before its members.
func lessLocation(a, b []string) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] == b[i] {
			continue
		}
		x, errx := strconv.Atoi(a[i])
		y, erry := strconv.Atoi(b[i])
		if errx == nil && erry == nil {
			return x < y
		}
		return false // object members: keep the validator's (schema) order
	}
	return len(a) < len(b)
}

// jsonPath writes an instance location as the run-file errors do:
// jobs[2].provider.
func jsonPath(loc []string) string {
	var b strings.Builder
	for _, p := range loc {
		if _, err := strconv.Atoi(p); err == nil {
			b.WriteString("[" + p + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// fieldHints says what to do about a field, by its JSON path with indexes
// dropped (jobs[].provider). The fix the user needs, in the words the
// by-hand checks used.
var fieldHints = map[string]string{
	"dispatchKind":      "expected initial, reverify-r<N>, critic, report-writer or translator",
	"jobs":              "a jobs file needs at least one job",
	"teamStatePath":     "the run manifest must name the team-state file",
	"leadEventsPath":    "the run manifest must name the lead-events ledger",
	"terminalBackend":   "expected cmux-pane, cli-wrapper or cockpit-pane",
	"jobs[].promptPath": "materialize the prompt and regenerate the jobs file",
}

// leafError turns one validation error into the run-file error.
func leafError(e *jsonschema.ValidationError, display string) error {
	field := jsonPath(e.InstanceLocation)
	v2 := strings.Contains(e.SchemaURL, "/then/")
	var msg string
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		missing := k.Missing[0]
		if field != "" {
			field += "."
		}
		field += missing
		msg = "is missing"
		if v2 {
			msg += " (required by executionIdentityVersion 2)"
		}
	case *kind.Type:
		msg = fmt.Sprintf("is a JSON %s; expected %s", jsonTypeName(k.Got), orJSONTypes(k.Want))
	case *kind.MinItems:
		msg = "is empty"
	case *kind.MinLength:
		msg = "is empty"
	case *kind.Minimum:
		if k.Want.Sign() == 0 && k.Got.Cmp(new(big.Rat)) < 0 {
			msg = "is negative"
		} else {
			msg = fmt.Sprintf("is %s; expected at least %s", k.Got.RatString(), k.Want.RatString())
		}
	case *kind.Pattern:
		if field == "dispatchKind" {
			return wrapf(CheckDispatchKind(DispatchKind(k.Got)), display, field, "%v", CheckDispatchKind(DispatchKind(k.Got)))
		}
		if strings.HasSuffix(field, "Digest") {
			msg = fmt.Sprintf("is %q; expected sha256: and 64 lowercase hex digits (or no digest)", k.Got)
			break
		}
		msg = fmt.Sprintf("is %q, which is not of the expected form %s", k.Got, k.Want)
	case *kind.Enum:
		msg = fmt.Sprintf("is %s; expected one of %s", jsonValue(k.Got), jsonValues(k.Want))
	case *kind.Const:
		msg = fmt.Sprintf("is %s; expected %s", jsonValue(k.Got), jsonValue(k.Want))
	default:
		msg = e.ErrorKind.LocalizedString(nil)
	}
	if h := fieldHints[indexRE.ReplaceAllString(field, "[]")]; h != "" {
		msg += "; " + h
	}
	return &Error{File: display, Field: field, Msg: msg}
}

func jsonTypeName(t string) string {
	switch t {
	case "object", "array", "integer":
		return map[string]string{"object": "object", "array": "array", "integer": "number"}[t]
	}
	return t
}

func orJSONTypes(ts []string) string {
	var out []string
	for _, t := range ts {
		switch t {
		case "object":
			out = append(out, "an object")
		case "array":
			out = append(out, "an array")
		case "string":
			out = append(out, "a string")
		case "integer":
			out = append(out, "a whole number")
		case "number":
			out = append(out, "a number")
		case "boolean":
			out = append(out, "true or false")
		default:
			out = append(out, t)
		}
	}
	return strings.Join(out, " or ")
}

func jsonValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

func jsonValues(vs []any) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = jsonValue(v)
	}
	return strings.Join(out, ", ")
}
