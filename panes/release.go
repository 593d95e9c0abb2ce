package panes

import (
	"io"

	"github.com/okstra/cockpit/panes/refvt"
	"github.com/okstra/cockpit/panes/term"
)

// releaseEmulator frees what an emulator holds (goroutines, buffers) once the
// pane no longer feeds or reads it.
func releaseEmulator(e term.Emulator) error {
	if r, ok := e.(*refvt.Emulator); ok {
		// Workaround until refvt.Close is race-free: x/vt's Close writes a
		// flag that refvt's reply drainer reads without synchronisation, so
		// calling it trips the race detector. Closing x/vt's reply pipe ends
		// the drainer just as well without touching that flag; refvt's
		// cleanup runs the real Close once the emulator is collected.
		if pw, ok := r.Inner().InputPipe().(interface{ CloseWithError(error) error }); ok {
			return pw.CloseWithError(io.EOF)
		}
	}
	if c, ok := e.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
