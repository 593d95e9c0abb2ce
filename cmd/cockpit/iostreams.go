package main

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// IOStreams are a command's standard streams and whether each is a
// terminal, decided once when the streams are made. Commands ask the
// streams (IsStdinTTY, IsStdoutTTY), never the files; tests swap in
// buffers, which are never terminals.
type IOStreams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer

	stdinTTY, stdoutTTY bool
}

// newIOStreams wraps the three streams, noting which are terminals (a
// character device such as /dev/null is not).
func newIOStreams(in io.Reader, out, errw io.Writer) *IOStreams {
	return &IOStreams{In: in, Out: out, Err: errw, stdinTTY: isTerminal(in), stdoutTTY: isTerminal(out)}
}

// IsStdinTTY reports whether the input stream is a terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// IsStdoutTTY reports whether the output stream is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// isTerminal reports whether v is an *os.File on a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok || f == nil {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// Factory is what every NewCmdX gets: the streams and the environment the
// flag defaults come from. Tests build one around buffers and a map.
type Factory struct {
	IO     *IOStreams
	Getenv func(string) string
}

// newFactory is the factory of a real process.
func newFactory(in io.Reader, out, errw io.Writer) *Factory {
	return &Factory{IO: newIOStreams(in, out, errw), Getenv: os.Getenv}
}

// envOr is the environment variable key, or def when it is unset or empty.
func (f *Factory) envOr(key, def string) string {
	if v := f.Getenv(key); v != "" {
		return v
	}
	return def
}
