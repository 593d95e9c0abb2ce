package panes

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/okstra/cockpit/internal/ptyio"
	"github.com/okstra/cockpit/panes/term"
	"github.com/okstra/cockpit/panes/vt"
)

// DefaultEmulator builds the emulator of a pane whose Config leaves
// NewEmulator nil.
var DefaultEmulator func(cols, rows int) term.Emulator = func(cols, rows int) term.Emulator {
	return vt.New(cols, rows)
}

const (
	// DefaultCloseGrace is how long Close waits after each signal before
	// escalating to the next one.
	DefaultCloseGrace = 3 * time.Second
	// DefaultSyncTimeout is how long a pane holding synchronized output
	// (mode 2026) may stay unreported before it is drawn anyway, so a program
	// that forgets to end its update cannot freeze its pane.
	DefaultSyncTimeout = 150 * time.Millisecond
	// maxInput bounds the input queued for a program that is not reading, so
	// a huge paste into a stuck program fails instead of growing memory.
	maxInput = 16 << 20
	// maxEvents bounds the events kept for a UI that does not take them; the
	// oldest go first, so a bell storm cannot grow memory.
	maxEvents = 256
	// readBufSize is large enough that a flood is read in few syscalls; the
	// kernel rarely hands out more than this from a PTY in one read.
	readBufSize = 64 << 10
	// drainTimeout and maxDrain bound how long Done waits, after the
	// process exited, for the rest of its output (see awaitDrain).
	drainTimeout = 250 * time.Millisecond
	maxDrain     = 5 * time.Second
	// killWait bounds the wait after SIGKILL before Close closes the PTY
	// anyway; Close still waits for the reap, which only a process stuck
	// in the kernel can delay.
	killWait = 5 * time.Second
)

var (
	// ErrClosed is returned by input and resize on a closed pane.
	ErrClosed = errors.New("pane closed")
	// ErrExited is returned by input methods once the pane's process exited.
	ErrExited = errors.New("pane process exited")
	// ErrInputFull is returned when the program does not read its input and
	// the queue for it is full.
	ErrInputFull = errors.New("pane input queue full")
)

// Config says what a pane runs and how.
type Config struct {
	// Argv is the program and its arguments, run directly (no shell). Argv[0]
	// is looked up in PATH when it has no slash.
	Argv []string
	// Dir is the working directory; empty means the cockpit's.
	Dir string
	// Env is the program's environment; nil means the cockpit's own.
	// Either way the outer terminal's variables are left out (OuterTermVar:
	// TERM, TMUX, KITTY_*, COLUMNS, ...) and the pane's own set: TERM is
	// DefaultTerm, COLORTERM ColorTerm, TERM_PROGRAM TermProgram and
	// COCKPIT_PANE the pane id.
	Env []string
	// Cols and Rows are the initial size; zero means 80 columns, 24 rows.
	Cols, Rows int
	// NewEmulator builds the pane's emulator; nil means DefaultEmulator.
	NewEmulator func(cols, rows int) term.Emulator
	// CloseGrace is the wait between close signals; zero means
	// DefaultCloseGrace.
	CloseGrace time.Duration
	// SyncTimeout bounds how long synchronized output holds the frame; zero
	// means DefaultSyncTimeout.
	SyncTimeout time.Duration
}

