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
// changes in c unless the whole document is valid.
func (c *Catalog) apply(file string, data []byte) error {
	d := decoder{file: file}
	top, err := d.object(data, "(top level)")
	if err != nil {
		return err
	}
	for k := range top {
		if k != "providers" && k != "idleBudgets" && !strings.HasPrefix(k, "$") {
			return d.errf(k, "is not a providers.json field; the file holds {\"providers\": {<id>: {...}}, \"idleBudgets\": {<role>: <seconds>}}")
		}
	}
	var idle map[string]int
	if raw, ok := top["idleBudgets"]; ok {
		if idle, err = d.idleBudgets(raw); err != nil {
			return err
		}
	}
	raw, ok := top["providers"]
	if !ok && idle == nil {
		return d.errf("providers", "is missing; the file holds {\"providers\": {<id>: {...}}}")
	}
	entries := map[string]json.RawMessage{}
	if ok {
		if entries, err = d.object(raw, "providers"); err != nil {
			return err
		}
	}
	next := make(map[string]*Provider, len(c.providers)+len(entries))
	for id, p := range c.providers {
		next[id] = p
	}
	ids := make([]string, 0, len(entries))
	for id := range entries {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		p, err := d.provider(id, entries[id], c.providers[id])
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

// maxIdleBudget bounds an idle budget: a week, far above any turn, and far
// below where seconds overflow a time.Duration.
const maxIdleBudget = 7 * 24 * 3600

// idleBudgets reads the idleBudgets object: canonical roles (or an alias, or
// "default") to whole seconds, 0 for no limit.
func (d decoder) idleBudgets(raw json.RawMessage) (map[string]int, error) {
	entries, err := d.object(raw, "idleBudgets")
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(entries))
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		field := "idleBudgets." + k
		if strings.HasPrefix(k, "$") {
			continue
		}
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
		switch {
		case jsonKind(v) != "a number":
			return nil, d.errf(field, "is %s; expected whole seconds, 0 for no limit", jsonKind(v))
		case err != nil && strings.ContainsAny(string(v), ".eE"):
			return nil, d.errf(field, "is %s; expected whole seconds, 0 for no limit", v)
		case err != nil || n > maxIdleBudget:
			return nil, d.errf(field, "is %s; expected at most %d seconds (a week), or 0 for no limit", v, maxIdleBudget)
		case n < 0:
			return nil, d.errf(field, "is negative; expected whole seconds, 0 for no limit")
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

func (d decoder) object(raw json.RawMessage, field string) (map[string]json.RawMessage, error) {
	if field == "(top level)" {
		if len(bytes.TrimSpace(raw)) == 0 {
			return nil, &state.Error{File: d.file, Msg: "is empty; expected a JSON object {\"providers\": {...}}"}
		}
		var probe any
		if err := json.Unmarshal(raw, &probe); err != nil {
			return nil, d.syntax(raw, err)
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, d.errf(field, "is %s; expected an object", jsonKind(raw))
	}
	return m, nil
}

func (d decoder) syntax(data []byte, err error) error {
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
		return &state.Error{File: d.file, Msg: fmt.Sprintf("malformed JSON at line %d, column %d: %v", line, col, syn)}
	}
	return &state.Error{File: d.file, Msg: "malformed JSON: " + err.Error()}
}

func (d decoder) str(raw json.RawMessage, field string) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", d.errf(field, "is %s; expected a string", jsonKind(raw))
	}
	return s, nil
}

func (d decoder) strs(raw json.RawMessage, field string) ([]string, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(raw, &raws); err != nil || raws == nil {
		return nil, d.errf(field, "is %s; expected an array of strings", jsonKind(raw))
	}
	out := make([]string, len(raws))
	for i, r := range raws {
		s, err := d.str(r, fmt.Sprintf("%s[%d]", field, i))
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

func (d decoder) boolean(raw json.RawMessage, field string) (bool, error) {
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		return false, d.errf(field, "is %s; expected true or false", jsonKind(raw))
	}
	return b, nil
}

var providerFields = []string{"displayLabel", "argv", "promptOn", "models", "defaultModels", "roles"}

// provider builds the provider id from its entry, on top of base (nil for a
// provider the file adds).
func (d decoder) provider(id string, raw json.RawMessage, base *Provider) (*Provider, error) {
	at := "providers." + id
	if id == "" || strings.ContainsAny(id, " \t\n/") {
		return nil, d.errf(at, "is not a usable provider id; use a short name such as \"my-agent\"")
	}
	fields, err := d.object(raw, at)
	if err != nil {
		return nil, err
	}
	for k := range fields {
		if !slices.Contains(providerFields, k) && !strings.HasPrefix(k, "$") {
			return nil, d.errf(at+"."+k, "is not a provider field (known: %s)", strings.Join(providerFields, ", "))
		}
	}
	var p *Provider
	if base != nil {
		p = base.clone()
	} else {
		if _, ok := fields["argv"]; !ok {
			return nil, d.errf(at+".argv", "is missing; a provider that is not built in needs its argv template")
		}
		if _, ok := fields["models"]; !ok {
			return nil, d.errf(at+".models", "is missing; a provider that is not built in needs at least one model")
		}
		p = &Provider{ID: id, DisplayLabel: id, promptOn: PromptOnStdin, DefaultModels: map[string]string{}}
	}
	p.Source = d.file
	if r, ok := fields["displayLabel"]; ok {
		if p.DisplayLabel, err = d.str(r, at+".displayLabel"); err != nil {
			return nil, err
		}
		if p.DisplayLabel == "" {
			return nil, d.errf(at+".displayLabel", "is empty")
		}
	}
	if r, ok := fields["argv"]; ok {
		if p.Command, err = d.strs(r, at+".argv"); err != nil {
			return nil, err
		}
	}
	if r, ok := fields["promptOn"]; ok {
		s, err := d.str(r, at+".promptOn")
		if err != nil {
			return nil, err
		}
		if s != PromptOnStdin && s != PromptOnFile && s != PromptOnArgv {
			return nil, d.errf(at+".promptOn", "is %q; expected \"stdin\", \"file\" or \"argv\"", s)
		}
		p.promptOn = s
	}
	if err := checkCommand(p.Command, p.PromptOn()); err != nil {
		return nil, d.errf(at+".argv", "%v", err)
	}
	if r, ok := fields["models"]; ok {
		if err := d.models(p, r, at+".models"); err != nil {
			return nil, err
		}
	}
	if len(p.Models) == 0 && p.accept == nil {
		return nil, d.errf(at+".models", "leaves the provider without any model")
	}
	if r, ok := fields["roles"]; ok {
		roles, err := d.strs(r, at+".roles")
		if err != nil {
			return nil, err
		}
		p.Roles = p.Roles[:0]
		for i, role := range roles {
			canon, err := state.NormalizeRole(role)
			if err != nil {
				return nil, d.errf(fmt.Sprintf("%s.roles[%d]", at, i), "%v", err)
			}
			p.Roles = append(p.Roles, canon)
		}
	}
	if r, ok := fields["defaultModels"]; ok {
		defs, err := d.object(r, at+".defaultModels")
		if err != nil {
			return nil, err
		}
		for role, rv := range defs {
			field := at + ".defaultModels." + role
			canon, err := state.NormalizeRole(role)
			if err != nil {
				return nil, d.errf(field, "%v", err)
			}
			model, err := d.str(rv, field)
			if err != nil {
				return nil, err
			}
			p.DefaultModels[canon] = model
		}
	}
	roles := make([]string, 0, len(p.DefaultModels))
	for role := range p.DefaultModels {
		roles = append(roles, role)
	}
	sort.Strings(roles)
	for _, role := range roles {
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

var modelFields = []string{"display", "executionValue", "selectable", "pricing", "cliArgs"}

// models merges the models object into p's rows by id: a known id changes
// only the fields given, a new id adds a row (selectable unless it says
// otherwise), and null removes the row.
func (d decoder) models(p *Provider, raw json.RawMessage, at string) error {
	entries, err := d.object(raw, at)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(entries))
	for id := range entries {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		field := at + "." + id
		if id == "" {
			return d.errf(field, "is an empty model id")
		}
		if bytes.Equal(bytes.TrimSpace(entries[id]), []byte("null")) {
			p.Models = removeModel(p.Models, id)
			continue
		}
		fields, err := d.object(entries[id], field)
		if err != nil {
			return err
		}
		idx := -1
		for i := range p.Models {
			if p.Models[i].ID == id {
				idx = i
			}
		}
		m := Model{ID: id, Display: id, ExecutionValue: id, Selectable: true}
		if idx >= 0 {
			m = p.Models[idx]
		}
		for k, r := range fields {
			f := field + "." + k
			switch k {
			case "display":
				if m.Display, err = d.str(r, f); err != nil {
					return err
				}
			case "executionValue":
				if m.ExecutionValue, err = d.str(r, f); err != nil {
					return err
				}
				if m.ExecutionValue == "" {
					return d.errf(f, "is empty")
				}
			case "selectable":
				if m.Selectable, err = d.boolean(r, f); err != nil {
					return err
				}
			case "pricing":
				if m.Pricing, err = d.pricing(r, f); err != nil {
					return err
				}
			case "cliArgs":
				if m.CLIArgs, err = d.strs(r, f); err != nil {
					return err
				}
			default:
				if !strings.HasPrefix(k, "$") {
					return d.errf(f, "is not a model field (known: %s)", strings.Join(modelFields, ", "))
				}
			}
		}
		if idx >= 0 {
			p.Models[idx] = m
		} else {
			p.Models = append(p.Models, m)
		}
	}
	return nil
}

// pricing reads [input, cachedInput, output] in USD per 1M tokens, or null
// for an unpriced model.
func (d decoder) pricing(raw json.RawMessage, field string) (*Pricing, error) {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, nil
	}
	var v []float64
	if err := json.Unmarshal(raw, &v); err != nil || len(v) != 3 {
		return nil, d.errf(field, "is %s; expected [input, cachedInput, output] in USD per 1M tokens, or null", jsonKind(raw))
	}
	for i, x := range v {
		if x < 0 {
			return nil, d.errf(fmt.Sprintf("%s[%d]", field, i), "is negative")
		}
	}
	return &Pricing{Input: v[0], CachedInput: v[1], Output: v[2]}, nil
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

// jsonKind names the JSON type of raw for error messages.
func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "empty"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		var a []json.RawMessage
		if json.Unmarshal(t, &a) == nil {
			if len(a) == 0 {
				return "an empty array"
			}
			return fmt.Sprintf("an array of %d", len(a))
		}
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
