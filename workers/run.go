package workers

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/internal/proc"
	"github.com/okstra/cockpit/internal/ptyio"
	"github.com/okstra/cockpit/state"
)

// Default PTY size when the wrapper's stdout is not a terminal.
const (
	defaultCols = 200
	defaultRows = 50
)

// drainTimeout bounds how long the wrapper keeps reading the PTY after the
// CLI exited: a background process that inherited the terminal could hold it
// open for ever.
const drainTimeout = 2 * time.Second

// exitOSErr is the status when the wrapper cannot set up the CLI's terminal.
const exitOSErr = 71

// run starts the CLI and sees it through to exactly one terminal sidecar.
func (p *plan) run(stdout, stderr io.Writer) int {
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(stderr, "%s: %s\n", WrapperName, fmt.Sprintf(format, args...))
		return code
	}

	// Signals are caught before anything is written, so a pane closed at any
	// moment from here on still ends in a terminal sidecar.
	sigs := make(chan os.Signal, 4)
	// SIGQUIT too: ctrl+\ typed in the pane reaches the wrapper as the
	// terminal's foreground group, and its default would dump a stack and
	// leave the sidecar at "started".
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	// With SIGPIPE caught, a write to a closed stdout fails instead of
	// killing the wrapper.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	parent := os.Getppid()

	var out io.Writer
	if p.presentation == PresentationLive {
		out = stdout
	}
	cols, rows, outTTY := termSize(stdout)
	if !outTTY {
		cols, rows = defaultCols, defaultRows
	}
	var winch chan os.Signal
	if outTTY {
		winch = make(chan os.Signal, 1)
		signal.Notify(winch, syscall.SIGWINCH)
		defer signal.Stop(winch)
	}

	limit, err := logLimit()
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	logPath := state.LogPath(p.prompt)
	logf, err := openLog(logPath, limit)
	if err != nil {
		return fail(exitCantCreate, "create log %s: %v (the prompts directory must be writable)", p.root.Rel(logPath), err)
	}
	defer logf.Close()

	start := time.Now()
	sc := p.sidecar(start)
	scPath := state.SidecarPath(p.prompt)
	if err := state.WriteSidecar(scPath, sc); err != nil {
		return fail(exitCantCreate, "write status sidecar %s: %v (the prompts directory must be writable)", p.root.Rel(scPath), err)
	}
	finish := func(v verdict) int {
		end := *sc
		end.Status, end.EndedAt, end.ExitCode, end.Reason = v.status, state.Timestamp(time.Now()), &v.code, v.reason
		if err := writeFinal(scPath, &end); err != nil {
			fmt.Fprintf(stderr, "%s: write status sidecar: %v\n", WrapperName, err)
		}
		if out != nil {
			note := string(v.status)
			if v.reason != "" {
				note += ": " + v.reason
			}
			fmt.Fprintf(out, "\r\n\x1b[2m[%s: %s]\x1b[0m\r\n", WrapperName, note)
		}
		return v.code
	}
	failed := func(code int, reason string) int {
		return finish(verdict{status: state.StatusError, code: code, reason: reason})
	}

	master, tty, err := ptyio.Open()
	if err != nil {
		return failed(exitOSErr, err.Error())
	}
	defer master.Close()
	if err := ptyio.SetSize(master, cols, rows); err != nil {
		_ = tty.Close()
		return failed(exitOSErr, err.Error())
	}
	// Whatever the CLI leaves behind in a session of its own comes back to
	// the wrapper, which ends it with the CLI.
	if err := becomeSubreaper(); err != nil {
		fmt.Fprintf(stderr, "%s: become child subreaper: %v\n", WrapperName, err)
	}

	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Dir = p.root.Dir()
	if p.worktree != "" {
		cmd.Dir = p.worktree
	}
	cmd.Env = p.env()
	var promptFile *os.File
	if p.provider.PromptOn() == PromptOnStdin {
		if promptFile, err = os.Open(p.prompt); err != nil {
			_ = tty.Close()
			return failed(exitOSErr, fmt.Sprintf("open prompt: %v", err))
		}
		cmd.Stdin = promptFile
	}
	cmd.Stdout, cmd.Stderr = tty, tty
	// A session of its own makes the CLI's pid its process group, which the
	// wrapper signals as a whole; the PTY (fd 1 in the child) becomes its
	// controlling terminal. Pdeathsig takes the CLI down if the wrapper is
	// SIGKILLed; it fires when the forking thread exits, so the thread stays
	// locked to this goroutine until the CLI is gone.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 1, Pdeathsig: syscall.SIGKILL}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	err = cmd.Start()
	_ = tty.Close()
	if promptFile != nil {
		_ = promptFile.Close()
	}
	if err != nil {
		code := exitNotExecutable
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			code = exitNotFound
		}
		return failed(code, fmt.Sprintf("start %s: %v", p.argv[0], err))
	}
	child := cmd.Process.Pid
	sc.ChildPID = child
	if err := state.WriteSidecar(scPath, sc); err != nil {
		fmt.Fprintf(stderr, "%s: write status sidecar: %v\n", WrapperName, err)
	}

	var lastOut atomic.Int64
	lastOut.Store(time.Now().UnixNano())
	tr := &transcript{}
	pumped := make(chan struct{})
	go pump(master, logf, out, tr, &lastOut, pumped)
	// The CLI's exit is seen without reaping it (WNOWAIT), so its pid — the
	// number of its process group — cannot be reused while the wrapper still
	// signals the group below.
	waited := make(chan struct{})
	go func() {
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, child, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if err != unix.EINTR {
				break
			}
		}
		close(waited)
	}()
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	defer signal.Stop(chld)

	sv := &supervisor{child: child, idle: p.idle, grace: p.grace, lastOut: &lastOut}
	sv.loop(sigs, winch, chld, waited, func() {
		if c, r, ok := termSize(stdout); ok {
			_ = ptyio.SetSize(master, c, r)
		}
	})
	// Whatever of the CLI's group outlived it (a background job, a helper
	// that ignored the hang-up) goes too — also when the CLI ended by
	// itself: nothing may keep running once its worker is settled. The
	// leader is still unreaped, so the group cannot be someone else's.
	_ = proc.Group(child).Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	// Then whatever left the group: the orphans the wrapper inherited as
	// their subreaper, and their children.
	endDescendants(2 * time.Second)
	_ = master.SetReadDeadline(time.Now().Add(drainTimeout))
	select {
	case <-pumped:
	case <-time.After(drainTimeout + time.Second):
	}

	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	e := sv.ending()
	e.code = ws.ExitStatus()
	if ws.Signaled() {
		e.sig = ws.Signal()
	}
	e.result = p.resultWritten(start)
	if !e.result {
		e.noResult = p.noResultReason()
	}
	// The parent that started the wrapper is gone: it was reparented (to
	// init or a subreaper).
	e.orphaned = os.Getppid() != parent || os.Getppid() == 1 || (outTTY && hungUp(stdout))
	head, tail := tr.snapshot()
	if e.sig != 0 || e.code != 0 || !e.result {
		e.lastLine = lastErrorLine(tail)
	}
	if !slices.Contains(p.provider.Command, "{sessionId}") {
		// The CLI took no session id from its argv (codex exec), whoever
		// issued it: record the one it printed, which is the one its own
		// files are named by (a rollout's name), so the session maps back
		// to this worker.
		if id := printedSessionID(head); id != "" {
			sc.SessionID = id
		}
	}
	if logf.err != nil {
		fmt.Fprintf(stderr, "%s: write log: %v\n", WrapperName, logf.err)
	}
	if p.v2 != nil && e.stop != stopSignal {
		// Not when the wrapper is being stopped: a closing pane SIGKILLs
		// it seconds after its SIGHUP, and the terminal status comes
		// first (reading a 64 MiB log takes most of a second under load).
		var att Attestation
		att, e.servedMismatch = p.attest(start, sc.SessionID)
		sc.ServedModelAttestation = att.JSON()
	}
	return finish(decide(e))
}

