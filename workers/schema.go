package workers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/okstra/cockpit/assets"
	"github.com/okstra/cockpit/state"
)

// The shape of a providers.json is its schema's, assets/schemas/
// providers.schema.json: the members, their types, the enums, the bounds.
// A schema's complaint becomes the same one line as every other
// providers.json error: the file, the JSON path of the value
// (providers.codex.argv[1]), what is wrong and, from the schema's own
// x-hint annotations, what was expected or what to do.

const providersSchema = "providers.schema.json"

// schemaDoc is the schema compiled, and its JSON (for the x-hint of the
// keyword an error names). Compiled on the first providers.json a process
// reads, never at init (DECISIONS 47), and trusted: the schema is built in
// and TestProvidersSchemaAgreesWithTheCatalog holds it to its metaschema,
// so no draft's metaschema is compiled here (27,000 allocations, 2 MB).
var schemaDoc = sync.OnceValues(func() (*compiledSchema, error) {
	data, err := assets.FS.ReadFile("schemas/" + providersSchema)
	if err != nil {
		return nil, fmt.Errorf("read schema %s: %w", providersSchema, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("read schema %s: %w", providersSchema, err)
	}
	c := jsonschema.NewCompiler()
	c.TrustSchemas()
	if err := c.AddResource(providersSchema, doc); err != nil {
		return nil, fmt.Errorf("load schema %s: %w", providersSchema, err)
	}
	s, err := c.Compile(providersSchema)
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", providersSchema, err)
	}
	return &compiledSchema{s, doc}, nil
})

type compiledSchema struct {
	schema *jsonschema.Schema
	doc    any
}

// validateProviders checks data, known to be JSON, against the schema and
// returns the first problem as a *state.Error naming file and the JSON
// path, or nil.
func validateProviders(file string, data []byte) error {
	cs, err := schemaDoc()
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return &state.Error{File: file, Msg: "malformed JSON: " + err.Error(), Err: err}
	}
	err = cs.schema.Validate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return &state.Error{File: file, Msg: err.Error(), Err: err}
	}
	return cs.explain(file, v, firstLeaf(ve))
}

// firstLeaf is the validation error to report: a cause with no causes of
// its own (the most precise), the first in the document; at one place a
// field that should not be there before the rest (a misspelt member
// explains the one found missing).
func firstLeaf(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	var leaves []*jsonschema.ValidationError
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		// A property name's error is the name's: what it broke inside
		// (a pattern) is at no place in the document.
		if _, name := e.ErrorKind.(*kind.PropertyNames); name || len(e.Causes) == 0 {
			leaves = append(leaves, e)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(e)
	rank := func(e *jsonschema.ValidationError) int {
		switch e.ErrorKind.(type) {
		case *kind.AdditionalProperties, *kind.PropertyNames:
			return 0
		case *kind.Required:
			return 2
		}
		return 1
	}
	sort.SliceStable(leaves, func(i, j int) bool {
		a, b := leaves[i].InstanceLocation, leaves[j].InstanceLocation
		if c := compareLocation(a, b); c != 0 {
			return c < 0
		}
		return rank(leaves[i]) < rank(leaves[j])
	})
	return leaves[0]
}

// compareLocation orders instance locations as the document reads: a
// parent before its members, array indexes by number, members by name.
func compareLocation(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] == b[i] {
			continue
		}
		x, errx := strconv.Atoi(a[i])
		y, erry := strconv.Atoi(b[i])
		if errx == nil && erry == nil {
			return x - y
		}
		return strings.Compare(a[i], b[i])
	}
	return len(a) - len(b)
}

