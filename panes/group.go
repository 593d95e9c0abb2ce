package panes

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// sweepGroup ends what is left of the pane's process group after its
// leader exited: a background job that ignored SIGHUP, a helper that
// daemonised without leaving the group. The kernel hangs up only the
// foreground group when the session leader dies, and nobody waits for the
// rest, so tmux leaves them running; a reclaimed worker pane must not
// leave a CLI's children behind. They get the same SIGHUP, SIGTERM,
// SIGKILL escalation as a live program, each only while the group has a
// live (non-zombie) member. The group id cannot be reused while any
// process holds it, so signalling -pid never reaches a stranger.
func (p *Pane) sweepGroup() {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGKILL} {
		if !groupLive(p.pid) {
			return
		}
		_ = syscall.Kill(-p.pid, sig)
		wait := p.grace
		if sig == syscall.SIGKILL {
			wait = killWait
		}
		deadline := time.Now().Add(wait)
		for groupLive(p.pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// groupLive reports whether process group pgid has a member that is not a
// zombie. kill(-pgid, 0) answers the common case (no member at all)
// without reading /proc; a zombie member, reparented to an init that does
// not reap, still answers it, so the members' states decide.
func groupLive(pgid int) bool {
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
