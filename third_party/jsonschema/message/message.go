// Package message stands in, in this copy of jsonschema, for
// golang.org/x/text/message (cockpit patch, see ../README.md): the
// cockpit prints its validation errors in English only, and x/text's
// seven packages ran their inits in every cockpit command.
package message

import "fmt"

// Printer formats messages; its zero value is ready to use.
type Printer struct{}

// NewPrinter returns a Printer.
func NewPrinter() *Printer { return &Printer{} }

// Sprintf is fmt.Sprintf. (x/text's English printer also grouped the
// digits of numbers, 1,000; this one writes 1000.)
func (*Printer) Sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
