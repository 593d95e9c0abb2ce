//go:build cockpit_vt

package tui

import (
	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/panes/term"
	"github.com/okstra/cockpit/panes/vt"
)

// With -tags cockpit_vt the tests and benchmarks run on the project's own
// emulator instead of the default one; the screen must not care which.
func init() {
	panes.DefaultEmulator = func(cols, rows int) term.Emulator { return vt.New(cols, rows) }
}