// supervisor is the wrapper's state while the CLI runs: the idle clock, the
// signals it got and forwarded, the escalation. loop feeds it events until
// the CLI exits.
type supervisor struct {
	child   int
	idle    time.Duration
	grace   time.Duration
	lastOut *atomic.Int64

	stop      stopReason
	stopSig   syscall.Signal
	sent      syscall.Signal
	insisted  syscall.Signal
	escalated bool
	// esc is the CLI's escalation, begun at the first stop: the polite
	// signal, the grace, SIGKILL (internal/proc).
	esc *proc.Escalation
}

func (s *supervisor) ending() ending {
	return ending{stop: s.stop, stopSig: s.stopSig, sent: s.sent, insisted: s.insisted,
		escalated: s.escalated, idle: s.idle, grace: s.grace}
}

// loop runs until the CLI exits (waited closes).
func (s *supervisor) loop(sigs, winch, chld <-chan os.Signal, waited <-chan struct{}, resize func()) {
	s.sent = syscall.SIGTERM
	var idleT *time.Timer
	var idleC <-chan time.Time
	if s.idle > 0 {
		idleT = time.NewTimer(s.idle)
		defer idleT.Stop()
		idleC = idleT.C
	}
	defer func() { s.esc.Stop() }()
	for {
		select {
		case <-idleC:
			if since := time.Since(time.Unix(0, s.lastOut.Load())); since < s.idle {
				idleT.Reset(s.idle - since)
				continue
			}
			idleC = nil
			s.onIdle()
		case sig := <-sigs:
			sg, _ := sig.(syscall.Signal)
			s.onSignal(sg)
		case <-s.esc.C():
			s.onGraceOver()
		case <-winch:
			resize()
		case <-chld:
			reapOrphans(s.child)
		case <-waited:
			return
		}
	}
}

