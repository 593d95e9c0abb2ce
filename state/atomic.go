package state

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/renameio/v2"
)

// LockTimeout bounds how long a writer waits for another writer's lock.
var LockTimeout = 30 * time.Second

// WriteFileAtomic replaces path with data: a temp file in the same directory,
// synced, then renamed over path, so a reader or a crash sees the old file or
// the new one, never half of one.
//
// The file keeps its mode: perm applies only to a file that does not exist
// yet. A file the user made read-only (no owner write bit) is refused with
// one line and left as it is — a rename would replace it whatever its mode
// (and the cockpit may run as root, whom permissions do not stop).
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() {
		if err := readOnly(st, path); err != nil {
			return err
		}
		perm = st.Mode().Perm()
	}
	// The temp file goes in the file's own directory: renameio would
	// otherwise probe $TMPDIR with two test files on every write and, when
	// it shares the file system, write there instead.
	if err := renameio.WriteFile(path, data, perm, renameio.WithTempDir(filepath.Dir(path))); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// LockPath is the lock file that guards path. The lock is on a sibling file,
// not on path itself, because every write replaces path's inode.
func LockPath(path string) string { return path + ".lock" }

// WithLock runs fn while holding the exclusive lock of path. Locks are
// advisory (flock(2)) on a sibling lock file. Writers of one process first
// queue on an in-process mutex, so at most one goroutine per process waits
// in flock: many blocked flock waiters are all woken on every release, and
// that thundering herd costs more than the writes themselves.
func WithLock(path string, fn func() error) error {
	return WithLockContext(context.Background(), path, fn)
}

// WithLockContext is WithLock giving up when ctx ends first (its error,
// naming the lock): a command's --timeout holds while another writer keeps
// the lock.
func WithLockContext(ctx context.Context, path string, fn func() error) error {
	mu := pathMutex(path)
	if !lockWithTimeout(ctx, mu) {
		if ctx.Err() != nil {
			return lockWaitError(ctx, path)
		}
		return lockTimeoutError(path)
	}
	defer mu.Unlock()
	// O_NOFOLLOW: a lock file planted as a symlink must not make the lock
	// create or open a file outside the project.
	fl := flock.New(LockPath(path), flock.SetFlag(os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW))
	// A blocking flock is fair to waiting processes where polling is not;
	// the timeout only gives up waiting, and a lock granted after that is
	// released at once.
	got := make(chan error, 1)
	go func() { got <- fl.Lock() }()
	timer := time.NewTimer(LockTimeout)
	defer timer.Stop()
	select {
	case err := <-got:
		if err != nil {
			return fmt.Errorf("lock %s: %w", path, err)
		}
	case <-timer.C:
		go func() {
			if <-got == nil {
				fl.Unlock()
			}
		}()
		return lockTimeoutError(path)
	case <-ctx.Done():
		go func() {
			if <-got == nil {
				fl.Unlock()
			}
		}()
		return lockWaitError(ctx, path)
	}
	defer fl.Unlock()
	return fn()
}

// lockWaitError is a lock wait ended by ctx: it wraps ctx's error.
func lockWaitError(ctx context.Context, path string) error {
	return fmt.Errorf("wait for the lock %s: %w", LockPath(path), ctx.Err())
}

func lockTimeoutError(path string) error {
	return &Error{File: path, Msg: fmt.Sprintf("another writer has held its lock (%s) for %s; if no cockpit or okstra command is running, remove the lock file", LockPath(path), LockTimeout)}
}

var pathMutexes sync.Map // absolute path → *sync.Mutex

func pathMutex(path string) *sync.Mutex {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	mu, _ := pathMutexes.LoadOrStore(path, &sync.Mutex{})
	return mu.(*sync.Mutex)
}

