// Package registry is the per-user list of live cockpit engines, which
// `cockpit ls` prints and `cockpit attach` without flags picks from. Each
// engine writes one entry and holds an exclusive flock on it for its whole
// life; the kernel drops the lock when the engine dies, even by SIGKILL, so
// a reader tells a live engine from a stale entry without trusting pids,
// and removes stale entries as it finds them. It knows nothing of runs
// beyond the few fields an entry carries, and never talks to an engine.
package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Entry describes one engine.
type Entry struct {
	// Name is the engine's short name, unique among the live engines
	// (Register makes it so): what `cockpit attach NAME` and `cockpit stop
	// NAME` take, as tmux takes a session name.
	Name        string    `json:"name"`
	PID         int       `json:"pid"`
	Socket      string    `json:"socket"`
	ProjectRoot string    `json:"projectRoot"`
	RunManifest string    `json:"runManifest"`
	TaskKey     string    `json:"taskKey,omitempty"`
	Started     time.Time `json:"started"`
	// Log is the engine's log file.
	Log string `json:"log,omitempty"`
}

// Dir is the registry directory: $COCKPIT_REGISTRY when set (tests), else
// $XDG_RUNTIME_DIR/cockpit/engines, else <tmp>/cockpit-<uid>/engines.
func Dir() string {
	if d := os.Getenv("COCKPIT_REGISTRY"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "cockpit", "engines")
	}
	return filepath.Join(os.TempDir(), "cockpit-"+strconv.Itoa(os.Getuid()), "engines")
}

// Registration is an engine's entry, held until Close.
type Registration struct {
	path string
	f    *os.File
	name string
}

// Name is the name the engine was registered under.
func (r *Registration) Name() string { return r.name }

// BaseName is the name an engine of a run asks for: the task key and the
// run's sequence number ("dev-10860-002"), the task key alone without a
// sequence, else fallback (the manifest's file name, without .json); only
// letters, digits, '.', '_' and '-' are kept, as tmux keeps session names
// free of its target separators.
func BaseName(taskKey, runSeq, fallback string) string {
	name := taskKey
	switch {
	case name == "":
		name = strings.TrimSuffix(filepath.Base(fallback), ".json")
	case runSeq != "":
		name += "-" + runSeq
	}
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '-'
	}, name)
	if name == "" || name == "." || name == ".." {
		name = "engine"
	}
	return name
}

// unique is base, or base-2, base-3, … : the first not taken.
func unique(base string, taken map[string]bool) string {
	if !taken[base] {
		return base
	}
	for n := 2; ; n++ {
		if c := base + "-" + strconv.Itoa(n); !taken[c] {
			return c
		}
	}
}

// Match is the entries target names, as tmux resolves -t: the engine of
// that exact name, else of that pid, else every engine whose name starts
// with target (one match is the engine meant; several are ambiguous).
func Match(entries []Entry, target string) []Entry {
	var prefix []Entry
	for _, e := range entries {
		if e.Name == target {
			return []Entry{e}
		}
	}
	if pid, err := strconv.Atoi(target); err == nil {
		for _, e := range entries {
			if e.PID == pid {
				return []Entry{e}
			}
		}
	}
	for _, e := range entries {
		if target != "" && strings.HasPrefix(e.Name, target) {
			prefix = append(prefix, e)
		}
	}
	return prefix
}

// Register writes e into the registry and locks it until Close. The
// directory is created private (0700) and must belong to the user. The
// entry's Name (BaseName when empty) is made unique among the live
// engines, under a lock on the registry, so two engines starting at once
// never share one: the second of two runs named demo-1-001 is
// demo-1-001-2.
func Register(e Entry) (*Registration, error) {
	dir := Dir()
	if err := privateDir(dir); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".names.lock"), os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("register the engine in %s: %w", dir, err)
	}
	defer lock.Close() // drops the lock, once the entry is in place
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return nil, fmt.Errorf("register the engine in %s: %w", dir, err)
	}
	live, err := List()
	if err != nil {
		return nil, err
	}
	taken := map[string]bool{}
	for _, l := range live {
		taken[l.Name] = true
	}
	if e.Name == "" {
		e.Name = BaseName(e.TaskKey, "", e.RunManifest)
	}
	e.Name = unique(e.Name, taken)
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, strconv.Itoa(e.PID)+".json")
	// Lock before the entry is visible: a reader must never see an
	// unlocked entry of a live engine and remove it.
	tmp, err := os.CreateTemp(dir, ".entry-*")
	if err != nil {
		return nil, fmt.Errorf("register the engine in %s: %w", dir, err)
	}
	fail := func(err error) (*Registration, error) {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("register the engine in %s: %w", dir, err)
	}
	if err := unix.Flock(int(tmp.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return fail(err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail(err)
	}
	return &Registration{path: path, f: tmp, name: e.Name}, nil
}

// Close removes the entry and drops its lock.
func (r *Registration) Close() error {
	if r == nil || r.f == nil {
		return nil
	}
	err := os.Remove(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	r.f = nil
	return err
}

// List returns the live engines, oldest first, and removes the entries of
// engines that are gone. A missing registry lists nothing.
func List() ([]Entry, error) {
	dir := Dir()
	names, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the engine registry %s: %w", dir, err)
	}
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	var out []Entry
	for _, de := range names {
		name := de.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue
		}
		e, live := read(filepath.Join(dir, name))
		if live {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Started.Equal(out[j].Started) {
			return out[i].Started.Before(out[j].Started)
		}
		return out[i].PID < out[j].PID
	})
	return out, nil
}

