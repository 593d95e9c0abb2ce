// Package vt is the cockpit's own terminal emulator: a table-driven DEC/ANSI
// parser feeding a ring of pointer-free cell lines with scrollback. It is the
// hot path for every byte a worker prints, so it allocates nothing in steady
// state. It implements term.Emulator and imports nothing of the UI.
package vt
