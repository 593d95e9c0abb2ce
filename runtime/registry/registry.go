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
}

// Register writes e into the registry and locks it until Close. The
// directory is created private (0700) and must belong to the user.
func Register(e Entry) (*Registration, error) {
	dir := Dir()
	if err := privateDir(dir); err != nil {
		return nil, err
	}
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
	return &Registration{path: path, f: tmp}, nil
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

// privateDir makes dir (0700) or checks that it is the user's and private.
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
	return nil
}
