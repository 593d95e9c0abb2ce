package setup

import (
	"bytes"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/santhosh-tekuri/jsonschema/v6/message"

	"github.com/okstra/cockpit/assets"
	"github.com/okstra/cockpit/state"
)

// The answers' shape is assets/schemas/wizard-answers.schema.json: an
// --answers file is validated against it whole, and the form holds each
// answer to its member's part of it (memberSchema), so both refuse the same
// answers in the same words. A schema's complaint is one line in the
// wizard's language: the file, the JSON path (roleCounts[1]) and the fix,
// from the wizard's texts (schemaTexts). What a schema cannot say — the
// catalog, roles, the project's tasks, the roster rules — is validate's.
// The schema is compiled on first use, never at program start (the
// headless commands a lead calls link this package: TestStartInitBudget).

// The schemas workers/setup reads its inputs against.
const (
	answersSchema      = "wizard-answers.schema.json"
	taskManifestSchema = "task-manifest.schema.json"
)

// compiler holds the schemas, trusted (TestSchemasAreValid validates them
// against their metaschema): compiling one compiles no draft's metaschema.
var compiler = sync.OnceValues(func() (*jsonschema.Compiler, error) { return newCompiler(true) })

func newCompiler(trusted bool) (*jsonschema.Compiler, error) {
	c := jsonschema.NewCompiler()
	if trusted {
		c.TrustSchemas()
	}
	for _, name := range []string{answersSchema, taskManifestSchema} {
		data, err := fs.ReadFile(assets.FS, "schemas/"+name)
		if err != nil {
			return nil, fmt.Errorf("read the schema %s: %w", name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("read the schema %s: %w", name, err)
		}
		if err := c.AddResource(name, doc); err != nil {
			return nil, fmt.Errorf("load the schema %s: %w", name, err)
		}
	}
	return c, nil
}

var (
	schemaMu sync.Mutex
	compiled = map[string]*jsonschema.Schema{}
)

// schemaAt is the answers schema at the JSON pointer ptr ("" for the whole
// document, "/properties/taskKey" for a member), compiled once.
func schemaAt(ptr string) (*jsonschema.Schema, error) { return schemaOf(answersSchema, ptr) }

// schemaOf is the schema name at the JSON pointer ptr, compiled once.
func schemaOf(name, ptr string) (*jsonschema.Schema, error) {
	loc := name + "#" + ptr
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if s := compiled[loc]; s != nil {
		return s, nil
	}
	c, err := compiler()
	if err != nil {
		return nil, err
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("compile the schema %s: %w", loc, err)
	}
	compiled[loc] = s
	return s, nil
}

// schemaTexts names the wizard's text for a schema's complaint, by where
// in the schema it is (the keyword's location) — the same text the form
// shows for the same answer.
var schemaTexts = map[string]string{
	"/required":                                     "task_key_empty",
	"/$defs/taskKey/minLength":                      "task_key_empty",
	"/$defs/taskKey/pattern":                        "task_key_syntax",
	"/properties/taskGroup/pattern":                 "group_syntax",
	"/properties/taskType/enum":                     "task_type_unknown",
	"/properties/relatedTasks/properties/mode/enum": "related_mode",
	"/properties/roleModels/items/pattern":          "role_model_syntax",
	"/properties/roleCounts/items/allOf/0/pattern":  "role_count_syntax",
	"/properties/roleCounts/items/allOf/1/pattern":  "count_syntax",
	"/properties/reportLanguage/enum":               "report_language",
	"/properties/saveDefaults/enum":                 "save_defaults",
}

// checkFile validates an --answers file against the schema; nil, or an
// *state.Error naming name, the JSON path and the fix.
func (s *Session) checkFile(name string, data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return &state.Error{File: name, Msg: fmt.Sprintf("is not a JSON object of answers (%v)", err)}
	}
	sch, err := schemaAt("")
	if err != nil {
		return err
	}
	leaf := firstLeaf(sch.Validate(doc))
	if leaf == nil {
		return nil
	}
	path, msg := s.complaint(leaf)
	if path == "" {
		msg = "is not a JSON object of answers (" + msg + ")"
	}
	return &state.Error{File: name, Field: path, Msg: msg}
}