// onIdle: the idle limit passed with no output; stop the CLI.
func (s *supervisor) onIdle() {
	if s.stop == stopNone {
		s.stop = stopTimeout
	}
	s.escalate(syscall.SIGTERM)
}

// escalate stops the CLI with sig: the first stop begins the escalation
// (sig, the grace, SIGKILL); a later one only forwards sig.
func (s *supervisor) escalate(sig syscall.Signal) {
	if s.esc == nil {
		s.esc = proc.Begin(proc.Group(s.child), []proc.Step{{Sig: sig, Grace: s.grace}, {Sig: syscall.SIGKILL}})
		return
	}
	_ = proc.Group(s.child).Signal(sig)
}

// onSignal forwards a signal the wrapper got; a second signal during the
// grace forces the end at once.
func (s *supervisor) onSignal(sig syscall.Signal) {
	if s.stop == stopNone {
		s.stop, s.stopSig, s.sent = stopSignal, sig, sig
	}
	if s.esc != nil && !s.escalated {
		// A second signal during the grace (a pane escalating SIGHUP →
		// SIGTERM → SIGKILL, a second Ctrl-C) forces the end at once, so
		// the terminal status is written before the wrapper itself is
		// killed.
		_ = proc.Group(s.child).Signal(sig)
		s.insisted, s.escalated = sig, true
		s.esc.Next() // SIGKILL now
		return
	}
	s.escalate(sig)
}

// onGraceOver: the CLI outlived the grace after a polite signal.
func (s *supervisor) onGraceOver() {
	s.escalated = true
	s.esc.Next() // SIGKILL
}

// sidecar is the started sidecar of this run.
func (p *plan) sidecar(start time.Time) *state.Sidecar {
	sc := &state.Sidecar{
		Status:     state.StatusStarted,
		Wrapper:    p.provider.wrapperName(),
		Role:       p.role,
		Provider:   p.provider.ID,
		Model:      p.model,
		PID:        os.Getpid(),
		StartedAt:  state.Timestamp(start),
		LogPath:    p.root.Rel(state.LogPath(p.prompt)),
		ResultPath: p.root.Rel(p.result),
		SessionID:  p.sessionID,
	}
	if v := p.v2; v != nil {
		sc.SchemaVersion = "2.0"
		sc.ExecutionIdentityVersion = 2
		sc.ParticipantRef = v.participantRef
		sc.RoleExecutionRef = v.roleExecutionRef
		sc.ExecutionLabel = v.executionLabel
		sc.DutyID = v.dutyID
		sc.InvocationRef = v.invocationRef
		sc.Attempt = v.attempt
		sc.ServedModelAttestation = UnknownAttestation().JSON()
		sc.WritePolicyDigest = v.writePolicyDigest
		sc.WriteEnforcement = v.writeEnforcement
	}
	return sc
}

