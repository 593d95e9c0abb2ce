package engine

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// The engine's log (cockpit-engine.log in the run's state directory): one
// JSON object a line (log/slog), which `cockpit logs` renders and follows.
// It records every control request with its outcome, the panes' lives,
// every settle decision, the watcher's overflows and rescans, the gates and
// the attached screens — with the dispatch, pane, gate and screen ids, so a
// run can be debugged from it — and never a prompt, a gate's text or a
// program's output.

// MaxLogSize is the size past which the log is rotated: cockpit-engine.log
// becomes cockpit-engine.log.1 (replacing the one before), so the log of a
// run takes at most twice this.
const MaxLogSize = 4 << 20

// LogFile is the engine's log file, appended to and rotated at MaxLogSize.
// It is opened with O_NOFOLLOW and O_NONBLOCK and must be a regular file: a
// symlink planted at its name (a cloned repository can carry one) is
// refused, never followed out of the run.
type LogFile struct {
	mu   sync.Mutex
	path string
	f    *os.File
	size int64
	max  int64
	std  bool // stdout and stderr follow the log across rotations
}

// OpenLog opens (or creates, 0600) the log at path for appending.
func OpenLog(path string) (*LogFile, error) {
	f, size, err := openLogFile(path, 0)
	if err != nil {
		return nil, err
	}
	return &LogFile{path: path, f: f, size: size, max: MaxLogSize}, nil
}

func openLogFile(path string, excl int) (*os.File, int64, error) {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|excl, 0o600)
	if errors.Is(err, unix.ELOOP) {
		return nil, 0, fmt.Errorf("engine log %s is a symlink; the cockpit writes only files of its own: remove it and start again", path)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("open the engine's log %s: %w", path, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, 0, fmt.Errorf("stat the engine's log %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, 0, fmt.Errorf("engine log %s is not a regular file; remove it and start again", path)
	}
	return os.NewFile(uintptr(fd), path), st.Size, nil
}

// File is the open log file (for a child's stdout and stderr).
func (l *LogFile) File() *os.File {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f
}

// CaptureStd points this process's stdout and stderr at the log, now and
// after every rotation, so a panic's trace lands in the current log.
func (l *LogFile) CaptureStd() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.std = true
	return l.dupStdLocked()
}

func (l *LogFile) dupStdLocked() error {
	for _, fd := range []int{1, 2} {
		if err := unix.Dup3(int(l.f.Fd()), fd, 0); err != nil {
			return fmt.Errorf("point fd %d at the engine's log: %w", fd, err)
		}
	}
	return nil
}

// Write appends p, rotating first when p would take the log past its size.
func (l *LogFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.size > 0 && l.size+int64(len(p)) > l.max {
		l.rotateLocked()
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

// rotateLocked renames the log to <path>.1 and opens a new one. rename
// never follows a symlink, and the new file is made with O_EXCL: one
// planted meanwhile is not written through. On failure the log goes on in
// the old file.
func (l *LogFile) rotateLocked() {
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		l.size = 0 // keep writing; try again at the next MaxLogSize
		return
	}
	f, _, err := openLogFile(l.path, unix.O_EXCL)
	if err != nil {
		fmt.Fprintf(l.f, "{\"level\":\"ERROR\",\"msg\":\"log rotation failed; the log goes on in %s.1\",\"err\":%q}\n", l.path, err.Error())
		l.size = 0
		return
	}
	l.f.Close()
	l.f, l.size = f, 0
	if l.std {
		_ = l.dupStdLocked()
	}
}

// Close closes the log file.
func (l *LogFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Close()
}

// NewLogger is the engine's logger writing JSON lines to w.
func NewLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}
