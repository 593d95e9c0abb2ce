package runtime

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"
)

// EventKind says which run file changed.
type EventKind uint8

const (
	EvSidecar     EventKind = iota + 1 // a worker's status sidecar was written
	EvTeamState                        // team-state was rewritten
	EvLedger                           // the lead-events ledger was appended
	EvResult                           // a worker's result file appeared or changed
	EvProcessExit                      // a watched worker process exited
	EvOther                            // any other watched file
)

func (k EventKind) String() string {
	switch k {
	case EvSidecar:
		return "sidecar"
	case EvTeamState:
		return "team-state"
	case EvLedger:
		return "ledger"
	case EvResult:
		return "result"
	case EvProcessExit:
		return "process-exit"
	}
	return "other"
}

// FileEvent is one change the watcher saw.
type FileEvent struct {
	Kind EventKind
	Path string // absolute; empty for a process exit
	PID  int    // for EvProcessExit
}

// Coalescing: an event is delivered at once when the consumer is waiting;
// while it is busy, further events merge into one pending batch (one entry
// per path) that it takes next. So an idle consumer sees a change with no
// added delay, and a busy one never falls behind by more than one batch,
// however many events a burst brings. Writers rename into place, and only
// the final name is watched, so one logical write is one event.

// Watcher watches run files through their directories (writers replace
// files by rename, so a watch on the file itself would be lost) and worker
// processes through pidfds, and delivers coalesced batches of typed events.
// Nothing polls: every wake-up comes from the kernel.
type Watcher struct {
	fs  *fsnotify.Watcher
	out chan []FileEvent

	mu       sync.Mutex
	files    map[string]EventKind // absolute path → kind
	pending  map[string][]string  // missing dir → the files waiting for it
	watching map[string]bool      // directories with a watch
	pids     map[int]bool
	pidWake  [2]int // pipe that ends pidfd waits on Close
	batch    []FileEvent
	flushing bool
	closed   bool
	done     chan struct{}
	wg       sync.WaitGroup
	errs     chan error
}

// NewWatcher starts a watcher with nothing watched yet.
func NewWatcher() (*Watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		fw.Close()
		return nil, err
	}
	w := &Watcher{
		fs:       fw,
		out:      make(chan []FileEvent, 1),
		files:    map[string]EventKind{},
		pending:  map[string][]string{},
		watching: map[string]bool{},
		pids:     map[int]bool{},
		pidWake:  p,
		done:     make(chan struct{}),
		errs:     make(chan error, 1),
	}
	w.wg.Add(1)
	go w.loop()
	return w, nil
}

// Events delivers batches of changes. A slow consumer gets the batches it
// missed merged into the next one, never dropped.
func (w *Watcher) Events() <-chan []FileEvent { return w.out }

// Errors reports watcher failures (e.g. the inotify queue overflowed); after
// one, consumers should re-read everything they care about.
func (w *Watcher) Errors() <-chan error { return w.errs }

// Watch adds a file of the given kind. Its directory is watched; when the
// directory does not exist yet, its nearest existing ancestor is watched
// until it appears.
func (w *Watcher) Watch(path string, kind EventKind) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.files[abs] = kind
	return w.watchDirLocked(filepath.Dir(abs), abs)
}

func (w *Watcher) watchDirLocked(dir, file string) error {
	for {
		if w.watching[dir] {
			return nil
		}
		err := w.fs.Add(dir)
		if err == nil {
			w.watching[dir] = true
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return err
		}
		w.pending[dir] = append(w.pending[dir], file)
		dir = parent
	}
}

// WatchPID reports when pid exits, through a pidfd (no polling). A pid
// that is already gone is reported at once.
func (w *Watcher) WatchPID(pid int) {
	w.mu.Lock()
	if w.closed || w.pids[pid] {
		w.mu.Unlock()
		return
	}
	w.pids[pid] = true
	w.mu.Unlock()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		// ESRCH: already gone. ENOSYS (old kernel): nothing to wait on;
		// consumers still see the sidecar and their own timeouts.
		if errors.Is(err, unix.ESRCH) {
			w.add(FileEvent{Kind: EvProcessExit, PID: pid})
		}
		return
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer unix.Close(fd)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(w.pidWake[0]), Events: unix.POLLIN}}
		for {
			_, err := unix.Poll(fds, -1)
			if err == unix.EINTR {
				continue
			}
			if err != nil || fds[1].Revents != 0 {
				return
			}
			if fds[0].Revents != 0 {
				w.add(FileEvent{Kind: EvProcessExit, PID: pid})
				return
			}
		}
	}()
}

func (w *Watcher) loop() {
	defer w.wg.Done()
	for {
		select {
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			w.handle(ev)
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			select {
			case w.errs <- err:
			default:
			}
		case <-w.done:
			return
		}
	}
}

func (w *Watcher) handle(ev fsnotify.Event) {
	name := filepath.Clean(ev.Name)
	w.mu.Lock()
	if files, ok := w.pending[name]; ok && ev.Has(fsnotify.Create) {
		delete(w.pending, name)
		var appeared []string
		for _, file := range files {
			// Walk down again from the file's own directory: the levels
			// below the new one may already exist (MkdirAll), and no event
			// will come for them.
			if err := w.watchDirLocked(filepath.Dir(file), file); err == nil {
				// The file may have been written before the watch was in
				// place.
				if _, err := os.Stat(file); err == nil {
					appeared = append(appeared, file)
				}
			}
		}
		w.mu.Unlock()
		for _, file := range appeared {
			w.add(FileEvent{Kind: w.kindOf(file), Path: file})
		}
		return
	}
	kind, ok := w.files[name]
	w.mu.Unlock()
	if !ok || ev.Op == fsnotify.Chmod {
		return
	}
	w.add(FileEvent{Kind: kind, Path: name})
}

func (w *Watcher) kindOf(path string) EventKind {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.files[path]
}

// add puts one event into the open batch, opening one if needed.
func (w *Watcher) add(ev FileEvent) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	for _, e := range w.batch {
		if e == ev {
			return
		}
	}
	w.batch = append(w.batch, ev)
	if !w.flushing {
		w.flushing = true
		go w.flush()
	}
}

func (w *Watcher) flush() {
	w.mu.Lock()
	batch := w.batch
	w.batch, w.flushing = nil, false
	closed := w.closed
	w.mu.Unlock()
	if closed || len(batch) == 0 {
		return
	}
	for {
		select {
		case w.out <- batch:
			return
		default:
		}
		// The consumer has not taken the previous batch: merge into it.
		select {
		case prev := <-w.out:
			batch = mergeBatches(prev, batch)
		default:
		}
	}
}

func mergeBatches(a, b []FileEvent) []FileEvent {
	out := a
	for _, e := range b {
		dup := false
		for _, x := range out {
			if x == e {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, e)
		}
	}
	return out
}

// Close stops the watcher and every goroutine it started.
func (w *Watcher) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	close(w.done)
	unix.Write(w.pidWake[1], []byte{1})
	err := w.fs.Close()
	w.wg.Wait()
	unix.Close(w.pidWake[0])
	unix.Close(w.pidWake[1])
	return err
}
