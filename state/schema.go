package state

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/okstra/cockpit/assets"
)

// The schemas of assets/schemas that validate okstra's files as the
// cockpit reads them (docs/FILES.md). Each is compiled once per process, on
// first use, trusted (its tests validate it against the metaschema), so a
// command that reads no such file pays nothing and one that does pays
// about 2,000 allocations for the schema and no metaschema.
const (
	schemaJobs       = "jobs.schema.json"
	schemaInvocation = "invocation-metadata.schema.json"
	schemaManifest   = "run-manifest.schema.json"
)

var compiledSchemas sync.Map // name → func() (*jsonschema.Schema, error)

func compiledSchema(name string) (*jsonschema.Schema, error) {
	f, _ := compiledSchemas.LoadOrStore(name, sync.OnceValues(func() (*jsonschema.Schema, error) {
		data, err := assets.FS.ReadFile("schemas/" + name)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		c := jsonschema.NewCompiler()
		c.TrustSchemas()
		if err := c.AddResource(name, doc); err != nil {
			return nil, err
		}
		return c.Compile(name)
	}))
	return f.(func() (*jsonschema.Schema, error))()
}

// schemaRule words the refusal of one keyword at one place of a file, in
// the words of the run files' errors: what is wrong, then what to do. at
// is the JSON path with array indices left out ("jobs[].provider"); v is
// the refused value, when there is one.
type schemaRule struct {
	at, keyword string
	msg         func(v any) string
}

// schemaRules are the words a schema cannot carry, by schema. A refusal
// without a rule gets a generic line from the keyword (is missing, is a
// JSON object; expected an array, …).
var schemaRules = map[string][]schemaRule{
	schemaJobs: {
		{"dispatchKind", "required", func(any) string {
			return "is missing; expected initial, reverify-r<N>, critic, report-writer or translator"
		}},
		{"dispatchKind", "pattern", func(v any) string {
			s, _ := v.(string)
			return CheckDispatchKind(DispatchKind(s)).Error()
		}},
		{"jobs", "minItems", func(any) string { return "is empty; a jobs file needs at least one job" }},
		{"jobs[].idleTimeoutSeconds", "minimum", func(any) string { return "is negative" }},
		{"executionIdentityVersion", "enum", func(v any) string {
			return fmt.Sprintf("is %s; expected 1 or 2 (regenerate the file with `okstra agent-prompt jobs`)", jsonText(v))
		}},
		{"jobs[].*Digest", "pattern", func(v any) string {
			return fmt.Sprintf("is %s; expected sha256: and 64 lowercase hex digits (or no digest)", jsonText(v))
		}},
	},
	schemaInvocation: {
		{"executionIdentityVersion", "required", func(any) string { return notV2Metadata("is missing") }},
		{"executionIdentityVersion", "const", func(v any) string { return notV2Metadata("is " + jsonText(v)) }},
		{"invocationRef", "required", func(any) string { return notV2Metadata("is missing") }},
		{"roleExecutionRef", "required", func(any) string { return notV2Metadata("is missing") }},
		{"modelAssignment.*", "required", func(any) string { return "is missing; modelAssignment needs provider and modelExecutionValue" }},
		{"*Digest", "pattern", func(v any) string {
			return fmt.Sprintf("is %s; expected sha256: and 64 lowercase hex digits", jsonText(v))
		}},
	},
	schemaManifest: {
		{"teamStatePath", "required", func(any) string { return "is missing; the run manifest must name the team-state file" }},
		{"leadEventsPath", "required", func(any) string { return "is missing; the run manifest must name the lead-events ledger" }},
		{"terminalBackend", "required", func(any) string {
			return fmt.Sprintf("is missing; expected %s, %s or %s", BackendCockpitPane, BackendCmuxPane, BackendCLIWrapper)
		}},
		{"terminalBackend", "enum", func(v any) string {
			return fmt.Sprintf("is %s; expected %s, %s or %s", jsonText(v), BackendCockpitPane, BackendCmuxPane, BackendCLIWrapper)
		}},
		{"executionIdentityVersion", "enum", func(v any) string { return fmt.Sprintf("is %s; expected 1 or 2", jsonText(v)) }},
		{"roleExecutions[].binding", "required", func(any) string {
			return "is missing; a binding needs runner and resolvedExecutionValue (required by executionIdentityVersion 2)"
		}},
		{"roleExecutions[].binding.*", "required", func(any) string {
			return "is missing; a binding needs runner and resolvedExecutionValue (required by executionIdentityVersion 2)"
		}},
	},
}

func notV2Metadata(what string) string {
	return what + ": this is not v2 invocation metadata (executionIdentityVersion 2 with invocationRef and roleExecutionRef); a new worker dispatch requires v2 metadata: materialize the prompt again"
}

// schemaNotes add why a member is required where a conditional of the
// schema requires it: the schema's then-branch, by schema.
var schemaNotes = map[string]string{
	schemaJobs:     "required by executionIdentityVersion 2",
	schemaManifest: "required by executionIdentityVersion 2",
}

