// Package vt is the cockpit's own terminal emulator: a table-driven DEC/ANSI
// parser feeding a ring of pointer-free cell lines with a compact scrollback.
// It is the hot path for every byte a worker prints, so it allocates nothing
// in steady state. It implements term.Emulator and imports nothing of the UI.
//
// It also owns the emulator's face for people and benchmarks: Replay prints
// the screen a byte stream leaves behind, and the stream generators in gen.go
// produce the deterministic log-like and TUI-repaint workloads that the
// benchmarks and differential tests use. docs/EMULATOR.md describes the
// supported sequences, the rendering form, the known departures from x/vt
// and tmux, and the code map: the sequence handlers live by family in
// seq_*.go, one named operation per sequence.
package vt
