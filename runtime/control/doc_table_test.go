package control

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/PROTOCOL.md's table of methods from Methods")

const (
	tableBegin = "<!-- methods: generated from runtime/control.Methods; go test ./runtime/control -run ProtocolDoc -update -->\n"
	tableEnd   = "<!-- end of methods -->\n"
)

// TestProtocolDocTable: docs/PROTOCOL.md's table of methods is the one
// rendered from the protocol's table (Methods), never a stale hand copy.
func TestProtocolDocTable(t *testing.T) {
	const path = "../../docs/PROTOCOL.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, tableBegin), strings.Index(doc, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated table of methods (between %q and %q)", path, strings.TrimSpace(tableBegin), strings.TrimSpace(tableEnd))
	}
	want := MethodsTable()
	if got := doc[i+len(tableBegin) : j]; got != want {
		if *update {
			if err := os.WriteFile(path, []byte(doc[:i+len(tableBegin)]+want+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("%s's table of methods is stale; run go test ./runtime/control -run ProtocolDoc -update\n--- doc\n%s--- Methods\n%s", path, got, want)
	}
}

// TestEveryMethodIsServed: every row of the table but the two the
// connection serves itself has a server side, and names are unique.
func TestEveryMethodIsServed(t *testing.T) {
	seen := map[string]bool{}
	for _, sp := range Methods() {
		if seen[sp.Name] {
			t.Fatalf("method %s is in the table twice", sp.Name)
		}
		seen[sp.Name] = true
		if self := sp.Name == MethodHello || sp.Name == MethodAttach; (sp.serve == nil) != self {
			t.Fatalf("method %s: served by the table %v, by the connection %v", sp.Name, sp.serve != nil, self)
		}
	}
}