// checkMember holds the form's answer v (a string, or a []string) to the
// schema of the member at ptr; a complaint is step's error.
func (s *Session) checkMember(step StepID, ptr string, v any) error {
	if l, ok := v.([]string); ok {
		items := make([]any, len(l))
		for i, x := range l {
			items[i] = x
		}
		v = items
	}
	sch, err := schemaAt(ptr)
	if err != nil {
		return err
	}
	leaf := firstLeaf(sch.Validate(v))
	if leaf == nil {
		return nil
	}
	_, msg := s.complaint(leaf)
	return &StepError{Step: step, Msg: msg}
}

// firstLeaf is the complaint to report of a validation error: the most
// precise one (a cause with no causes of its own), the first in the
// document, a wrong JSON type before what else that value breaks.
func firstLeaf(err error) *jsonschema.ValidationError {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return nil
	}
	var best *jsonschema.ValidationError
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		if best == nil || before(e, best) {
			best = e
		}
	}
	walk(ve)
	return best
}

// before orders complaints: by place in the document (array indexes
// numerically, a parent first), then a type complaint first.
func before(a, b *jsonschema.ValidationError) bool {
	x, y := a.InstanceLocation, b.InstanceLocation
	for i := 0; i < len(x) && i < len(y); i++ {
		if x[i] != y[i] {
			m, errm := strconv.Atoi(x[i])
			n, errn := strconv.Atoi(y[i])
			return errm == nil && errn == nil && m < n
		}
	}
	if len(x) != len(y) {
		return len(x) < len(y)
	}
	_, at := a.ErrorKind.(*kind.Type)
	_, bt := b.ErrorKind.(*kind.Type)
	return at && !bt
}

// complaint says one schema complaint as the wizard does: the JSON path of
// the value and the message with its fix.
func (s *Session) complaint(e *jsonschema.ValidationError) (path, msg string) {
	path = jsonPath(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		return joinPath(path, k.Properties[0]), "is not an answer the wizard knows; see docs/WIZARD.md for the members"
	case *kind.Required:
		path = joinPath(path, k.Missing[0])
	case *kind.Type:
		return path, fmt.Sprintf("is a JSON %s; expected %s", typeName(k.Got), strings.Join(k.Want, " or "))
	}
	name, ptr, _ := strings.Cut(e.SchemaURL, "#")
	key, ok := schemaTexts[ptr+"/"+strings.Join(e.ErrorKind.KeywordPath(), "/")]
	if !ok || !strings.HasSuffix(name, answersSchema) {
		if k, ok := e.ErrorKind.(*kind.Pattern); ok { // as the run files' errors say it
			return path, fmt.Sprintf("is %q, which is not of the expected form %s", k.Got, k.Want)
		}
		return path, e.ErrorKind.LocalizedString(message.NewPrinter())
	}
	value := ""
	switch k := e.ErrorKind.(type) {
	case *kind.Pattern:
		value = k.Got
	case *kind.Enum:
		value = fmt.Sprint(k.Got)
	}
	if key == "count_syntax" {
		_, value, _ = strings.Cut(value, "=")
		value = strings.TrimSpace(value)
	}
	return path, s.Texts.T("errors."+key, "value", value, "list", strings.Join(TaskTypes, ", "))
}

// jsonPath writes an instance location as the run files' errors do:
// relatedTasks.tasks[1].
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

func joinPath(path, member string) string {
	if path == "" {
		return member
	}
	return path + "." + member
}

// typeName is a JSON type as people say it (the schema's "integer" is a
// JSON number).
func typeName(t string) string {
	if t == "integer" {
		return "number"
	}
	return t
}

// checkManifest holds a task manifest's members the wizard reads to
// task-manifest.schema.json: "" or one line naming the JSON path.
func checkManifest(data []byte) string {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err.Error()
	}
	sch, err := schemaOf(taskManifestSchema, "")
	if err != nil {
		return err.Error()
	}
	leaf := firstLeaf(sch.Validate(doc))
	if leaf == nil {
		return ""
	}
	path, msg := (*Session)(nil).complaint(leaf)
	if path == "" {
		return msg
	}
	return path + ": " + msg
}
