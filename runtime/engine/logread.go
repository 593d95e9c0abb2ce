package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/runtime/watch"
)

// ReadLog writes the last n lines of the engine log at path to w (every
// line when n ≤ 0), each through render; with follow it then writes every
// line appended, across rotations, until ctx ends. The log is opened
// without following a symlink and without blocking, and must be a regular
// file. It waits on file events, never on a timer.
func ReadLog(ctx context.Context, path string, n int, follow bool, w io.Writer, render func([]byte) string) error {
	f, err := openLogRead(path)
	if err != nil {
		return err
	}
	defer func() { f.Close() }()
	var wt *watch.Watcher
	if follow {
		// Watch before reading, so no line appended meanwhile is missed.
		if wt, err = watch.NewWatcher(); err != nil {
			return err
		}
		defer wt.Close()
		if err := wt.Watch(path, watch.EvOther); err != nil {
			return fmt.Errorf("watch %s: %w", path, err)
		}
	}
	r := bufio.NewReaderSize(f, 64<<10)
	partial, err := writeLast(r, n, w, render)
	if err != nil || !follow {
		return err
	}
	drain := func() error {
		for {
			line, err := r.ReadBytes('\n')
			if errors.Is(err, io.EOF) {
				partial = append(partial, line...)
				return nil
			}
			if err != nil {
				return err
			}
			line = append(partial, line...)
			partial = nil
			if _, err := fmt.Fprintln(w, render(bytes.TrimRight(line, "\n"))); err != nil {
				return err
			}
		}
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-wt.Events():
		case <-wt.Errors():
		}
		if err := drain(); err != nil {
			return err
		}
		// Rotated: the name now leads to a new file; finish the old one
		// (done above) and go on from the new one's start.
		if same, err := sameFile(f, path); err == nil && !same {
			nf, err := openLogRead(path)
			if err != nil {
				continue // not there yet: its creation is an event too
			}
			f.Close()
			f, partial = nf, nil
			r.Reset(f)
			if err := drain(); err != nil {
				return err
			}
		}
	}
}

func openLogRead(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ENOENT):
		return nil, fmt.Errorf("no engine log at %s: the run's engine has not run in the background (cockpit open starts one)", path)
	case errors.Is(err, unix.ELOOP):
		return nil, fmt.Errorf("engine log %s is a symlink; the cockpit writes only files of its own: remove it", path)
	case err != nil:
		return nil, fmt.Errorf("open the engine's log %s: %w", path, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, fmt.Errorf("engine log %s is not a regular file; remove it", path)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// sameFile reports whether path still names f.
func sameFile(f *os.File, path string) (bool, error) {
	a, err := f.Stat()
	if err != nil {
		return false, err
	}
	b, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil // mid-rotation: the new one is not there yet
	}
	if err != nil {
		return false, err
	}
	sa, sb := a.Sys().(*syscall.Stat_t), b.Sys().(*syscall.Stat_t)
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino, nil
}

// writeLast writes the last n complete lines r holds (all when n ≤ 0) and
// returns the line being written after them, if any.
func writeLast(r *bufio.Reader, n int, w io.Writer, render func([]byte) string) ([]byte, error) {
	var ring [][]byte
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			for _, l := range ring {
				if _, err := fmt.Fprintln(w, render(l)); err != nil {
					return nil, err
				}
			}
			return line, nil
		}
		if err != nil {
			return nil, err
		}
		ring = append(ring, bytes.TrimRight(line, "\n"))
		if n > 0 && len(ring) > n {
			ring = ring[1:]
		}
	}
}

// LogText renders one line of the engine's log for people: its time, level
// and message, then its fields in the order they were logged, as k=v
// (quoted when they hold spaces). A line that is not JSON is shown as is.
func LogText(line []byte) string {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return string(line)
	}
	var head, fields []string
	var at, level, msg string
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return string(line)
		}
		k, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return string(line)
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v)
		}
		switch k {
		case "time":
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				s = t.Local().Format("2006-01-02 15:04:05.000")
			}
			at = s
		case "level":
			level = s
		case "msg":
			msg = s
		default:
			if s == "" {
				continue
			}
			if strings.ContainsAny(s, " \t\"=") {
				s = fmt.Sprintf("%q", s)
			}
			fields = append(fields, k+"="+s)
		}
	}
	head = append(head, at, fmt.Sprintf("%-5s", level), msg)
	return strings.Join(append(head, fields...), " ")
}