// lockWithTimeout takes mu, giving up after LockTimeout or when ctx ends.
func lockWithTimeout(ctx context.Context, mu *sync.Mutex) bool {
	if mu.TryLock() {
		return true
	}
	deadline := time.Now().Add(LockTimeout)
	got := make(chan struct{})
	go func() {
		mu.Lock()
		close(got)
	}()
	giveUp := func() bool {
		go func() {
			<-got
			mu.Unlock()
		}()
		return false
	}
	select {
	case <-got:
		return true
	case <-time.After(time.Until(deadline)):
		return giveUp()
	case <-ctx.Done():
		return giveUp()
	}
}

// decodeStrict decodes a JSON document into v and turns decoding errors into
// one line naming the file and, where known, the field.
func decodeStrict(data []byte, v any, display string) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return &Error{File: display, Msg: "is empty; expected a JSON object"}
	}
	if err := json.Unmarshal(data, v); err != nil {
		return jsonError(display, data, err)
	}
	return nil
}

func jsonError(display string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && truncatedJSON(data):
		return &Error{File: display, Msg: "is truncated: the JSON ends early; restore or regenerate the file", Err: err}
	case errors.As(err, &syn):
		line, col := lineCol(data, syn.Offset)
		return &Error{File: display, Msg: fmt.Sprintf("malformed JSON at line %d, column %d: %s", line, col, syn.Error()), Err: err}
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "(top level)"
		}
		return &Error{File: display, Field: field, Msg: fmt.Sprintf("is a JSON %s; expected %s", typ.Value, goTypeName(typ.Type.String())), Err: err}
	}
	return &Error{File: display, Msg: "invalid JSON: " + err.Error(), Err: err}
}

// truncatedJSON reports whether data is a JSON value cut short: its first
// value ends before it is complete. json.Unmarshal says so only in its
// message; a json.Decoder says it with io.ErrUnexpectedEOF.
func truncatedJSON(data []byte) bool {
	var v json.RawMessage
	err := json.NewDecoder(bytes.NewReader(data)).Decode(&v)
	return errors.Is(err, io.ErrUnexpectedEOF)
}

func goTypeName(t string) string {
	switch t {
	case "string":
		return "a string"
	case "int", "int64", "float64":
		return "a number"
	case "bool":
		return "true or false"
	}
	if len(t) > 2 && t[:2] == "[]" {
		return "an array"
	}
	return "an object"
}

// lineCol turns a *json.SyntaxError's Offset (the bytes read when the
// error was found, so the bad byte is the one before it) into the 1-based
// line and column of that byte.
func lineCol(data []byte, off int64) (int, int) {
	line, col := 1, 1
	for i := int64(0); i < off-1 && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// readJSON reads and decodes a JSON run file.
func readJSON(path, display string, v any) error {
	data, err := readFileOf(path, display)
	if err != nil {
		return err
	}
	return decodeStrict(data, v, display)
}

// readFileOf reads a run file that must exist: one line naming it when it
// does not, or is not a regular file.
func readFileOf(path, display string) ([]byte, error) {
	data, err := ReadRegular(path, display)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{File: display, Msg: "does not exist", Err: err}
	}
	if err != nil {
		return nil, readErr(display, err)
	}
	return data, nil
}

// readErr is the error of a failed read of a run file: one that is not a
// regular file says so itself; anything else is wrapped with the file.
func readErr(display string, err error) error {
	if IsNotRegular(err) {
		return err
	}
	return fmt.Errorf("read %s: %w", display, err)
}

// ReadOnlyError is a run file the user made read-only: the cockpit does not
// write it.
type ReadOnlyError struct {
	File string
	Mode fs.FileMode
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("%s: is read-only (mode %04o); the cockpit does not replace a file you made read-only — make it writable (chmod u+w) to let it record, or restore the run's copy", e.File, e.Mode.Perm())
}

func readOnly(st fs.FileInfo, display string) error {
	if st.Mode().Perm()&0o200 == 0 {
		return &ReadOnlyError{File: display, Mode: st.Mode()}
	}
	return nil
}

// refuseReadOnly refuses an open run file without its owner write bit.
func refuseReadOnly(f *os.File, display string) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return readOnly(st, display)
}
