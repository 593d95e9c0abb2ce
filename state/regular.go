package state

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// The run's files are regular files. A FIFO, a socket or a device planted
// where one is expected (by a cloned repository, a worker, a mistake) would
// block a plain open or read for ever — every command, teardown, the
// engine's refresh — or swallow a write. So every run file is opened
// O_NONBLOCK (an open of a FIFO returns at once) and checked with fstat on
// the descriptor it was opened as, and anything but a regular file is
// refused with one line naming it and what it is.

// NotRegularError is a run file that exists but is not a regular file.
type NotRegularError struct {
	File string      // as the user or the run manifest names it
	Mode fs.FileMode // its type bits
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: is %s, not a regular file; remove it and restore the file", e.File, KindOf(e.Mode))
}

// KindOf names a file's type for a message: "a FIFO (named pipe)", "a
// directory", ...
func KindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// OpenRegular opens path for reading without blocking and refuses anything
// but a regular file. A missing file is an error wrapping fs.ErrNotExist.
func OpenRegular(path, display string) (*os.File, error) {
	return openRegular(path, display, os.O_RDONLY, 0)
}

// openRegular opens path with flag|O_NONBLOCK|O_CLOEXEC and checks the
// descriptor is a regular file.
func openRegular(path, display string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK|syscall.O_CLOEXEC, perm)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{File: display, Mode: st.Mode().Type()}
	}
	return f, nil
}

// ReadRegular is os.ReadFile for a run file: it never blocks on a FIFO and
// refuses anything but a regular file (NotRegularError). A missing file is
// an error wrapping fs.ErrNotExist.
func ReadRegular(path, display string) ([]byte, error) {
	f, err := OpenRegular(path, display)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// regularKind says what a path that exists but is not a regular file is
// ("" when it is one, or does not exist).
func regularKind(path string) string {
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() {
		return ""
	}
	return KindOf(st.Mode().Type())
}

// IsNotRegular reports whether err says a run file is not a regular file.
func IsNotRegular(err error) bool {
	var nr *NotRegularError
	return errors.As(err, &nr)
}
