package state

import "fmt"

// Error is a problem with one run file: which file, which field, what is
// wrong and, where it helps, what to do. Its text is one line.
type Error struct {
	File  string // the path as the user gave it or the run manifest names it
	Field string // a JSON path such as "jobs[2].promptPath"; empty for the whole file
	Msg   string
	// Err is the underlying error, when there is one (a *json.SyntaxError,
	// an *fs.PathError, ...). Msg already says what it says; Err is there
	// for errors.Is and errors.As, and does not change the text.
	Err error
}

func (e *Error) Error() string {
	switch {
	case e.File == "" && e.Field == "":
		return e.Msg
	case e.Field == "":
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.File == "":
		return fmt.Sprintf("%s: %s", e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, e.Field, e.Msg)
}

// Unwrap returns the underlying error, or nil.
func (e *Error) Unwrap() error { return e.Err }

func errf(file, field, format string, args ...any) *Error {
	return &Error{File: file, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// wrapf is errf keeping err as the underlying error.
func wrapf(err error, file, field, format string, args ...any) *Error {
	e := errf(file, field, format, args...)
	e.Err = err
	return e
}
