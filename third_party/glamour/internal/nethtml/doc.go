// Package nethtml is the HTML tokenizer of golang.org/x/net/html v0.59.0
// (token.go, escape.go and entity.go, BSD-licensed: see LICENSE), which
// glamour's HTML stripping uses (ansi/context.go). cockpit patch: the entity
// tables are built on the first unescape, not at package init (x/net/html
// builds them in every program that links it: 113 KB of heap, ≈30 minor
// page faults per process). Nothing else is changed; the parser, the
// renderer and the node tree are left out.
package nethtml

import "io"

// writer is render.go's (left out): what escape writes to.
type writer interface {
	io.Writer
	io.ByteWriter
	WriteString(string) (int, error)
}
