package workers

import (
	"bufio"
	"crypto/rand"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/internal/lazyre"
)

// NewSessionID returns a random (version 4) UUID: the session id a
// dispatch gives its worker when its job names none.
func NewSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

var uuidRE = &lazyre.Regexp{Pattern: `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`}

// fileKind names what a file that is not a regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a regular file (" + m.Type().String() + ")"
}

// readRegular reads a file that must be regular without ever blocking on
// it: it is opened non-blocking and checked again once open, so a FIFO
// swapped in after the stat is refused instead of hanging the wrapper.
func readRegular(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("is %s, not a regular file", fileKind(st.Mode()))
	}
	return io.ReadAll(f)
}

// writeScope returns the write-scope directories of an invocation's write
// policy ({"writeScope": [...]}) other than the project root, absolute:
// codex is told each with --add-dir, as okstra's codex adapter does.
func (p *plan) writeScope(metadata string, policy map[string]any) ([]string, *preflightError) {
	raw, ok := policy["writeScope"]
	if !ok || raw == nil {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, refuse(exitUsage, "invocation write contract is invalid: %s: writePolicy.writeScope is not a list of directories", metadata)
	}
	var out []string
	for i, e := range list {
		dir, ok := e.(string)
		if !ok || dir == "" {
			return nil, refuse(exitUsage, "invocation write contract is invalid: %s: writePolicy.writeScope[%d] is not a directory path", metadata, i)
		}
		abs, err := p.root.Resolve(dir, fmt.Sprintf("writePolicy.writeScope[%d]", i))
		if err != nil {
			return nil, refuse(exitUsage, "invocation write contract is invalid: %s: %v", metadata, err)
		}
		if abs != p.root.Dir() && !slices.Contains(out, abs) {
			out = append(out, abs)
		}
	}
	return out, nil
}

// manifestMismatch is okstra's wording for a v2 identity the run manifest
// does not back (seed 004), chosen by what err says.
func manifestMismatch(err error) string {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "role execution "):
		return "invocation metadata role execution does not match run manifest"
	case strings.HasPrefix(msg, "invocation "):
		return "invocation metadata invocation does not match run manifest"
	case strings.HasPrefix(msg, "execution label "):
		return "invocation metadata execution label does not match run manifest"
	}
	return "invocation metadata role execution binding does not match run manifest"
}

// checkCLI refuses, before anything starts, what the CLI is known to
// refuse at once, with the fix: codex exec outside a git work tree.
func (p *plan) checkCLI() *preflightError {
	if filepath.Base(p.argv[0]) != "codex" || !slices.Contains(p.argv, "exec") || slices.Contains(p.argv, "--skip-git-repo-check") {
		return nil
	}
	dir, code, what := p.root.Dir(), exitProjectRoot, "project-root"
	if p.worktree != "" {
		dir, code, what = p.worktree, exitWorktree, "worktree-path"
	}
	if inGitWorkTree(dir) || codexTrusts(dir) {
		return nil
	}
	return refuse(code, "%s %s is not inside a git work tree, and codex exec refuses to run there (\"Not inside a trusted directory and --skip-git-repo-check was not specified.\"); run `git init` in it, or add \"--skip-git-repo-check\" to codex's argv in providers.json", what, dir)
}

// inGitWorkTree reports whether dir or a parent holds .git (a directory, or
// the file a linked worktree or submodule has), as codex's check does.
func inGitWorkTree(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// codexTrusts reports whether codex's config.toml marks dir (or a parent)
// trusted: a `[projects."<dir>"]` table with `trust_level = "trusted"`.
// codex runs there outside git too.
func codexTrusts(dir string) bool {
	home := os.Getenv("CODEX_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return false
		}
		home = filepath.Join(h, ".codex")
	}
	f, err := os.Open(filepath.Join(home, "config.toml"))
	if err != nil {
		return false
	}
	defer f.Close()
	trusted := map[string]bool{}
	table := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			table = strings.TrimSpace(strings.Trim(line, "[]"))
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != "trust_level" || strings.Trim(strings.TrimSpace(v), `"'`) != "trusted" {
			continue
		}
		if rest, ok := strings.CutPrefix(table, "projects."); ok {
			trusted[strings.Trim(rest, `"'`)] = true
		}
	}
	for d := dir; ; d = filepath.Dir(d) {
		if trusted[d] {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}