// jsonPath writes an instance location as providers.json errors do:
// providers.codex.argv[1].
func jsonPath(loc []string, arrays []bool) string {
	var b strings.Builder
	for i, p := range loc {
		if arrays[i] {
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

// at walks doc along loc: the value there, and for each step whether it
// indexed an array.
func at(doc any, loc []string) (any, []bool) {
	arrays := make([]bool, len(loc))
	v := doc
	for i, p := range loc {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			arrays[i] = true
			n, _ := strconv.Atoi(p)
			if n >= 0 && n < len(x) {
				v = x[n]
			} else {
				v = nil
			}
		default:
			v = nil
		}
	}
	return v, arrays
}

// explain turns one validation error into the providers.json error.
func (cs *compiledSchema) explain(file string, doc any, e *jsonschema.ValidationError) error {
	val, arrays := at(doc, e.InstanceLocation)
	field := jsonPath(e.InstanceLocation, arrays)
	node := cs.node(e.SchemaURL)
	kw := e.ErrorKind.KeywordPath()[0]
	hint, keyed := hintOf(node, kw)
	expect := func(def string) string {
		if hint != "" {
			return "; expected " + hint
		}
		if def != "" {
			return "; expected " + def
		}
		return ""
	}
	fix := func() string {
		if keyed {
			return "; " + hint
		}
		return ""
	}
	member := func(name string) {
		if field != "" {
			field += "."
		}
		field += name
	}
	var msg string
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		member(k.Missing[0])
		msg = "is missing"
		if hint != "" {
			msg += "; " + hint
		}
	case *kind.AdditionalProperties:
		member(k.Properties[0])
		if hint == "" {
			hint = "a known field"
		}
		msg = "is not " + hint
		if props := propertyNames(node); len(props) > 0 && !strings.Contains(hint, ";") {
			msg += " (known: " + strings.Join(props, ", ") + ")"
		}
	case *kind.PropertyNames:
		member(k.Property)
		if hint == "" {
			hint = "a usable name"
		}
		msg = "is not " + hint
	case *kind.Type:
		what := describe(val)
		if k.Got == "number" && slices.Contains(k.Want, "integer") {
			what = fmt.Sprint(val)
		}
		msg = "is " + what + expect(orTypes(k.Want))
	case *kind.Enum:
		msg = "is " + jsonValue(val) + expect(orValues(k.Want))
	case *kind.MinItems:
		if k.Got == 0 {
			msg = "is empty" + fix()
		} else {
			msg = "is " + describe(val) + expect(fmt.Sprintf("at least %d items", k.Want))
		}
	case *kind.MaxItems:
		msg = "is " + describe(val) + expect(fmt.Sprintf("at most %d items", k.Want))
	case *kind.MinLength:
		msg = "is empty" + fix()
	case *kind.Minimum:
		if k.Want.Sign() == 0 && k.Got.Cmp(new(big.Rat)) < 0 {
			msg = "is negative" + expect("")
		} else {
			msg = "is " + fmt.Sprint(val) + expect("at least "+k.Want.RatString())
		}
	case *kind.Maximum:
		msg = "is " + fmt.Sprint(val) + expect("at most "+k.Want.RatString())
	default:
		msg = fmt.Sprintf("does not hold to %s (%s)", providersSchema, strings.Join(e.ErrorKind.KeywordPath(), "/"))
	}
	if field == "" {
		field = "(top level)"
	}
	return &state.Error{File: file, Field: field, Msg: msg}
}

// node is the schema object at url (providers.schema.json#/$defs/model),
// nil when it cannot be found.
func (cs *compiledSchema) node(url string) map[string]any {
	_, frag, _ := strings.Cut(url, "#")
	v := cs.doc
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 || n >= len(x) {
				return nil
			}
			v = x[n]
		default:
			return nil
		}
	}
	m, _ := v.(map[string]any)
	return m
}

// hintOf is the schema node's x-hint for keyword kw: its entry for kw
// (keyed true), or the one text it gives for every keyword.
func hintOf(node map[string]any, kw string) (hint string, keyed bool) {
	switch h := node["x-hint"].(type) {
	case string:
		return h, false
	case map[string]any:
		s, _ := h[kw].(string)
		return s, s != ""
	}
	return "", false
}

// propertyNames are the members a schema object names, in its order.
func propertyNames(node map[string]any) []string {
	props, _ := node["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// describe names the JSON kind of a decoded value for an error.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		if len(x) == 0 {
			return "an empty array"
		}
		return fmt.Sprintf("an array of %d", len(x))
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

func orTypes(ts []string) string {
	words := map[string]string{"object": "an object", "array": "an array", "string": "a string", "integer": "a whole number", "number": "a number", "boolean": "true or false", "null": "null"}
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = words[t]
	}
	return strings.Join(out, " or ")
}

func jsonValue(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

func orValues(vs []any) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = jsonValue(v)
	}
	if len(out) < 2 {
		return strings.Join(out, "")
	}
	return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
}