// Pane is a program running in a pseudo-terminal, the emulator its output
// feeds, and the plumbing between them. All methods are safe for concurrent
// use.
type Pane struct {
	id          string
	num         int
	pid         int
	cmd         *exec.Cmd
	master      *os.File
	grace       time.Duration
	syncTimeout time.Duration

	// notify tells the manager the pane became dirty; dirty makes that
	// happen once per frame however many writes arrive in between.
	notify func(*Pane)
	dirty  atomic.Bool

	// mu serialises every call into the emulator and guards the fields
	// below it.
	mu          sync.Mutex
	emu         term.Emulator
	seq         uint64
	syncSince   time.Time // when the current synchronized update began; zero if none
	syncTimer   *time.Timer
	lines       []string // rendered rows, reused across snapshots
	linesShared bool     // lines was handed out in a Snapshot: copy before writing
	snap        Snapshot // the last snapshot, returned again while nothing changed
	snapValid   bool
	scratch     []byte
	dirtyRows   []int
	mouse       mouseState
	colorsGen   uint64 // the generation of the emulator's colours (Manager.SetColors)
	status      ExitStatus
	statusSet   bool
	closed      bool     // emu is released; snap and finalPlain are the last screen
	finalPlain  []string // plain rows at close, for Capture

	evMu   sync.Mutex
	events []term.Event

	// in is the queue of bytes for the program's input: user input and
	// emulator replies, in order. Callers append; only the writer goroutine
	// writes to the PTY, so a program that does not read never blocks them.
	inMu     sync.Mutex
	inBuf    []byte
	inClosed bool
	inBusy   bool // a write to the PTY is under way (the writer's or a caller's)
	inWake   chan struct{}

	// modes are the emulator's modes after its latest write, published
	// under mu, so that encoding a key needs no lock the reader holds
	// while the emulator digests a chunk (input.go).
	modes atomic.Pointer[term.Modes]

	// sigMu orders signalling against reaping: exited is set before the
	// process is reaped, so a pid signalled under sigMu is never a recycled
	// one.
	sigMu  sync.Mutex
	exited bool

	exitCh     chan struct{} // closed when the process has exited
	readerDone chan struct{} // closed when the reader saw the end of output
	done       chan struct{} // closed when the exit status is known
	stop       chan struct{} // closed by Close to stop the writer
	closeOnce  sync.Once
	closedCh   chan struct{}
	closeErr   error
	wg         sync.WaitGroup

	// reads counts feeds begun, feeds those finished (dirty decision
	// included); equal counts mean no output is in flight.
	reads     atomic.Int64
	feeds     atomic.Int64
	bytesRead atomic.Int64
}

// start runs cfg.Argv in a new PTY and starts the pane's goroutines.
// The emulator answers colour queries with colors (generation gen) from
// the start.
func start(id string, num int, cfg Config, notify func(*Pane), colors term.Colors, gen uint64) (*Pane, error) {
	if len(cfg.Argv) == 0 || cfg.Argv[0] == "" {
		return nil, errors.New("start pane: empty argv")
	}
	cols, rows := cfg.Cols, cfg.Rows
	if cols == 0 {
		cols = 80
	}
	if rows == 0 {
		rows = 24
	}
	if err := checkSize(cols, rows); err != nil {
		return nil, fmt.Errorf("start pane: %w", err)
	}
	newEmu := cfg.NewEmulator
	if newEmu == nil {
		newEmu = DefaultEmulator
	}
	p := &Pane{
		id:          id,
		num:         num,
		grace:       cfg.CloseGrace,
		syncTimeout: cfg.SyncTimeout,
		notify:      notify,
		inWake:      make(chan struct{}, 1),
		exitCh:      make(chan struct{}),
		readerDone:  make(chan struct{}),
		done:        make(chan struct{}),
		stop:        make(chan struct{}),
		closedCh:    make(chan struct{}),
	}
	if p.grace <= 0 {
		p.grace = DefaultCloseGrace
	}
	if p.syncTimeout <= 0 {
		p.syncTimeout = DefaultSyncTimeout
	}
	master, tty, err := ptyio.Open()
	if err != nil {
		return nil, err
	}
	p.master = master
	// The size is set before the program starts so its first look at the
	// terminal already sees it.
	if err := ptyio.SetSize(master, cols, rows); err != nil {
		_ = master.Close()
		_ = tty.Close()
		return nil, fmt.Errorf("start pane: %w", err)
	}

	resetInheritedIgnores()
	cmd := exec.Command(cfg.Argv[0], cfg.Argv[1:]...)
	cmd.Dir = cfg.Dir
	cmd.Env = paneEnv(cfg.Env, id)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	// A session of its own makes the program's pid its process group, which
	// Close signals as a whole; the PTY as controlling terminal gives the
	// group SIGWINCH on resize and job control.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	err = cmd.Start()
	// The parent's copy of the terminal side must go, or the master would
	// never see the end of output when the program exits.
	_ = tty.Close()
	if err != nil {
		_ = master.Close()
		return nil, fmt.Errorf("start %s: %w", cfg.Argv[0], err)
	}
	p.cmd = cmd
	p.pid = cmd.Process.Pid
	// The emulator is built only now that nothing can fail, as it may own
	// resources that only Close releases; output
	// the program writes meanwhile waits in the PTY.
	p.emu = newEmu(cols, rows)
	p.emu.SetCallbacks(p.reply, p.event)
	p.publishModesLocked()
	if cs, ok := p.emu.(term.ColorSetter); ok {
		cs.SetColors(colors)
		p.colorsGen = gen
	}

	p.wg.Add(3)
	go p.readLoop()
	go p.writeLoop()
	go p.waitLoop()
	return p, nil
}

