package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// TailLog copies a worker's log to w — its last tailBytes first, then
// everything appended — until the worker process pid exits (or ctx ends).
// It is what a "running elsewhere" pane runs: the log is raw terminal
// output, so the pane's emulator shows the worker's screen. It waits on
// file events and the process's exit, never on a timer.
func TailLog(ctx context.Context, w io.Writer, path string, pid int, tailBytes int64) error {
	watch, err := NewWatcher()
	if err != nil {
		return err
	}
	defer watch.Close()
	if err := watch.Watch(path, EvOther); err != nil {
		return fmt.Errorf("watch %s: %w", path, err)
	}
	if pid > 0 {
		watch.WatchPID(pid)
	}
	var off int64
	if st, err := os.Stat(path); err == nil && st.Size() > tailBytes {
		off = st.Size() - tailBytes
	}
	copyNew := func() error {
		f, err := os.Open(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Size() < off {
			off = 0 // truncated: a new attempt started the log again
		}
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return err
		}
		n, err := io.Copy(w, f)
		off += n
		return err
	}
	for {
		if err := copyNew(); err != nil {
			return err
		}
		if pid > 0 && !watch.Alive(pid) {
			return copyNew()
		}
		select {
		case batch := <-watch.Events():
			for _, ev := range batch {
				if ev.Kind == EvProcessExit {
					return copyNew()
				}
			}
		case <-watch.Errors():
		case <-ctx.Done():
			return nil
		}
	}
}
