package state

import "fmt"

// Error is a problem with one run file: which file, which field, what is
// wrong and, where it helps, what to do. Its text is one line.
type Error struct {
	File  string // the path as the user gave it or the run manifest names it
	Field string // a JSON path such as "jobs[2].promptPath"; empty for the whole file
	Msg   string
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

func errf(file, field, format string, args ...any) *Error {
	return &Error{File: file, Field: field, Msg: fmt.Sprintf(format, args...)}
}