// checkSchema validates data, a file's JSON, against the named schema. A
// refusal is one *Error naming the file (display), the JSON path of the
// first place that fails (in document order: the file's own members
// before its arrays' items) and what to do. JSON that does not parse is
// decodeStrict's error.
func checkSchema(name, display string, data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		var v any
		if derr := decodeStrict(data, &v, display); derr != nil {
			return derr
		}
		return &Error{File: display, Msg: "invalid JSON: " + err.Error(), Err: err}
	}
	sch, err := compiledSchema(name)
	if err != nil {
		return fmt.Errorf("compile the schema %s: %w", name, err)
	}
	verr := sch.Validate(doc)
	var ve *jsonschema.ValidationError
	if verr == nil {
		return nil
	}
	if !errors.As(verr, &ve) {
		return &Error{File: display, Msg: "does not match " + name + ": " + verr.Error(), Err: verr}
	}
	leaf := firstLeaf(ve)
	field, msg := schemaMessage(name, leaf, doc)
	return &Error{File: display, Field: field, Msg: msg, Err: verr}
}

// firstLeaf is the refusal a user reads first: of the innermost errors,
// the one at the earliest place of the document (a member of an object
// before the members of its members; array items by index; then by name).
func firstLeaf(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
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
	walk(ve)
	slices.SortStableFunc(leaves, func(a, b *jsonschema.ValidationError) int {
		return comparePath(leafPath(a), leafPath(b))
	})
	return leaves[0]
}

// leafPath is where an error points: a missing member is the member's
// place, not its object's.
func leafPath(e *jsonschema.ValidationError) []string {
	if r, ok := e.ErrorKind.(*kind.Required); ok && len(r.Missing) > 0 {
		return append(slices.Clip(e.InstanceLocation), r.Missing[0])
	}
	return e.InstanceLocation
}

func comparePath(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		na, ea := strconv.Atoi(a[i])
		nb, eb := strconv.Atoi(b[i])
		if ea == nil && eb == nil {
			if c := cmp.Compare(na, nb); c != 0 {
				return c
			}
			continue
		}
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// jsonPath writes an instance location as the run files' errors do:
// jobs[2].promptPath.
func jsonPath(loc []string, generic bool) string {
	var b strings.Builder
	for _, s := range loc {
		if _, err := strconv.Atoi(s); err == nil {
			if generic {
				b.WriteString("[]")
			} else {
				b.WriteString("[" + s + "]")
			}
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// schemaMessage is the field and the words of one refusal.
func schemaMessage(name string, e *jsonschema.ValidationError, doc any) (string, string) {
	loc := leafPath(e)
	field, generic := jsonPath(loc, false), jsonPath(loc, true)
	keyword := ""
	if kp := e.ErrorKind.KeywordPath(); len(kp) > 0 {
		keyword = kp[len(kp)-1]
	}
	v := valueAt(doc, e.InstanceLocation)
	for _, r := range schemaRules[name] {
		if r.keyword == keyword && pathMatches(r.at, generic) {
			return field, r.msg(v)
		}
	}
	if field == "" {
		field = "(top level)"
	}
	msg := kindMessage(e, v)
	if note := schemaNotes[name]; note != "" && keyword == "required" && strings.Contains(e.SchemaURL, "/then") {
		msg += " (" + note + ")"
	}
	return field, msg
}

// pathMatches matches a rule's place: exact, or with a * standing for the
// rest of one name ("jobs[].*Digest", "modelAssignment.*").
func pathMatches(pattern, at string) bool {
	before, after, star := strings.Cut(pattern, "*")
	if !star {
		return pattern == at
	}
	if !strings.HasPrefix(at, before) || !strings.HasSuffix(at, after) || len(at) < len(before)+len(after) {
		return false
	}
	return !strings.ContainsAny(at[len(before):len(at)-len(after)], ".[")
}

// kindMessage words a keyword's refusal without a rule.
func kindMessage(e *jsonschema.ValidationError, v any) string {
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		return "is missing"
	case *kind.Type:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = jsonTypeName(w)
		}
		return fmt.Sprintf("is a JSON %s; expected %s", jsonTypeWord(k.Got), strings.Join(want, " or "))
	case *kind.MinLength:
		return "is empty"
	case *kind.MinItems:
		return fmt.Sprintf("has %d item(s); expected at least %d", k.Got, k.Want)
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = jsonText(w)
		}
		return fmt.Sprintf("is %s; expected %s", jsonText(v), strings.Join(want, ", "))
	case *kind.Const:
		return fmt.Sprintf("is %s; expected %s", jsonText(v), jsonText(k.Want))
	case *kind.Pattern:
		return fmt.Sprintf("is %q; expected a value matching %s", k.Got, k.Want)
	case *kind.Minimum:
		return fmt.Sprintf("is %s; expected at least %s", ratText(k.Got), ratText(k.Want))
	}
	return "does not match the schema: " + e.Error()
}

func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	return r.FloatString(3)
}

// jsonTypeWord is a JSON type as jsonError names it ("a JSON object").
func jsonTypeWord(t string) string {
	if t == "boolean" {
		return "bool"
	}
	if t == "integer" {
		return "number"
	}
	return t
}

// jsonTypeName is a wanted JSON type as goTypeName names it.
func jsonTypeName(t string) string {
	switch t {
	case "string":
		return "a string"
	case "integer", "number":
		return "a number"
	case "boolean":
		return "true or false"
	case "array":
		return "an array"
	case "null":
		return "null"
	}
	return "an object"
}

// valueAt is the value at loc in doc, nil when there is none.
func valueAt(doc any, loc []string) any {
	for _, s := range loc {
		switch d := doc.(type) {
		case map[string]any:
			doc = d[s]
		case []any:
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(d) {
				return nil
			}
			doc = d[i]
		default:
			return nil
		}
	}
	return doc
}

// jsonText is a value as JSON shows it, short.
func jsonText(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(Printable(v))
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprint(v)
}
