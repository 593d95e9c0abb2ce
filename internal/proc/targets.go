package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// pollEvery is how often a group's liveness is looked at while waiting
// (a group has no pidfd).
const pollEvery = 10 * time.Millisecond

// Group is process group pgid as a Target: signals go to every member
// (kill(-pgid)); it is gone when no member is alive (GroupLive). A group
// id cannot be reused while any process holds it, so signalling -pgid
// never reaches a stranger.
type Group int

// Signal is Target's.
func (g Group) Signal(sig syscall.Signal) error {
	if err := syscall.Kill(-int(g), sig); err != nil {
		if err == syscall.ESRCH {
			return ErrGone
		}
		return err
	}
	return nil
}

// Wait is Target's: it looks every pollEvery.
func (g Group) Wait(ctx context.Context, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if !GroupLive(int(g)) {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 || ctx.Err() != nil {
			return false
		}
		t := time.NewTimer(min(left, pollEvery))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
}

// GroupLive reports whether process group pgid has a member that is not
// a zombie. kill(-pgid, 0) answers the common case (no member at all)
// without reading /proc; a zombie member, reparented to an init that does
// not reap, still answers it, so the members' states decide.
func GroupLive(pgid int) bool {
	if syscall.Kill(-pgid, 0) == syscall.ESRCH {
		return false
	}
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 3 || f[0][0] == 'Z' || f[0][0] == 'X' {
			continue
		}
		if g, err := strconv.Atoi(string(f[2])); err == nil && g == pgid {
			return true
		}
	}
	return false
}

// Process is one process held by its pidfd: signals reach that process
// and never one that reused its pid, and it is gone once it exited — a
// child that exited is gone here while it is still a zombie to
// kill(pid, 0). Close releases the pidfd.
type Process struct {
	PID int
	fd  int
}

// Open holds pid by a pidfd (Linux 5.3); an error when pid is gone.
// Where pidfds are not to be had (a kernel before 5.3, a seccomp profile
// refusing pidfd_open) the process is held by its pid instead — kill(2)
// and kill(pid, 0) — as runtime/watch falls back: a teardown must still
// stop it, at the old risk of a reused pid.
func Open(pid int) (*Process, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			return nil, fmt.Errorf("open %d: %w", pid, ErrGone)
		}
		return &Process{PID: pid, fd: -1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open pidfd of %d: %w", pid, err)
	}
	return &Process{PID: pid, fd: fd}, nil
}

// Signal is Target's.
func (p *Process) Signal(sig syscall.Signal) error {
	if p.fd < 0 {
		if err := syscall.Kill(p.PID, sig); err != nil {
			if err == syscall.ESRCH {
				return ErrGone
			}
			return fmt.Errorf("signal %d: %w", p.PID, err)
		}
		return nil
	}
	if err := unix.PidfdSendSignal(p.fd, sig, nil, 0); err != nil {
		if err == unix.ESRCH {
			return ErrGone
		}
		return fmt.Errorf("signal %d: %w", p.PID, err)
	}
	return nil
}

// Wait is Target's: it polls the pidfd, which is readable once the
// process exited.
func (p *Process) Wait(ctx context.Context, d time.Duration) bool {
	deadline := time.Now().Add(d)
	if p.fd < 0 {
		for syscall.Kill(p.PID, 0) != syscall.ESRCH {
			if time.Until(deadline) <= 0 || ctx.Err() != nil {
				return false
			}
			time.Sleep(10 * time.Millisecond)
		}
		return true
	}
	for {
		// A slice at a time, so an ended ctx is seen.
		ms := min(time.Until(deadline), 100*time.Millisecond).Milliseconds()
		fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(max(ms, 0)))
		if err == nil && n > 0 {
			// POLLNVAL (a closed fd) is not an exit.
			return fds[0].Revents&(unix.POLLIN|unix.POLLHUP|unix.POLLERR) != 0
		}
		if err != nil && err != unix.EINTR {
			return false
		}
		if time.Until(deadline) <= 0 || ctx.Err() != nil {
			return false
		}
	}
}

// Close releases the pidfd.
func (p *Process) Close() error {
	if p.fd < 0 {
		return nil
	}
	return unix.Close(p.fd)
}
