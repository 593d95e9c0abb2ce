package panes

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/internal/proc"
)

// The process lifecycle: the waiter goroutine learns of the exit, waits for
// the output to drain and records the status; Close signals the program (and
// sweeps its process group, group.go), closes the PTY and keeps the last
// screen.

// waitLoop waits for the program to exit and records its status.
func (p *Pane) waitLoop() {
	defer p.wg.Done()
	// Wait without reaping first: until exited is set under sigMu, the pid
	// (and process group id) stays reserved, so Close never signals a
	// recycled one.
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	p.sigMu.Lock()
	p.exited = true
	p.sigMu.Unlock()
	close(p.exitCh)

	// Wait's error only repeats what ProcessState says (a non-zero exit or
	// a signal), which the status keeps.
	_ = p.cmd.Wait()
	status := exitStatusOf(p.cmd.ProcessState)

	p.awaitDrain()

	p.mu.Lock()
	p.status, p.statusSet = status, true
	p.seq++
	p.mu.Unlock()
	p.inMu.Lock()
	p.inBuf = p.inBuf[:0]
	p.inMu.Unlock()
	close(p.done)
	p.markDirty()
}

// awaitDrain waits for the reader to consume the output written before the
// exit, so the last screen is complete when Done fires. The end of output
// comes only once every holder of the terminal closed it, and a background
// child that keeps it open must not hold up the exit report: the wait also
// ends once a drainTimeout passes in which the reader took nothing, with no
// chunk in the emulator and nothing unread in the PTY, or after maxDrain.
func (p *Pane) awaitDrain() {
	tick := time.NewTicker(drainTimeout)
	defer tick.Stop()
	deadline := time.Now().Add(maxDrain)
	last := p.reads.Load()
	for {
		select {
		case <-p.readerDone:
			return
		case now := <-tick.C:
			reads := p.reads.Load()
			// A slow emulator (or a starved reader) can take longer than
			// the tick over one chunk; that is not the end of output.
			idle := reads == last && p.feeds.Load() == reads && unreadBytes(p.master) == 0
			if idle || now.After(deadline) {
				return
			}
			last = reads
		}
	}
}

// unreadBytes returns how many bytes of output wait in the PTY, or 0.
func unreadBytes(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	_ = rc.Control(func(fd uintptr) {
		if v, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ); err == nil {
			n = v
		}
	})
	return n
}

// signal sends sig to the program's process group and to the terminal's
// foreground group (a shell's job may be in another one), unless the
// program already exited. It reports whether it sent anything.
func (p *Pane) signal(sig syscall.Signal) bool {
	p.sigMu.Lock()
	defer p.sigMu.Unlock()
	if p.exited {
		return false
	}
	_ = syscall.Kill(-p.pid, sig)
	if fg := foregroundGroup(p.master); fg > 0 && fg != p.pid {
		_ = syscall.Kill(-fg, sig)
	}
	return true
}

// foregroundGroup returns the PTY's foreground process group, or 0.
func foregroundGroup(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	pgrp := 0
	_ = rc.Control(func(fd uintptr) {
		if g, err := unix.IoctlGetInt(int(fd), unix.TIOCGPGRP); err == nil {
			pgrp = g
		}
	})
	return pgrp
}

// Close ends the pane: SIGHUP to the program's process group, then SIGTERM,
// then SIGKILL, each only if the program is still alive after the grace
// period; once the program is gone, what is left of its process group gets
// the same (see sweepGroup). Then it closes the PTY and waits for every goroutine of the pane to
// end. The exit status stays readable. Close is safe to call more than once
// and concurrently; every call returns when the pane is closed.
func (p *Pane) Close() error {
	p.closeOnce.Do(func() {
		p.closeErr = p.close()
		close(p.closedCh)
	})
	<-p.closedCh
	return p.closeErr
}

func (p *Pane) close() error {
	proc.Escalate(context.Background(), program{p}, proc.Steps(p.grace, killWait))

	if p.isExited() {
		p.sweepGroup()
	}

	p.inMu.Lock()
	p.inClosed = true
	p.inBuf = nil
	p.inMu.Unlock()
	close(p.stop)
	err := p.master.Close()
	// The waiter ends only once the program is reaped; after SIGKILL that
	// is immediate unless the process is stuck in the kernel.
	p.wg.Wait()

	// Nothing feeds the emulator any more: keep its last screen for late
	// readers and release it.
	p.mu.Lock()
	if p.syncTimer != nil {
		p.syncTimer.Stop()
	}
	p.syncSince = time.Time{}
	p.snapshotLocked()
	p.finalPlain = p.captureLocked(false)
	p.closed = true
	if rerr := releaseEmulator(p.emu); rerr != nil && err == nil {
		err = rerr
	}
	p.emu = nil
	p.mu.Unlock()
	if err != nil {
		return fmt.Errorf("close pane %s: %w", p.id, err)
	}
	return nil
}

// program is the pane's program as a proc.Target: signals go to its
// process group and the terminal's foreground group (signal), and it is
// gone once it exited (the waiter reaped it).
type program struct{ p *Pane }

func (t program) Signal(sig syscall.Signal) error {
	if !t.p.signal(sig) {
		return proc.ErrGone
	}
	return nil
}

func (t program) Wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return t.p.isExited()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-t.p.exitCh:
		return true
	case <-timer.C:
	case <-ctx.Done():
	}
	return t.p.isExited()
}

// isStopped reports whether Close has begun tearing the pane down.
func (p *Pane) isStopped() bool {
	select {
	case <-p.stop:
		return true
	default:
		return false
	}
}

func (p *Pane) isExited() bool {
	select {
	case <-p.exitCh:
		return true
	default:
		return false
	}
}

// ExitStatus is how a pane's program ended.
type ExitStatus struct {
	// Code is the exit code, or -1 when a signal ended the program.
	Code int
	// Signal is the signal that ended the program, or 0.
	Signal syscall.Signal
}

// Signaled reports whether a signal ended the program.
func (s ExitStatus) Signaled() bool { return s.Signal != 0 }

func (s ExitStatus) String() string {
	if s.Signal != 0 {
		return "signal: " + s.Signal.String()
	}
	return fmt.Sprintf("exit status %d", s.Code)
}

func exitStatusOf(ps *os.ProcessState) ExitStatus {
	if ps == nil {
		return ExitStatus{Code: -1}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ExitStatus{Code: -1, Signal: ws.Signal()}
	}
	return ExitStatus{Code: ps.ExitCode()}
}
