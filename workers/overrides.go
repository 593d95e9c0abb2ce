package workers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/okstra/cockpit/state"
)

// applyFile applies one providers.json to the catalog. A missing file is
// skipped (false, nil). Every problem is a *state.Error naming the file and
// the JSON field.
func (c *Catalog) applyFile(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read providers file %s: %w", path, err)
	}
	if err := c.apply(path, data); err != nil {
		return false, err
	}
	return true, nil
}

// apply merges the providers of one providers.json document into c. Nothing
// changes in c unless the whole document is valid: its shape against
// assets/schemas/providers.schema.json (validateProviders), then by hand
// what a schema cannot say — what depends on the built-in catalog (a new
// provider's argv and models, defaults naming a row that a merge left),
// argv placeholders, roles and their aliases (state's list), idle budgets
// written as whole numbers (the schema's integer takes 1e3 and 1.0).
func (c *Catalog) apply(file string, data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return &state.Error{File: file, Msg: "is empty; expected a JSON object {\"providers\": {...}}"}
	}
	var probe any
	if err := json.Unmarshal(data, &probe); err != nil {
		return syntaxError(file, data, err)
	}
	if err := validateProviders(file, data); err != nil {
		return err
	}
	doc, err := decodeDoc(data)
	if err != nil {
		return &state.Error{File: file, Msg: "malformed JSON: " + err.Error(), Err: err}
	}
	d := decoder{file: file}
	idle, err := d.idleBudgets(doc.IdleBudgets)
	if err != nil {
		return err
	}
	next := make(map[string]*Provider, len(c.providers)+len(doc.Providers))
	for id, p := range c.providers {
		next[id] = p
	}
	for _, id := range sortedKeys(doc.Providers) {
		p, err := d.provider(id, doc.Providers[id], c.providers[id])
		if err != nil {
			return err
		}
		next[id] = p
	}
	c.providers = next
	if len(idle) > 0 && c.idle == nil {
		c.idle = map[string]idleBudget{}
	}
	for k, v := range idle {
		c.idle[k] = idleBudget{seconds: v, file: file}
	}
	return nil
}

// The document as its schema has it; the $-keys the schema allows are
// skipped.
type (
	fileDoc struct {
		Providers   map[string]providerDoc     `json:"providers"`
		IdleBudgets map[string]json.RawMessage `json:"idleBudgets"`
	}
	providerDoc struct {
		DisplayLabel  *string              `json:"displayLabel"`
		Argv          []string             `json:"argv"`
		PromptOn      *string              `json:"promptOn"`
		Models        map[string]*modelDoc `json:"models"` // nil: remove the row
		DefaultModels map[string]string    `json:"defaultModels"`
		Roles         *[]string            `json:"roles"`
	}
	modelDoc struct {
		Display        *string         `json:"display"`
		ExecutionValue *string         `json:"executionValue"`
		Selectable     *bool           `json:"selectable"`
		Pricing        json.RawMessage `json:"pricing"` // absent, null or [in, cached, out]
		CLIArgs        *[]string       `json:"cliArgs"`
	}
)

// decodeDoc decodes a document the schema accepted, without the members
// whose keys start with $ (ignored at every level, whatever they hold).
func decodeDoc(data []byte) (fileDoc, error) {
	var doc fileDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return doc, err
	}
	clean, err := json.Marshal(dropDollarKeys(v))
	if err != nil {
		return doc, err
	}
	return doc, json.Unmarshal(clean, &doc)
}

func dropDollarKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if strings.HasPrefix(k, "$") {
				delete(x, k)
			} else {
				x[k] = dropDollarKeys(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = dropDollarKeys(e)
		}
	}
	return v
}

// sortedKeys are m's keys in order, those starting with $ left out.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if !strings.HasPrefix(k, "$") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// maxIdleBudget bounds an idle budget: a week, far above any turn, and far
// below where seconds overflow a time.Duration. The schema says it too.
const maxIdleBudget = 7 * 24 * 3600

// idleBudgets reads the idleBudgets object, whose values the schema has
// made whole seconds within the bound: canonical roles (or an alias, or
// "default") to seconds, 0 for no limit.
func (d decoder) idleBudgets(entries map[string]json.RawMessage) (map[string]int, error) {
	out := make(map[string]int, len(entries))
	for _, k := range sortedKeys(entries) {
		field := "idleBudgets." + k
		key := IdleDefault
		if k != IdleDefault {
			canon, err := state.NormalizeRole(k)
			if err != nil {
				return nil, d.errf(field, "%v, or default", err)
			}
			key = canon
		}
		if _, dup := out[key]; dup {
			return nil, d.errf(field, "is the role %s a second time; give each role once", key)
		}
		v := bytes.TrimSpace(entries[k])
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || n < 0 || n > maxIdleBudget {
			return nil, d.errf(field, "is %s; expected whole seconds, 0 for no limit", v)
		}
		out[key] = int(n)
	}
	return out, nil
}

