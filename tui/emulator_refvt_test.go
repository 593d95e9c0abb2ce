//go:build cockpit_refvt

package tui

import (
	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/panes/refvt"
)

// With -tags cockpit_refvt the tests and benchmarks run on x/vt (through
// refvt), the reference emulator: the screen must not care which.
func init() { panes.DefaultEmulator = refvt.New }
