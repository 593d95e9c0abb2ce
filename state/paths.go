package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Root is a project root. Every path inside a run file is relative to it, and
// nothing may resolve outside it: not through "..", not as an absolute path
// elsewhere, not through a symlink.
type Root struct {
	dir string // absolute, symlinks evaluated
}

// OpenRoot checks that dir exists and is a directory and returns it as a Root.
func OpenRoot(dir string) (Root, error) {
	if dir == "" {
		return Root{}, &Error{Field: "--project-root", Msg: "is empty; pass the project's root directory"}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Root{}, &Error{Field: "--project-root", Msg: err.Error(), Err: err}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Root{}, &Error{File: dir, Msg: "project root does not exist; pass an existing directory with --project-root", Err: err}
	}
	info, err := os.Stat(real)
	if err != nil || !info.IsDir() {
		return Root{}, &Error{File: dir, Msg: "project root is not a directory"}
	}
	return Root{dir: real}, nil
}

// Dir is the root's absolute path.
func (r Root) Dir() string { return r.dir }

// Resolve turns a project-root-relative (or absolute) path into an absolute
// path under the root. The file need not exist, but the part of the path that
// does exist is resolved through symlinks and must stay inside the root. what
// names the path in errors (a file and field, or a flag).
func (r Root) Resolve(p string, what string) (string, error) {
	return r.resolve(p, what, nil)
}

// resolve is Resolve. With dirs (directory → where it really leads, filled
// as it goes) the paths of one run, which share their directories, cost one
// walk of each directory and an lstat of each file, instead of a walk from
// the file system's root each; dirs lives as long as one LoadRun.
func (r Root) resolve(p string, what string, dirs map[string]string) (string, error) {
	if p == "" {
		return "", &Error{Field: what, Msg: "is empty"}
	}
	if strings.ContainsRune(p, 0) {
		return "", &Error{Field: what, Msg: "contains a NUL byte"}
	}
	var abs string
	if filepath.IsAbs(p) {
		abs = filepath.Clean(p)
	} else {
		abs = filepath.Join(r.dir, p)
	}
	// Judge where the path really leads: an absolute path may reach the
	// root through a symlinked directory (/tmp → /private/tmp), and a
	// relative one may leave it through a symlink inside it.
	real, err := evalCached(abs, dirs)
	if err != nil {
		return "", &Error{Field: what, Msg: "resolve " + quote(p) + ": " + err.Error(), Err: err}
	}
	if !within(r.dir, real) {
		if within(r.dir, abs) {
			return "", &Error{Field: what, Msg: "path " + quote(p) + " is inside the project root, but a symlink on it leads to " + real + ", outside the project root; replace the symlink with the file itself, or point it inside the root"}
		}
		return "", &Error{Field: what, Msg: "path " + quote(p) + " is outside the project root " + r.dir + "; use a path inside it"}
	}
	return real, nil
}

// Rel returns abs relative to the root, in slash form, for writing into run
// files.
func (r Root) Rel(abs string) string {
	rel, err := filepath.Rel(r.dir, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

func within(root, p string) bool {
	if p == root {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

// evalCached is evalExisting, through dirs when it is not nil: a file in a
// directory already resolved is judged by its own lstat; a file that is a
// symlink, or any failure, goes the whole way.
func evalCached(p string, dirs map[string]string) (string, error) {
	if dirs == nil {
		return evalExisting(p)
	}
	dir, base := filepath.Dir(p), filepath.Base(p)
	realDir, ok := dirs[dir]
	if !ok {
		d, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return evalExisting(p)
		}
		realDir, dirs[dir] = d, d
	}
	cand := filepath.Join(realDir, base)
	fi, err := os.Lstat(cand)
	if (err == nil && fi.Mode()&fs.ModeSymlink == 0) || errors.Is(err, fs.ErrNotExist) {
		return cand, nil
	}
	return evalExisting(p)
}

// evalExisting evaluates symlinks in the longest existing prefix of p and
// appends the rest unchanged.
func evalExisting(p string) (string, error) {
	rest := ""
	cur := p
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		// A link whose target is missing says nothing about where a file
		// created through it would land: refuse it rather than judge the
		// link's own location.
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s is a symlink to a missing target", cur)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

func quote(s string) string { return "\"" + s + "\"" }
