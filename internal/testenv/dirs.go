package testenv

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// socketRoom is what ShortDir leaves for the names under it: a socket path
// ShortDir(t)+"/"+name fits when name is at most this long.
const socketRoom = 48

// shortBase is where short directories go: the temp dir when its path
// leaves room for a socket, else /tmp (a directory made there is still
// private: MkdirTemp creates it 0700).
func shortBase() (string, error) {
	tmp := os.TempDir()
	// base + "/ck" + up to 10 random digits + "/" + name
	if len(tmp)+len("/ck")+10+1+socketRoom <= MaxSocketPath {
		return tmp, nil
	}
	if st, err := os.Stat("/tmp"); err == nil && st.IsDir() {
		return "/tmp", nil
	}
	return "", fmt.Errorf("TMPDIR %s is too long for a unix socket under it (%d bytes; a socket path holds %d) and there is no /tmp: set TMPDIR to a shorter directory", tmp, len(tmp), MaxSocketPath)
}

// ShortDir is a new private (0700) directory, removed when t ends, whose
// path leaves room for a unix socket: ShortDir(t)+"/"+name fits in a
// sockaddr when name is at most 48 bytes, however long $TMPDIR is.
func ShortDir(t testing.TB) string {
	t.Helper()
	d, err := mkShortDir("ck")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func mkShortDir(prefix string) (string, error) {
	base, err := shortBase()
	if err != nil {
		return "", err
	}
	return os.MkdirTemp(base, prefix)
}

// M is what testing.M and testscript's TestingM have in common.
type M interface{ Run() int }

// Private wraps m for a package's TestMain (os.Exit(testenv.Private(m).Run()),
// or testscript.Main(testenv.Private(m), ...)). Its Run gives the whole
// test process — and every process it starts — a private place for what
// the cockpit and tmux would otherwise share with the user:
// COCKPIT_REGISTRY (the engine registry), XDG_RUNTIME_DIR (the fallback
// socket directory) and TMUX_TMPDIR (tmux -L sockets), all in one short
// private directory. After the tests it fails the run (exit 1, naming them)
// when an engine is still registered alive there, a tmux server still
// answers there, or a process the tests started (one whose environment or
// command line names the directory, as every child's does unless a test
// built its environment from nothing) is still running; it stops them and
// removes the directory.
func Private(m M) M { return privateM{m} }

type privateM struct{ m M }

func (p privateM) Run() int {
	dir, err := mkShortDir("ckenv")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	env := Env{
		Dir:      dir,
		Registry: filepath.Join(dir, "engines"),
		Runtime:  filepath.Join(dir, "run"),
		Tmux:     filepath.Join(dir, "tmux"),
	}
	for _, d := range []string{env.Runtime, env.Tmux} {
		if err := os.Mkdir(d, 0o700); err != nil {
			fmt.Fprintln(os.Stderr, "testenv:", err)
			return 1
		}
	}
	for k, v := range map[string]string{"COCKPIT_REGISTRY": env.Registry, "XDG_RUNTIME_DIR": env.Runtime, "TMUX_TMPDIR": env.Tmux} {
		os.Setenv(k, v)
	}
	// A test process that ends without coming back here (killed by
	// -timeout, a panic, a signal) leaves its directory and what runs in
	// it: the next Private run on this machine stops and removes them
	// (sweep), and a -timeout's alarm is beaten to it by a second.
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(processID(os.Getpid())), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		return 1
	}
	sweep(dir)
	if !flag.Parsed() {
		flag.Parse() // testing's flags, registered before TestMain; m.Run parses them again harmlessly
	}
	if f := flag.Lookup("test.timeout"); f != nil {
		if d, _ := time.ParseDuration(f.Value.String()); d > 2*time.Second {
			alarm := time.AfterFunc(d-time.Second, func() {
				if left := env.kill(); len(left) > 0 {
					fmt.Fprintln(os.Stderr, "testenv: the -timeout is about to end the tests; stopped what they started:\n  "+strings.Join(left, "\n  "))
				}
				os.RemoveAll(dir) // the alarm's panic runs no deferred call
			})
			defer alarm.Stop()
		}
	}
	code := p.m.Run()
	if left := env.Leftovers(true); len(left) > 0 {
		fmt.Fprintln(os.Stderr, "testenv: the tests left behind (now stopped):\n  "+strings.Join(left, "\n  "))
		if code == 0 {
			code = 1
		}
	}
	return code
}

// ownerFile, in a private directory, names the test process that made it
// (processID): while that process lives, the directory is its own.
const ownerFile = "owner"

// processID is pid and its start time (/proc/<pid>/stat's 22nd field), so
// that a reused pid is not taken for the process that had it.
func processID(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return strconv.Itoa(pid)
	}
	start := ""
	if i := strings.LastIndexByte(string(data), ')'); i >= 0 {
		if f := strings.Fields(string(data[i+1:])); len(f) > 19 {
			start = f[19]
		}
	}
	return strconv.Itoa(pid) + " " + start
}

