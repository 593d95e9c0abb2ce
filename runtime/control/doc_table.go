package control

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

// MethodsTable is docs/PROTOCOL.md's table of methods, rendered from
// Methods: names, the JSON fields of the params and result types (`?`
// marks one that may be left out), what the result means, and the
// client's timeout. TestProtocolDocTable fails when the doc's copy is
// stale (`go test ./runtime/control -run ProtocolDoc -update` rewrites it).
func MethodsTable() string {
	var b strings.Builder
	b.WriteString("| method | params | result | client timeout |\n|---|---|---|---|\n")
	for _, sp := range Methods() {
		params, result := sp.ParamsDoc, sp.ResultDoc
		if params == "" {
			params = "`" + shape(sp.Params, 0) + "`"
		}
		if result == "" {
			result = "`" + shape(sp.Result, 0) + "`"
		}
		if sp.Note != "" {
			result += " — " + sp.Note
		}
		timeout := "none: pings every " + PingInterval.String() + ", gives up after " + PingTimeout.String() + " without a pong"
		if sp.Timeout > 0 {
			timeout = sp.Timeout.String()
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", sp.Name, params, result, timeout)
	}
	return b.String()
}

// timeType is time.Time's type (a function, not a variable: no init).
func timeType() reflect.Type { return reflect.TypeFor[time.Time]() }

// shape renders t's JSON shape: an object's fields by their JSON names.
func shape(t reflect.Type, depth int) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType():
		return "time"
	case t.Kind() == reflect.Struct:
		fields := structFields(t, depth)
		return "{" + strings.Join(fields, ", ") + "}"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct && t.Elem() != timeType():
		return "[" + shape(t.Elem(), depth) + "]"
	}
	return ""
}

func structFields(t reflect.Type, depth int) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, structFields(f.Type, depth)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(opts, "omitempty") {
			name += "?"
		}
		if sub := shape(f.Type, depth+1); sub != "" && depth < 2 {
			name += ": " + sub
		}
		out = append(out, name)
	}
	return out
}