// resultWritten reports whether the Result Path holds a file written during
// this run. A file older than the run (a previous attempt's) does not count;
// the two seconds of slack absorb coarse file-system clocks.
func (p *plan) resultWritten(start time.Time) bool {
	st, err := os.Stat(p.result)
	return err == nil && st.Mode().IsRegular() && !st.ModTime().Before(start.Add(-2*time.Second))
}

func (p *plan) noResultReason() string {
	rel := p.root.Rel(p.result)
	if st, err := os.Stat(p.result); err == nil && st.Mode().IsRegular() {
		return fmt.Sprintf("exited 0 but wrote no result at %s (the file there predates this run)", rel)
	}
	if p.worktree != "" {
		if _, err := os.Stat(filepath.Join(p.worktree, rel)); err == nil {
			return fmt.Sprintf("exited 0 but wrote no result at %s (it wrote %s inside the worktree; the Result Path is project-root-relative)", rel, p.root.Rel(filepath.Join(p.worktree, rel)))
		}
	}
	return "exited 0 but wrote no result at " + rel
}

// env is the CLI's environment: the wrapper's, without what would mislead a
// program on a PTY of its own, plus the COCKPIT_* variables.
func (p *plan) env() []string {
	drop := map[string]bool{
		"COLUMNS": true, "LINES": true, EnvProjectRoot: true, EnvPromptPath: true, EnvResultPath: true,
		EnvRole: true, EnvSessionID: true, EnvIdleTimeout: true, EnvKillGrace: true,
	}
	var env []string
	hasTerm := false
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if drop[k] {
			continue
		}
		if k == "TERM" {
			if v == "" || v == "dumb" {
				continue
			}
			hasTerm = true
		}
		env = append(env, kv)
	}
	if !hasTerm {
		env = append(env, "TERM=xterm-256color")
	}
	env = append(env,
		EnvProjectRoot+"="+p.root.Dir(),
		EnvPromptPath+"="+p.prompt,
		EnvResultPath+"="+p.result,
		EnvRole+"="+p.role,
		EnvIdleTimeout+"="+strconv.Itoa(int(p.idle/time.Second)),
	)
	if p.sessionID != "" {
		env = append(env, EnvSessionID+"="+p.sessionID)
	}
	return env
}

// pump copies the CLI's terminal output to the log and, when out is set, to
// the wrapper's stdout, and stamps the time of the last output for the idle
// timeout. A stdout that fails (a closed pane) is dropped; the log goes on.
func pump(master *os.File, logf io.Writer, out io.Writer, tr *transcript, last *atomic.Int64, done chan<- struct{}) {
	defer close(done)
	buf := make([]byte, 32<<10)
	for {
		n, err := master.Read(buf)
		if n > 0 {
			last.Store(time.Now().UnixNano())
			_, _ = logf.Write(buf[:n])
			tr.add(buf[:n])
			if out != nil {
				if _, werr := out.Write(buf[:n]); werr != nil {
					out = nil
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// wrapperName is what the sidecar says ran the CLI.
func (p *Provider) wrapperName() string {
	if p.Wrapper != "" {
		return p.Wrapper
	}
	return WrapperName
}

func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return "signal " + strconv.Itoa(int(s))
}

// termSize returns the size of w when it is a terminal.
// hungUp reports whether the terminal w is hung up: its pane's master was
// closed, so the engine that held it is gone. A pane closed on purpose
// sends its SIGHUP while the master is open; an engine's death closes the
// master first and the hang-up sends the SIGHUP, so this holds before the
// dying engine's children are reparented (getppid lags behind it).
func hungUp(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	hup := false
	_ = rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		n, err := unix.Poll(fds, 0)
		hup = err == nil && n > 0 && fds[0].Revents&unix.POLLHUP != 0
	})
	return hup
}

func termSize(w io.Writer) (cols, rows int, ok bool) {
	f, isFile := w.(*os.File)
	if !isFile {
		return 0, 0, false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, 0, false
	}
	var ws *unix.Winsize
	var ioErr error
	if err := rc.Control(func(fd uintptr) {
		ws, ioErr = unix.IoctlGetWinsize(int(fd), unix.TIOCGWINSZ)
	}); err != nil || ioErr != nil || ws.Col == 0 || ws.Row == 0 {
		return 0, 0, false
	}
	return int(ws.Col), int(ws.Row), true
}
