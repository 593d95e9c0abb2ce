package testenv

import (
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// WaitZombie blocks until pid has exited but is not reaped (its /proc
// state is Z), using waitid with WNOWAIT, which leaves the child a zombie
// — the state in which kill(pid, 0) still finds it.
func WaitZombie(t testing.TB, pid int) {
	t.Helper()
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatalf("waitid(WNOWAIT) %d: %v", pid, err)
		}
		break
	}
	if syscall.Kill(pid, 0) != nil {
		t.Fatalf("pid %d is not a zombie: kill(pid, 0) fails", pid)
	}
}