// sweep stops and removes what earlier test processes left in their
// private directories beside self (ckenv* under the same base) when they
// ended without cleaning up: a directory whose owner no longer runs.
func sweep(self string) {
	dirs, _ := filepath.Glob(filepath.Join(filepath.Dir(self), "ckenv*"))
	for _, d := range dirs {
		if d == self {
			continue
		}
		owner, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue // not made by Private, or not yet claimed
		}
		f := strings.Fields(string(owner))
		if len(f) == 0 {
			continue
		}
		if pid, err := strconv.Atoi(f[0]); err != nil || processID(pid) == string(owner) {
			continue // its test process still runs
		}
		e := Env{Dir: d, Registry: filepath.Join(d, "engines"), Runtime: filepath.Join(d, "run"), Tmux: filepath.Join(d, "tmux")}
		if left := e.leftovers(true, 0); len(left) > 0 { // its owner is gone: nothing there is on its way out
			fmt.Fprintf(os.Stderr, "testenv: an earlier test process (%s, ended) left behind (now stopped):\n  %s\n", f[0], strings.Join(left, "\n  "))
		}
		os.RemoveAll(d)
	}
}

// kill stops at once, without the grace Leftovers gives, the tmux servers
// under e.Tmux and the processes naming e.Dir, and lists them.
func (e Env) kill() []string {
	var out []string
	socks, _ := filepath.Glob(filepath.Join(e.Tmux, "tmux-*", "*"))
	for _, sock := range socks {
		if exec.Command("tmux", "-S", sock, "kill-server").Run() == nil {
			out = append(out, "tmux server on "+sock)
		}
	}
	for _, pid := range processesNaming(e.Dir) {
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			out = append(out, fmt.Sprintf("process %d", pid))
		}
	}
	return out
}

// Env is a private environment's directories.
type Env struct {
	Dir      string // holds the others; a process naming it is the tests'
	Registry string // COCKPIT_REGISTRY
	Runtime  string // XDG_RUNTIME_DIR
	Tmux     string // TMUX_TMPDIR: tmux's sockets are in Tmux/tmux-<uid>
}

// Leftovers lists the engines registered alive in e.Registry (or in
// e.Runtime's default registry, where a child whose COCKPIT_REGISTRY was
// cleared registers), the tmux servers answering on sockets under e.Tmux,
// and the processes still running that name e.Dir; with stop it also stops
// them (SIGTERM, then SIGKILL after 5 s; tmux kill-server). A process that
// is on its way out is given a moment (Scale(1s)) before it counts.
func (e Env) Leftovers(stop bool) []string { return e.leftovers(stop, exitGrace) }

// exitGrace is how long Leftovers gives a process on its way out (before
// Scale); this package's own tests, whose leftovers never leave, shorten it.
var exitGrace = time.Second

// leftovers is Leftovers giving a process on its way out Scale(grace).
func (e Env) leftovers(stop bool, grace time.Duration) []string {
	var out []string
	entries, _ := filepath.Glob(filepath.Join(e.Registry, "*.json"))
	if e.Runtime != "" {
		more, _ := filepath.Glob(filepath.Join(e.Runtime, "cockpit", "engines", "*.json"))
		entries = append(entries, more...)
	}
	sort.Strings(entries)
	for _, path := range entries {
		if !locked(path) {
			continue
		}
		pid, _ := strconv.Atoi(strings.TrimSuffix(filepath.Base(path), ".json"))
		out = append(out, fmt.Sprintf("engine pid %d, registered in %s", pid, path))
		if stop && pid > 0 {
			stopPID(pid)
		}
	}
	socks, _ := filepath.Glob(filepath.Join(e.Tmux, "tmux-*", "*"))
	sort.Strings(socks)
	for _, sock := range socks {
		if exec.Command("tmux", "-S", sock, "list-sessions").Run() != nil {
			continue // no server: a socket file tmux leaves when it exits
		}
		out = append(out, "tmux server on "+sock)
		if stop {
			_ = exec.Command("tmux", "-S", sock, "kill-server").Run()
		}
	}
	if e.Dir == "" {
		return out
	}
	var procs []int
	Poll(grace, func() bool { procs = processesNaming(e.Dir); return len(procs) == 0 })
	for _, pid := range procs {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		out = append(out, fmt.Sprintf("process %d: %s", pid, strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))))
		if stop {
			stopPID(pid)
		}
	}
	return out
}

// processesNaming is the pids, other than this process, of the live
// processes whose environment or command line contains dir (read from
// /proc; none where there is no /proc). A zombie has neither, and is not
// running.
func processesNaming(dir string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, ent := range ents {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		for _, f := range []string{"environ", "cmdline"} {
			data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, f))
			if strings.Contains(string(data), dir) {
				pids = append(pids, pid)
				break
			}
		}
	}
	sort.Ints(pids)
	return pids
}

// locked reports whether a registry entry is flocked, which its engine
// holds for its whole life (runtime/registry).
func locked(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if err == nil {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
	}
	return errors.Is(err, unix.EWOULDBLOCK)
}

func stopPID(pid int) {
	if syscall.Kill(pid, syscall.SIGTERM) != nil {
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

// PublicDir is a new directory, removed when t ends, that every user can
// reach and read (0755, under $TMPDIR when every directory above it lets
// others through, else under /tmp): for a program a test runs as another
// user. ShortDir and t.TempDir() are private to this user.
func PublicDir(t testing.TB) string {
	t.Helper()
	base := os.TempDir()
	if !othersCanReach(base) {
		base = "/tmp"
	}
	d, err := os.MkdirTemp(base, "ckpub")
	if err == nil {
		err = os.Chmod(d, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// othersCanReach reports whether every directory from / down to dir lets
// other users through (o+x).
func othersCanReach(dir string) bool {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == "/" || d == "." {
			return true
		}
	}
}
