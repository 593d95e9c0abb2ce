package control

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// pidLock is the lock file beside the socket: an exclusive flock held for
// the server's life, the file holding the server's pid. It is opened with
// O_NOFOLLOW and O_NONBLOCK and must be a regular file, so a symlink or a
// FIFO planted at its name (a cloned repository can carry either) is
// refused, never followed out of the run nor waited on.
type pidLock struct{ f *os.File }

// lockPID takes the lock at path and writes the pid into it. When another
// live server holds it, the error wraps ErrServing and names that pid.
func lockPID(path string) (*pidLock, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o600)
	if errors.Is(err, unix.ELOOP) {
		return nil, fmt.Errorf("lock file %s is a symlink; the cockpit writes only files of its own: remove it and start again", path)
	}
	if err != nil {
		return nil, fmt.Errorf("open lock file %s: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("stat lock file %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		f.Close()
		return nil, fmt.Errorf("lock file %s is not a regular file (%s); remove it and start again", path, fileKind(st.Mode))
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			pid := lockHolder(fd)
			f.Close()
			return nil, fmt.Errorf("%w (pid %s)", ErrServing, pid)
		}
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	err = unix.Ftruncate(fd, 0)
	if err == nil {
		_, err = unix.Pwrite(fd, pid, 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("write lock file %s: %w", path, err)
	}
	return &pidLock{f: f}, nil
}

// lockHolder is the pid in a held lock file. The holder writes it just
// after taking the lock, so a loser of a race (two serve at once) may find
// the file still empty: it waits for the pid a little (at most 2 s) rather
// than saying "(pid )".
func lockHolder(fd int) string {
	deadline := time.Now().Add(2 * time.Second)
	buf := make([]byte, 32)
	for {
		n, _ := unix.Pread(fd, buf, 0)
		if pid := strings.TrimSpace(string(buf[:max(n, 0)])); pid != "" {
			return pid
		}
		if time.Now().After(deadline) {
			return "unknown"
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Unlock releases the lock (closing the file drops the flock).
func (l *pidLock) Unlock() error { return l.f.Close() }

// fileKind names what a non-regular file is, for a refusal.
func fileKind(mode uint32) string {
	switch mode & syscall.S_IFMT {
	case syscall.S_IFIFO:
		return "a FIFO"
	case syscall.S_IFDIR:
		return "a directory"
	case syscall.S_IFSOCK:
		return "a socket"
	case syscall.S_IFCHR, syscall.S_IFBLK:
		return "a device"
	case syscall.S_IFLNK:
		return "a symlink"
	}
	return "not a regular file"
}
