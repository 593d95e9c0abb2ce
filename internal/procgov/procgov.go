// Package procgov owns how many processors the engine's Go code runs on:
// one while its panes are quiet, all of them (the runtime's default) while
// output floods in.
//
// A key's echo crosses about ten goroutines in the engine (the terminal's
// reader, the input decoder, the screen's event loop, the pane's writer
// and reader, the frame producer, the renderer). With a second processor
// idle, every hand-off wakes it (a futex wake, an inter-processor
// interrupt on a virtual machine) and may move the woken goroutine to a
// cold core; on one processor each hand-off is a switch on the same
// thread. Measured on the 2-vCPU machine (docs/PERFORMANCE.md, "Session
// 4: the engine on one processor while quiet"; DECISIONS 88): a key's
// engine CPU 280–320 µs against 370–420 µs, the echo's p99 over 1,000 keys
// 1.08–1.09 ms against 1.25–1.29 ms. Under a flood the reverse holds: 64
// panes writing 1 MB/s each drew 21 frames a second on one processor
// against 53 on two, the screen's goroutines waiting their turn behind
// the busy readers. tmux, the bar, is one thread throughout.
//
// So the panes' readers report what they read (Note), and the engine runs
// on one processor until a window of output goes over busyBytes; then on
// all of them until output stays under that for calm. Nothing runs while
// the engine is quiet: Note is a clock read and a few atomic operations,
// and the only timer exists while the engine is wide. A GOMAXPROCS set in
// the environment is the user's choice and turns the governor off.
package procgov

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The thresholds. busyBytes in a window is 2.5 MB/s of output, well
// under the 16 MB/s (64 panes at 0.25 MB/s each) that one processor still
// draws at the full frame rate.
const (
	window    = 100 * time.Millisecond
	busyBytes = 256 << 10
)

// calm is how long output stays under busyBytes a window before the
// process goes back to one processor (a variable for the tests).
var calm = time.Second

// governor is the process's one governor.
type governor struct {
	on   atomic.Bool // Start enabled it
	wide atomic.Bool // running on high processors

	winStart atomic.Int64 // the current window's start, Unix ns
	winBytes atomic.Int64 // bytes noted in it
	lastBusy atomic.Int64 // when a window last went over busyBytes, Unix ns

	mu       sync.Mutex // serializes the GOMAXPROCS changes below
	high     int
	onChange func(procs int)
	timer    *time.Timer
	stopped  bool
}

var g governor

// Start puts the process on one processor until its panes get busy and
// returns a function that stops the governor and gives the process its
// processors back; onChange (if not nil) is told every change, the first
// included, with the processors the process runs on from then. It does
// nothing (and stop nothing) when GOMAXPROCS is set in the environment or
// the process has one processor anyway.
func Start(onChange func(procs int)) (stop func()) {
	if os.Getenv("GOMAXPROCS") != "" {
		return func() {}
	}
	return start(runtime.GOMAXPROCS(0), onChange)
}

func start(high int, onChange func(int)) func() {
	if high < 2 {
		return func() {}
	}
	if onChange == nil {
		onChange = func(int) {}
	}
	g.mu.Lock()
	g.high, g.stopped, g.onChange = high, false, onChange
	g.wide.Store(false)
	g.winStart.Store(0)
	g.winBytes.Store(0)
	runtime.GOMAXPROCS(1)
	g.onChange(1)
	g.on.Store(true)
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.on.Store(false)
		g.stopped = true
		if g.timer != nil {
			g.timer.Stop()
			g.timer = nil
		}
		g.wide.Store(false)
		runtime.GOMAXPROCS(g.high)
	}
}

// Note records n bytes of pane output read just now. Once a window's
// output goes over busyBytes the process gets all its processors. With
// the governor off (every process but the engine's) it is one atomic load.
func Note(n int) {
	if g.on.Load() {
		note(n, time.Now())
	}
}

// note is Note at now.
func note(n int, now time.Time) {
	t := now.UnixNano()
	if ws := g.winStart.Load(); t-ws >= int64(window) && g.winStart.CompareAndSwap(ws, t) {
		g.winBytes.Store(0)
	}
	if g.winBytes.Add(int64(n)) < busyBytes {
		return
	}
	g.lastBusy.Store(t)
	if g.wide.CompareAndSwap(false, true) {
		go widen()
	}
}

// widen gives the process all its processors and arms the calm check.
func widen() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped || !g.wide.Load() {
		return
	}
	runtime.GOMAXPROCS(g.high)
	g.onChange(g.high)
	g.timer = time.AfterFunc(calm, narrow)
}

// narrow puts the process back on one processor when no window went over
// busyBytes for calm, else checks again when it will have.
func narrow() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return
	}
	if since := time.Duration(time.Now().UnixNano() - g.lastBusy.Load()); since < calm {
		g.timer = time.AfterFunc(calm-since, narrow)
		return
	}
	g.timer = nil
	runtime.GOMAXPROCS(1)
	g.wide.Store(false)
	g.onChange(1)
}

// Wide says whether the process runs on all its processors now.
func Wide() bool { return g.wide.Load() }
