package watch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	EvUsage                            // a worker's token evidence (runtime/engine's usage)
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
	case EvUsage:
		return "usage"
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
// Nothing polls: every wake-up comes from the kernel. The pidfds wait on
// the Go runtime's poller, so watching many processes costs goroutines, not
// threads. The watcher remembers every pid it saw exit (Exited): a process
// that exited is a zombie until its parent reaps it, and kill(pid, 0) still
// finds a zombie, so that answer must win over any probe.
type Watcher struct {
	fs  *fsnotify.Watcher
	out chan []FileEvent

	mu       sync.Mutex
	files    map[string]EventKind // absolute path → kind
	dirs     map[string]EventKind // WatchDir directories → the kind of their entries
	pending  map[string][]string  // missing dir → the files waiting for it
	watching map[string]bool      // directories with a watch
	pids     map[int]bool         // pids being watched or seen exit
	exited   map[int]bool         // pids seen exit
	starts   map[int]uint64       // start time (/proc stat) of each watched pid
	pidfds   map[*os.File]bool    // open pidfds, closed by Close
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
	w := &Watcher{
		fs:       fw,
		out:      make(chan []FileEvent, 1),
		files:    map[string]EventKind{},
		pending:  map[string][]string{},
		watching: map[string]bool{},
		pids:     map[int]bool{},
		exited:   map[int]bool{},
		starts:   map[int]uint64{},
		pidfds:   map[*os.File]bool{},
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
// until it appears. A file that appears in a directory created after the
// call is reported (with no event lost between a directory's creation and
// its watch: each new watch is followed by a look at what already exists).
func (w *Watcher) Watch(path string, kind EventKind) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.files[abs] = kind
	appeared, err := w.watchDirLocked(abs)
	w.mu.Unlock()
	w.report(appeared)
	return err
}

// watchDirLocked makes sure file's directory is watched, or else its
// nearest existing ancestor, with file pending on every missing level. It
// returns the files that exist by now in a directory it had to wait for —
// file and every other file pending on that directory: created in the
// window before the watch, they got no event of their own.
//
// Adding a watch on an ancestor races with the creation of the level below
// it (MkdirAll, or a writer that creates the directory and at once writes
// into it): a level created between the failed Add below and the Add that
// succeeded gets no event. So after every successful Add on an ancestor the
// walk starts again from the file's directory, until the level below the
// watched one is seen missing while the watch above it is in place; from
// then on its creation is an event.
func (w *Watcher) watchDirLocked(file string) (appeared []string, err error) {
	target := filepath.Dir(file)
	waited := false
	for {
		dir := target
		for {
			if w.watching[dir] {
				break
			}
			err := w.fs.Add(dir)
			if err == nil {
				w.watching[dir] = true
				break
			}
			if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, unix.ENOTDIR) {
				return nil, err
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return nil, err
			}
			w.addPendingLocked(dir, file)
			waited = true
			if testHookMissing != nil {
				testHookMissing(dir)
			}
			dir = parent
		}
		if dir == target {
			break
		}
		// dir is watched, the level below it was missing a moment ago:
		// look again now that a creation would be seen.
		if _, err := os.Lstat(childOn(dir, target)); err != nil {
			break
		}
	}
	if !w.watching[target] {
		return nil, nil
	}
	// Every file that waited for target is served now, not only this one
	// (and this one only if it waited: a file whose directory was there has
	// no news to report).
	files := slices.Clone(w.pending[target])
	delete(w.pending, target)
	if waited {
		files = append(files, file)
	}
	return existing(dedupe(files)), nil
}

// existing are those of files that exist.
func existing(files []string) []string {
	var out []string
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// report sends an event for each of files, of its watched kind.
func (w *Watcher) report(files []string) {
	for _, f := range files {
		w.add(FileEvent{Kind: w.kindOf(f), Path: f})
	}
}

// testHookMissing, when set (by tests), runs each time watchDirLocked
// finds a level missing, before it watches the level above: the window in
// which a creation gets no event.
var testHookMissing func(dir string)

func (w *Watcher) addPendingLocked(dir, file string) {
	for _, f := range w.pending[dir] {
		if f == file {
			return
		}
	}
	w.pending[dir] = append(w.pending[dir], file)
}

// childOn is the entry of dir on the way down to target (a descendant).
func childOn(dir, target string) string {
	rel, err := filepath.Rel(dir, target)
	if err != nil {
		return target
	}
	first, _, _ := strings.Cut(rel, string(filepath.Separator))
	return filepath.Join(dir, first)
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
	var appeared []string
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		appeared = w.dirGoneLocked(name)
	}
	if files, ok := w.pending[name]; ok && ev.Has(fsnotify.Create) {
		delete(w.pending, name)
		for _, file := range files {
			// Walk down again from the file's own directory: the levels
			// below the new one may already exist (MkdirAll), and no event
			// will come for them; and the file itself may have been
			// written before the watch was in place.
			got, err := w.watchDirLocked(file)
			appeared = append(appeared, got...)
			if err == nil && w.watching[filepath.Dir(file)] {
				appeared = append(appeared, existing([]string{file})...)
				appeared = append(appeared, w.markerEntriesLocked(file)...)
			}
		}
	}
	kind, ok := w.files[name]
	if !ok {
		kind, ok = w.dirKindLocked(name)
	}
	w.mu.Unlock()
	w.report(dedupe(appeared))
	if !ok || ev.Op == fsnotify.Chmod {
		return
	}
	w.add(FileEvent{Kind: kind, Path: name})
}

// dirGoneLocked forgets the watch of a watched directory that was removed
// or renamed away (the kernel dropped it; a directory made again under the
// same name is another inode), and watches again every file under it: the
// new directory when it exists by now, else the nearest level that does,
// with the file pending. It returns the files that exist already: written
// into the new directory before its watch, they got no event.
func (w *Watcher) dirGoneLocked(name string) []string {
	if !w.watching[name] {
		return nil
	}
	prefix := name + string(filepath.Separator)
	for dir := range w.watching {
		if dir == name || strings.HasPrefix(dir, prefix) {
			delete(w.watching, dir)
			_ = w.fs.Remove(dir) // fsnotify may have dropped it already
		}
	}
	var appeared []string
	for file := range w.files {
		if !strings.HasPrefix(file, prefix) {
			continue
		}
		got, err := w.watchDirLocked(file)
		appeared = append(appeared, got...)
		if err == nil && w.watching[filepath.Dir(file)] {
			appeared = append(appeared, existing([]string{file})...)
		}
	}
	return appeared
}

func (w *Watcher) kindOf(path string) EventKind {
	w.mu.Lock()
	defer w.mu.Unlock()
	if k, ok := w.files[path]; ok {
		return k
	}
	k, _ := w.dirKindLocked(path)
	return k
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
	files := make([]*os.File, 0, len(w.pidfds))
	for f := range w.pidfds {
		files = append(files, f)
	}
	clear(w.pidfds)
	w.mu.Unlock()
	close(w.done)
	for _, f := range files {
		f.Close() // wakes its waiting goroutine
	}
	err := w.fs.Close()
	w.wg.Wait()
	return err
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
