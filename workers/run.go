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
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

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

// stopReason says why the wrapper stopped the CLI, if it did.
type stopReason int

const (
	stopNone    stopReason = iota
	stopTimeout            // the idle limit passed
	stopSignal             // the wrapper got SIGTERM, SIGHUP, SIGINT or SIGQUIT
)

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

	logPath := state.LogPath(p.prompt)
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fail(exitCantCreate, "create log: %v", err)
	}
	defer logf.Close()

	start := time.Now()
	sc := p.sidecar(start)
	scPath := state.SidecarPath(p.prompt)
	if err := state.WriteSidecar(scPath, sc); err != nil {
		return fail(exitCantCreate, "write status sidecar: %v", err)
	}
	finish := func(status state.Status, code int, reason string) int {
		end := *sc
		end.Status, end.EndedAt, end.ExitCode, end.Reason = status, state.Timestamp(time.Now()), &code, reason
		if err := state.WriteSidecar(scPath, &end); err != nil {
			fmt.Fprintf(stderr, "%s: write status sidecar: %v\n", WrapperName, err)
		}
		if out != nil {
			note := string(status)
			if reason != "" {
				note += ": " + reason
			}
			fmt.Fprintf(out, "\r\n\x1b[2m[%s: %s]\x1b[0m\r\n", WrapperName, note)
		}
		return code
	}

	master, tty, err := ptyio.Open()
	if err != nil {
		return finish(state.StatusError, exitOSErr, err.Error())
	}
	defer master.Close()
	if err := ptyio.SetSize(master, cols, rows); err != nil {
		_ = tty.Close()
		return finish(state.StatusError, exitOSErr, err.Error())
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
			return finish(state.StatusError, exitOSErr, fmt.Sprintf("open prompt: %v", err))
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
		return finish(state.StatusError, code, fmt.Sprintf("start %s: %v", p.argv[0], err))
	}
	child := cmd.Process.Pid
	sc.ChildPID = child
	if err := state.WriteSidecar(scPath, sc); err != nil {
		fmt.Fprintf(stderr, "%s: write status sidecar: %v\n", WrapperName, err)
	}

	var lastOut atomic.Int64
	lastOut.Store(time.Now().UnixNano())
	pumped := make(chan struct{})
	go pump(master, logf, out, &lastOut, pumped)
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

	var idleT *time.Timer
	var idleC <-chan time.Time
	if p.idle > 0 {
		idleT = time.NewTimer(p.idle)
		defer idleT.Stop()
		idleC = idleT.C
	}
	var killT *time.Timer
	var killC <-chan time.Time
	armKill := func() {
		if killT == nil {
			killT = time.NewTimer(p.grace)
			killC = killT.C
		}
	}
	stop, stopSig, escalated := stopNone, syscall.Signal(0), false
	sent, insisted := syscall.SIGTERM, syscall.Signal(0)
loop:
	for {
		select {
		case <-idleC:
			if since := time.Since(time.Unix(0, lastOut.Load())); since < p.idle {
				idleT.Reset(p.idle - since)
				continue
			}
			idleC = nil
			if stop == stopNone {
				stop = stopTimeout
			}
			signalGroup(child, syscall.SIGTERM)
			armKill()
		case sig := <-sigs:
			s, _ := sig.(syscall.Signal)
			if stop == stopNone {
				stop, stopSig, sent = stopSignal, s, s
			}
			signalGroup(child, s)
			if killC != nil {
				// A second signal during the grace (a pane escalating
				// SIGHUP → SIGTERM → SIGKILL, a second Ctrl-C) forces the
				// end at once, so the terminal status is written before
				// the wrapper itself is killed.
				killC, insisted = nil, s
				escalated = true
				signalGroup(child, syscall.SIGKILL)
			}
			armKill()
		case <-killC:
			killC = nil
			escalated = true
			signalGroup(child, syscall.SIGKILL)
		case <-winch:
			if c, r, ok := termSize(stdout); ok {
				_ = ptyio.SetSize(master, c, r)
			}
		case <-waited:
			break loop
		}
	}
	if killT != nil {
		killT.Stop()
	}
	// Whatever of the CLI's group outlived it (a background job, a helper
	// that ignored the hang-up) goes too — also when the CLI ended by
	// itself: nothing may keep running once its worker is settled. The
	// leader is still unreaped, so the group cannot be someone else's.
	signalGroup(child, syscall.SIGKILL)
	_ = cmd.Wait()
	_ = master.SetReadDeadline(time.Now().Add(drainTimeout))
	select {
	case <-pumped:
	case <-time.After(drainTimeout + time.Second):
	}

	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	cliCode, cliSig := ws.ExitStatus(), syscall.Signal(0)
	if ws.Signaled() {
		cliSig = ws.Signal()
	}
	ended := "the CLI exited with status " + strconv.Itoa(cliCode)
	switch {
	case escalated && cliSig == syscall.SIGKILL && insisted != 0:
		ended = fmt.Sprintf("the CLI ignored %s and was killed with SIGKILL on a second signal (%s)", signalName(sent), signalName(insisted))
	case escalated && cliSig == syscall.SIGKILL:
		ended = fmt.Sprintf("the CLI ignored %s and was killed with SIGKILL after %s", signalName(sent), p.grace)
	case cliSig != 0:
		ended = "the CLI was stopped by " + signalName(cliSig)
	}
	resultOK := p.resultWritten(start)
	switch {
	case stop == stopTimeout:
		return finish(state.StatusTimeout, exitTimeout, fmt.Sprintf("no output for %ds (idle timeout); %s", int(p.idle/time.Second), ended))
	case stop == stopSignal && !(cliSig == 0 && cliCode == 0 && resultOK):
		return finish(state.StatusError, 128+int(stopSig), fmt.Sprintf("wrapper got %s (%s); %s", signalName(stopSig), signalCause(stopSig), ended))
	case cliSig != 0:
		return finish(state.StatusError, 128+int(cliSig), "killed by signal "+signalName(cliSig))
	case cliCode != 0:
		return finish(state.StatusError, cliCode, "exit status "+strconv.Itoa(cliCode))
	case !resultOK:
		return finish(state.StatusError, 0, p.noResultReason())
	}
	return finish(state.StatusCompleted, 0, "")
}

// sidecar is the started sidecar of this run.
func (p *plan) sidecar(start time.Time) *state.Sidecar {
	sc := &state.Sidecar{
		Status:     state.StatusStarted,
		Wrapper:    WrapperName,
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
		sc.ServedModelAttestation = servedModelUnknown
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
func pump(master, logf *os.File, out io.Writer, last *atomic.Int64, done chan<- struct{}) {
	defer close(done)
	buf := make([]byte, 32<<10)
	for {
		n, err := master.Read(buf)
		if n > 0 {
			last.Store(time.Now().UnixNano())
			_, _ = logf.Write(buf[:n])
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

// signalGroup sends sig to the CLI's process group; a group already gone is
// not an error.
func signalGroup(pgid int, sig syscall.Signal) {
	_ = syscall.Kill(-pgid, sig)
}

func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return "signal " + strconv.Itoa(int(s))
}

// signalCause says what a signal to the wrapper usually means.
func signalCause(s syscall.Signal) string {
	switch s {
	case syscall.SIGHUP:
		return "the pane was closed"
	case syscall.SIGINT:
		return "interrupted"
	case syscall.SIGQUIT:
		return "quit from the keyboard"
	}
	return "the worker was reclaimed or torn down"
}

// termSize returns the size of w when it is a terminal.
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
