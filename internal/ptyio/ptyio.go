// Package ptyio opens pseudo-terminals whose master side the Go runtime
// poller manages, and sizes them, for the two places that run programs in a
// PTY: panes and the worker wrapper. It knows nothing else.
package ptyio

import (
	"fmt"
	"os"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Open opens a PTY pair and returns a master the runtime poller manages,
// so reads honour deadlines and Close wakes a blocked reader. creack/pty
// leaves the master in blocking mode, where a goroutine blocked in read(2)
// cannot be woken by Close; a non-blocking duplicate can.
func Open() (master, tty *os.File, err error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("open pty: %w", err)
	}
	rc, err := ptmx.SyscallConn()
	if err != nil {
		_ = ptmx.Close()
		_ = tty.Close()
		return nil, nil, fmt.Errorf("open pty: %w", err)
	}
	fd := -1
	var dupErr error
	if err := rc.Control(func(f uintptr) {
		fd, dupErr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		dupErr = err
	}
	_ = ptmx.Close()
	if dupErr != nil {
		_ = tty.Close()
		return nil, nil, fmt.Errorf("dup pty master: %w", dupErr)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		_ = tty.Close()
		return nil, nil, fmt.Errorf("set pty master non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), tty, nil
}

// SetSize sets the PTY size through the poller-managed descriptor (calling
// Fd, as pty.Setsize does, would switch it back to blocking mode); the
// kernel then sends SIGWINCH to the terminal's foreground group.
func SetSize(f *os.File, cols, rows int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return fmt.Errorf("set pty size: %w", err)
	}
	ws := &unix.Winsize{Col: uint16(cols), Row: uint16(rows)}
	var ioErr error
	if err := rc.Control(func(fd uintptr) {
		ioErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, ws)
	}); err != nil {
		return fmt.Errorf("set pty size: %w", err)
	}
	if ioErr != nil {
		return fmt.Errorf("set pty size: %w", ioErr)
	}
	return nil
}