// read returns the entry at path and whether its engine holds its lock. A
// stale or unreadable entry is removed.
func read(path string) (Entry, bool) {
	var e Entry
	f, err := os.Open(path)
	if err != nil {
		return e, false
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB); err == nil {
		// Nobody holds it: the engine is gone. Remove the entry unless a
		// new engine (with the same pid) has just put its own in place.
		if fi, err := f.Stat(); err == nil {
			if now, err := os.Stat(path); err == nil && os.SameFile(fi, now) {
				os.Remove(path)
			}
		}
		return e, false
	} else if !errors.Is(err, syscall.EWOULDBLOCK) {
		return e, false
	}
	if err := json.NewDecoder(f).Decode(&e); err != nil {
		return e, false
	}
	return e, true
}

// privateDir makes dir (0700) or checks that it is the user's and private,
// and checks every level above it (safePath): a registry a reader trusts
// must be one nobody else can swap, rename or fill.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("make the engine registry %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("engine registry %s is not a directory", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != uint32(os.Getuid()) {
		return fmt.Errorf("engine registry %s belongs to uid %d, not to you (uid %d); set XDG_RUNTIME_DIR to a directory of your own", dir, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("make the engine registry %s private: %w", dir, err)
		}
	}
	return safePath(filepath.Dir(dir), dir)
}

// checkDir is what a reader checks of an existing registry before trusting
// its entries (each names a socket a screen would connect to): the
// directory is the user's, private, and every level above it is safe.
func checkDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("read the engine registry %s: %w", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("engine registry %s is not a directory", dir)
	case ok && st.Uid != uint32(os.Getuid()):
		return fmt.Errorf("engine registry %s belongs to uid %d, not to you (uid %d); set XDG_RUNTIME_DIR to a directory of your own", dir, st.Uid, os.Getuid())
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("engine registry %s is open to others (mode %04o); `chmod 700 %s`, or set XDG_RUNTIME_DIR to a directory of your own", dir, fi.Mode().Perm(), dir)
	}
	return safePath(filepath.Dir(dir), dir)
}

// safePath checks every directory from dir up to / as tmux checks its
// socket directory, and as OpenSSH checks the path to a key: each level is
// owned by the user or by root, and writable by nobody else unless it is
// sticky (/tmp: others cannot rename what is ours in it). A symbolic link on
// the way (/var/run → /run) must be the user's or root's too, and the
// directories it leads to are checked the same way. A level another user
// owns, or one anybody may write into and rename entries of, could have the
// registry swapped under a reader after its check; it is refused, naming
// the level. registry is the directory the message is about.
func safePath(dir, registry string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := safeLevels(abs, registry); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fmt.Errorf("check the engine registry %s: %w", registry, err)
	}
	if real == abs {
		return nil
	}
	return safeLevels(real, registry)
}

// safeLevels checks path and each of its parents (not following links).
func safeLevels(path, registry string) error {
	uid := uint32(os.Getuid())
	fix := "; set XDG_RUNTIME_DIR (or COCKPIT_REGISTRY) to a directory of your own"
	for level := path; ; level = filepath.Dir(level) {
		fi, err := os.Lstat(level)
		if err != nil {
			return fmt.Errorf("check the engine registry %s: %w", registry, err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		link := fi.Mode()&os.ModeSymlink != 0
		switch {
		case !fi.IsDir() && !link:
			return fmt.Errorf("engine registry %s: %s is not a directory%s", registry, level, fix)
		case ok && st.Uid != uid && st.Uid != 0:
			return fmt.Errorf("engine registry %s: %s belongs to uid %d, who could swap the registry%s", registry, level, st.Uid, fix)
		case !link && fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0:
			return fmt.Errorf("engine registry %s: %s is writable by others (mode %04o, not sticky)%s", registry, level, fi.Mode().Perm(), fix)
		}
		if level == filepath.Dir(level) {
			return nil
		}
	}
}