// decoder turns one providers.json into providers, naming the file and a
// dotted field path in every error.
type decoder struct{ file string }

func (d decoder) errf(field, format string, args ...any) error {
	return &state.Error{File: d.file, Field: field, Msg: fmt.Sprintf(format, args...)}
}

func syntaxError(file string, data []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line, col := 1, 1
		for i := int64(0); i < syn.Offset-1 && i < int64(len(data)); i++ {
			if data[i] == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return &state.Error{File: file, Msg: fmt.Sprintf("malformed JSON at line %d, column %d: %v", line, col, syn), Err: err}
	}
	return &state.Error{File: file, Msg: "malformed JSON: " + err.Error(), Err: err}
}

// provider builds the provider id from its entry, on top of base (nil for a
// provider the file adds).
func (d decoder) provider(id string, e providerDoc, base *Provider) (*Provider, error) {
	at := "providers." + id
	var p *Provider
	if base != nil {
		p = base.clone()
	} else {
		if e.Argv == nil {
			return nil, d.errf(at+".argv", "is missing; a provider that is not built in needs its argv template")
		}
		if e.Models == nil {
			return nil, d.errf(at+".models", "is missing; a provider that is not built in needs at least one model")
		}
		p = &Provider{ID: id, DisplayLabel: id, promptOn: PromptOnStdin, DefaultModels: map[string]string{}}
	}
	p.Source = d.file
	if e.DisplayLabel != nil {
		p.DisplayLabel = *e.DisplayLabel
	}
	if e.Argv != nil {
		p.Command = e.Argv
	}
	if e.PromptOn != nil {
		p.promptOn = *e.PromptOn
	}
	if err := checkCommand(p.Command, p.PromptOn()); err != nil {
		return nil, d.errf(at+".argv", "%v", err)
	}
	for _, mid := range sortedKeys(e.Models) {
		p.Models = mergeModel(p.Models, mid, e.Models[mid])
	}
	if len(p.Models) == 0 && p.accept == nil {
		return nil, d.errf(at+".models", "leaves the provider without any model")
	}
	if e.Roles != nil {
		p.Roles = p.Roles[:0]
		for i, role := range *e.Roles {
			canon, err := state.NormalizeRole(role)
			if err != nil {
				return nil, d.errf(fmt.Sprintf("%s.roles[%d]", at, i), "%v", err)
			}
			p.Roles = append(p.Roles, canon)
		}
	}
	for _, role := range sortedKeys(e.DefaultModels) {
		canon, err := state.NormalizeRole(role)
		if err != nil {
			return nil, d.errf(at+".defaultModels."+role, "%v", err)
		}
		p.DefaultModels[canon] = e.DefaultModels[role]
	}
	for _, role := range sortedKeys(p.DefaultModels) {
		if model := p.DefaultModels[role]; !p.hasRow(model) {
			return nil, d.errf(at+".defaultModels."+role, "names model %q, which provider %s does not have (known: %s)", model, id, strings.Join(p.modelIDs(), ", "))
		}
	}
	return p, nil
}

func (p *Provider) hasRow(id string) bool {
	for _, m := range p.Models {
		if m.ID == id {
			return true
		}
	}
	return false
}

// mergeModel merges one entry of a models object into the rows by id: a
// known id changes only the fields given, a new id adds a row (selectable
// unless it says otherwise), and null (e nil) removes the row.
func mergeModel(rows []Model, id string, e *modelDoc) []Model {
	if e == nil {
		return removeModel(rows, id)
	}
	idx := slices.IndexFunc(rows, func(m Model) bool { return m.ID == id })
	m := Model{ID: id, Display: id, ExecutionValue: id, Selectable: true}
	if idx >= 0 {
		m = rows[idx]
	}
	if e.Display != nil {
		m.Display = *e.Display
	}
	if e.ExecutionValue != nil {
		m.ExecutionValue = *e.ExecutionValue
	}
	if e.Selectable != nil {
		m.Selectable = *e.Selectable
	}
	if len(e.Pricing) > 0 {
		var v []float64
		m.Pricing = nil
		if json.Unmarshal(e.Pricing, &v) == nil && len(v) == 3 {
			m.Pricing = &Pricing{Input: v[0], CachedInput: v[1], Output: v[2]}
		}
	}
	if e.CLIArgs != nil {
		m.CLIArgs = *e.CLIArgs
	}
	if idx >= 0 {
		rows[idx] = m
		return rows
	}
	return append(rows, m)
}

func removeModel(ms []Model, id string) []Model {
	out := ms[:0]
	for _, m := range ms {
		if m.ID != id {
			out = append(out, m)
		}
	}
	return out
}
