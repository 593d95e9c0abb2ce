package panes

import (
	"io"

	"github.com/okstra/cockpit/panes/term"
)

// releaseEmulator frees what an emulator holds (goroutines, buffers) once the
// pane no longer feeds or reads it.
func releaseEmulator(e term.Emulator) error {
	if c, ok := e.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
