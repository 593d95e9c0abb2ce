package watch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Exited reports whether the watcher saw pid exit (its pidfd became
// readable, or it was gone when WatchPID was called). It answers true for
// a zombie its parent has not reaped yet, which kill(pid, 0) still finds;
// every liveness decision that has a watcher asks it first (see Alive).
// A pid stays exited until the kernel gives it to another process (the
// cockpit's watcher lives for hours): a process under that pid with another
// start time is not the one that exited, and the watcher forgets the exit.
func (w *Watcher) Exited(pid int) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.exited[pid] && !w.reusedLocked(pid)
}

// reusedLocked reports whether pid, seen exit, now names another process,
// and then forgets the old one so the new one can be watched.
func (w *Watcher) reusedLocked(pid int) bool {
	was, ok := w.starts[pid]
	if !ok {
		return false
	}
	now, ok := procStart(pid)
	if !ok || now == was {
		return false // gone, or still the same (zombie) process
	}
	delete(w.exited, pid)
	delete(w.pids, pid)
	delete(w.starts, pid)
	return true
}

// procStart is pid's start time, in clock ticks since boot (field 22 of
// /proc/<pid>/stat), which tells two processes under one pid apart. A
// zombie still has it.
func procStart(pid int) (uint64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(f[19], 10, 64)
	return n, err == nil
}

// Alive reports whether pid names a live process: not seen exit by the
// watcher (a nil watcher has seen nothing), and alive to ProcessAlive.
func (w *Watcher) Alive(pid int) bool {
	return pid > 0 && !w.Exited(pid) && ProcessAlive(pid)
}

// WatchPID reports when pid exits, through a pidfd (no polling): a pid
// that is already gone, or exited but not reaped yet, is reported at once.
// Each pid is reported once; Exited remembers it.
func (w *Watcher) WatchPID(pid int) {
	if pid <= 0 {
		return
	}
	start, known := procStart(pid)
	w.mu.Lock()
	if w.closed || (w.pids[pid] && !w.reusedLocked(pid)) {
		w.mu.Unlock()
		return
	}
	w.pids[pid] = true
	if known {
		w.starts[pid] = start
	}
	w.mu.Unlock()
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if errors.Is(err, unix.EINVAL) {
		// Kernels before 5.10 have no PIDFD_NONBLOCK: set it afterwards.
		if fd, err = unix.PidfdOpen(pid, 0); err == nil {
			if err = unix.SetNonblock(fd, true); err != nil {
				unix.Close(fd)
			}
		}
	}
	if err != nil {
		// ESRCH: already gone. ENOSYS (old kernel): nothing to wait on;
		// consumers still see the sidecar and their own timeouts.
		if errors.Is(err, unix.ESRCH) {
			w.pidExited(pid, start, known)
		}
		return
	}
	// A non-blocking fd handed to os.NewFile is registered with the
	// runtime's poller (epoll): waiting on it parks the goroutine, not a
	// thread, and closing the file wakes the wait.
	f := os.NewFile(uintptr(fd), fmt.Sprintf("pidfd:%d", pid))
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		f.Close()
		return
	}
	w.pidfds[f] = true
	w.wg.Add(1)
	w.mu.Unlock()
	go func() {
		defer w.wg.Done()
		exited := false
		err := rc.Read(func(fd uintptr) bool {
			exited = pidfdExited(int(fd))
			return exited // false: park until the poller says readable
		})
		w.mu.Lock()
		open := w.pidfds[f]
		delete(w.pidfds, f)
		w.mu.Unlock()
		if open {
			f.Close()
		}
		if exited || (err != nil && !errors.Is(err, os.ErrClosed) && pidfdGone(pid)) {
			w.pidExited(pid, start, known)
		}
	}()
}

// pidExited remembers that pid, the process that started at start, exited
// and reports it — unless the pid has been watched again since for another
// process (reused).
func (w *Watcher) pidExited(pid int, start uint64, known bool) {
	w.mu.Lock()
	if now, ok := w.starts[pid]; known && ok && now != start {
		w.mu.Unlock()
		return
	}
	w.exited[pid] = true
	w.mu.Unlock()
	w.add(FileEvent{Kind: EvProcessExit, PID: pid})
}

// pidfdExited reports whether the process behind a pidfd has exited: its
// pidfd is readable from the moment it exits, reaped or not.
func pidfdExited(fd int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 0)
		if err == unix.EINTR {
			continue
		}
		return err == nil && n > 0 && fds[0].Revents&(unix.POLLIN|unix.POLLHUP|unix.POLLERR) != 0
	}
}

// pidfdGone is the stateless exit probe: pid is gone when no pidfd can be
// opened for it (reaped) or its pidfd is readable (exited, perhaps a
// zombie). ok is false when pidfds are not available.
func pidfdProbe(pid int) (gone, ok bool) {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return true, true
	}
	if err != nil {
		return false, false
	}
	defer unix.Close(fd)
	return pidfdExited(fd), true
}

func pidfdGone(pid int) bool {
	gone, ok := pidfdProbe(pid)
	return ok && gone
}

// ProcessAlive reports whether pid names a live process. It asks a pidfd:
// a process that exited is gone even while it is a zombie its parent has not
// reaped yet (kill(pid, 0) still finds a zombie, and a wrapper killed while
// its parent is busy stays one until the parent's wait). Without pidfds
// (kernels before 5.3) it falls back to kill(pid, 0), where EPERM means the
// process exists under another user. A caller holding a Watcher asks
// Watcher.Alive, which also remembers the exits the watcher saw.
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if gone, ok := pidfdProbe(pid); ok {
		return !gone
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
