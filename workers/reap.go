package workers

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/state"
)

// becomeSubreaper makes the wrapper the child subreaper of everything the
// CLI starts: a process that leaves the CLI's process group or session
// (setsid, a daemon's double fork) is reparented to the wrapper instead of
// init when its parent dies, so the wrapper can still end it.
func becomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// children lists the pids whose parent is pid, from /proc.
func children(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) >= 2 {
			if pp, err := strconv.Atoi(f[1]); err == nil && pp == pid {
				out = append(out, n)
			}
		}
	}
	return out
}

// endDescendants kills every process left under the wrapper once its CLI
// is gone and reaps it: the orphans reparented to the wrapper (it is their
// subreaper) and, level by level, their own children. It returns how many
// it killed. Bounded: it gives up after limit.
func endDescendants(limit time.Duration) int {
	self := os.Getpid()
	killed := 0
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		kids := children(self)
		if len(kids) == 0 {
			return killed
		}
		for _, k := range kids {
			// Its own children first, so none is left running unparented
			// for a moment; they come to the wrapper when k dies.
			for _, g := range children(k) {
				_ = syscall.Kill(g, syscall.SIGKILL)
			}
			if syscall.Kill(k, syscall.SIGKILL) == nil {
				killed++
			}
		}
		for _, k := range kids {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(k, &ws, 0, nil)
		}
	}
	return killed
}

// reapOrphans reaps, without blocking, the children of the wrapper other
// than the CLI that have exited: orphans that came to it as their subreaper
// and died while the CLI runs.
func reapOrphans(cli int) {
	for _, k := range children(os.Getpid()) {
		if k == cli {
			continue
		}
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(k, &ws, syscall.WNOHANG, nil)
	}
}

// writeFinal writes the terminal sidecar. When the atomic write fails (a
// full disk cannot hold the temp file), the sidecar is rewritten in place:
// the started sidecar's blocks are already allocated and the terminal one
// is about as long, so the status lands even on a full disk, and the reason
// says how. It returns the error of the atomic write, nil when it
// succeeded.
func writeFinal(path string, sc *state.Sidecar) error {
	err := state.WriteSidecar(path, sc)
	if err == nil {
		return nil
	}
	end := *sc
	if end.Reason != "" {
		end.Reason += "; "
	}
	end.Reason += "status sidecar rewritten in place: " + err.Error()
	data, merr := json.MarshalIndent(&end, "", "  ")
	if merr != nil {
		return err
	}
	data = append(data, '\n')
	f, oerr := os.OpenFile(path, os.O_WRONLY|syscall.O_NOFOLLOW, 0)
	if oerr != nil {
		return err
	}
	defer f.Close()
	if _, werr := f.WriteAt(data, 0); werr != nil {
		return err
	}
	_ = f.Truncate(int64(len(data)))
	_ = f.Sync()
	return err
}