func checkSize(cols, rows int) error {
	if cols < 1 || rows < 1 || cols > 0xffff || rows > 0xffff {
		return fmt.Errorf("invalid size %dx%d", cols, rows)
	}
	return nil
}

// ID returns the pane id, e.g. "pane-3".
func (p *Pane) ID() string { return p.id }

// Pid returns the process id of the pane's program, which is also its
// process group and session id.
func (p *Pane) Pid() int { return p.pid }

// Done is closed when the program has exited and its status is known. The
// pane keeps its last screen until Close.
func (p *Pane) Done() <-chan struct{} { return p.done }

// Exited reports whether the program has exited and its status is known.
func (p *Pane) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Status returns the exit status, and false while the program still runs.
func (p *Pane) Status() (ExitStatus, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status, p.statusSet
}

// Resize sets the emulator size and the PTY window size; the kernel sends the
// program SIGWINCH.
func (p *Pane) Resize(cols, rows int) error {
	if err := checkSize(cols, rows); err != nil {
		return fmt.Errorf("resize pane %s: %w", p.id, err)
	}
	p.mu.Lock()
	if p.closed || p.isStopped() {
		p.mu.Unlock()
		return ErrClosed
	}
	if c, r := p.emu.Size(); c == cols && r == rows {
		p.mu.Unlock()
		return nil
	}
	// The emulator first: the program redraws on SIGWINCH, and that output
	// must land on a screen of the new size.
	p.emu.Resize(cols, rows)
	p.publishModesLocked()
	p.seq++
	err := ptyio.SetSize(p.master, cols, rows)
	p.mu.Unlock()
	p.markDirty()
	if err != nil {
		return fmt.Errorf("resize pane %s: %w", p.id, err)
	}
	return nil
}

// setColors gives the emulator the colours it answers colour queries with,
// when it takes them (term.ColorSetter), unless it has newer ones (gen is
// the manager's count of SetColors calls).
func (p *Pane) setColors(c term.Colors, gen uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if gen < p.colorsGen || p.closed {
		return
	}
	p.colorsGen = gen
	if cs, ok := p.emu.(term.ColorSetter); ok {
		cs.SetColors(c)
	}
}

// Size returns the pane size in cells.
func (p *Pane) Size() (cols, rows int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return p.snap.Cols, p.snap.Rows
	}
	return p.emu.Size()
}

// publishModesLocked publishes the emulator's modes for the input path
// when they changed. Called with mu held, after every emulator write.
func (p *Pane) publishModesLocked() {
	m := p.emu.Modes()
	if old := p.modes.Load(); old == nil || *old != m {
		p.modes.Store(&m)
	}
}

// Modes returns the terminal modes the program set, e.g. to decide whether
// a mouse event should go to the program or to the UI.
func (p *Pane) Modes() term.Modes {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return p.snap.Modes
	}
	return p.emu.Modes()
}
