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
//
// The file is removed when the server closes, so no lock file outlives its
// server (the tests' and the /tmp fallback's directories filled with them).
// Removing a flock'd file has a known race — a rival that opened the file
// before the removal locks the removed inode while a third creates a new
// one — so a taker checks, once it holds the lock, that the path still
// names the inode it locked, and starts over when it does not; and the
// holder removes the file before it lets go of the lock.
type pidLock struct {
	f        *os.File
	path     string
	dev, ino uint64 // the locked file's, to tell it from a replacement
}

// lockPID takes the lock at path and writes the pid into it. When another
// live server holds it, the error wraps ErrServing and names that pid.
func lockPID(path string) (*pidLock, error) {
	for range 100 {
		l, err := lockPIDOnce(path)
		if !errors.Is(err, errLockRemoved) {
			return l, err
		}
	}
	return nil, fmt.Errorf("lock %s: the file kept being replaced while it was taken; is another cockpit starting and stopping here?", path)
}

// errLockRemoved: the lock was taken on a file its holder removed.
var errLockRemoved = errors.New("lock file removed while it was taken")

func lockPIDOnce(path string) (*pidLock, error) {
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
	var now unix.Stat_t
	if err := unix.Lstat(path, &now); errors.Is(err, unix.ENOENT) || err == nil && (now.Dev != st.Dev || now.Ino != st.Ino) {
		f.Close()
		return nil, errLockRemoved
	} else if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat lock file %s: %w", path, err)
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
	return &pidLock{f: f, path: path, dev: uint64(st.Dev), ino: st.Ino}, nil
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

// Unlock removes the lock file, while still holding its lock, and then
// releases it (closing the file drops the flock). The file is removed only
// when the path still names the file this lock holds.
func (l *pidLock) Unlock() error {
	var now unix.Stat_t
	if unix.Lstat(l.path, &now) == nil && uint64(now.Dev) == l.dev && now.Ino == l.ino {
		_ = os.Remove(l.path)
	}
	return l.f.Close()
}

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
