package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The okstra shim (docs/OKSTRA.md). The cockpit is a multi-call binary:
// started under the name "okstra" — the symlink the cockpit puts first on
// its lead's PATH — it answers the commands of okstra's lead contract that
// the cockpit owns, with the same flags and output, and hands every other
// command unchanged (argv, stdin, environment; exec, so the exit status is
// the real okstra's) to the next okstra on the PATH.

// okstraName is the program name the shim answers to.
const okstraName = "okstra"

// exitNotFound is the shell's "command not found" status: no real okstra
// to hand a foreign command to.
const exitNotFound ExitCode = 127

// okstraOwned are the okstra commands the cockpit implements, by the words
// that name them: a group maps to its owned subcommands, a plain command to
// nil. Anything else — another subcommand of an owned group included — is
// okstra's.
var okstraOwned = map[string][]string{
	"team":              {"dispatch", "await", "reclaim", "teardown"},
	"worker-dispatch":   nil,
	"codex-dispatch":    nil,
	"worker-liveness":   nil,
	"lead-progress":     {"append"},
	"user-response":     {"write", "show"},
	"approval-decision": {"open", "option", "carry", "resolve"},
}

// okstraOwns reports whether the cockpit answers `okstra <args...>`.
func okstraOwns(args []string) bool {
	if len(args) == 0 {
		return false
	}
	subs, ok := okstraOwned[args[0]]
	if !ok {
		return false
	}
	if subs == nil {
		return true
	}
	if len(args) < 2 {
		return false
	}
	for _, s := range subs {
		if args[1] == s {
			return true
		}
	}
	return false
}

// isOkstraName reports whether the binary was started as okstra.
func isOkstraName(argv0 string) bool {
	return filepath.Base(argv0) == okstraName
}

// okstraMain is main for the okstra name: argv is the whole argument vector,
// argv[0] included. It returns only when the command was the cockpit's or
// no real okstra could be started.
func okstraMain(argv []string, env []string, in io.Reader, out, errw io.Writer) ExitCode {
	args := argv[1:]
	if okstraOwns(args) {
		return mainAs(okstraName, args, in, out, errw)
	}
	self, _ := os.Executable()
	real, shim := findRealOkstra(pathOf(env), self, argv[0])
	if real == "" {
		fmt.Fprintln(errw, noRealOkstra(args, shim))
		return exitNotFound
	}
	err := syscall.Exec(real, argv, env)
	fmt.Fprintf(errw, "okstra: run %s: %v\n", real, err)
	return exitNotFound
}

func pathOf(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "PATH="); ok {
			return v
		}
	}
	return ""
}

// findRealOkstra looks along path for an executable okstra that is not the
// cockpit itself (the shim's symlink, wherever it appears, and any other
// link to the same binary are skipped: no loop). It returns that okstra
// ("" if none) and the shim's directory for messages: the first PATH
// directory whose okstra is the cockpit, else argv0's directory.
func findRealOkstra(path, self, argv0 string) (real, shim string) {
	selfInfo, selfErr := os.Stat(self)
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		cand := filepath.Join(dir, okstraName)
		fi, err := os.Stat(cand)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			continue
		}
		if selfErr == nil && os.SameFile(fi, selfInfo) {
			if shim == "" {
				shim = dir
			}
			continue
		}
		if real == "" {
			real = cand
		}
	}
	if shim == "" {
		shim = filepath.Dir(argv0)
		if !strings.Contains(argv0, "/") {
			shim = "not on PATH"
		}
	}
	return real, shim
}

// okstraShim makes a private directory (0700, a fresh name under
// $XDG_RUNTIME_DIR or the temp dir) holding an okstra symlink to the
// cockpit binary self, for the lead's PATH. remove deletes it.
func okstraShim(self string) (dir string, remove func(), err error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if fi, err := os.Stat(base); base == "" || err != nil || !fi.IsDir() {
		base = os.TempDir()
	}
	dir, err = os.MkdirTemp(base, "cockpit-okstra-")
	if err != nil {
		return "", nil, fmt.Errorf("make the okstra shim directory: %w", err)
	}
	remove = func() { os.RemoveAll(dir) }
	if err := os.Symlink(self, filepath.Join(dir, okstraName)); err != nil {
		remove()
		return "", nil, fmt.Errorf("make the okstra shim: %w", err)
	}
	return dir, remove, nil
}

// noRealOkstra is the shim's one line when no real okstra can take the
// command: it names the command (both words for a group: "team status";
// a flag as given: "--version"), and says what to run instead — the
// cockpit's own command when the cockpit has one of that name that okstra
// does not (`okstra gate ask` → `cockpit gate ask …`), else where okstra
// was looked for.
func noRealOkstra(args []string, shim string) string {
	if len(args) == 0 {
		return fmt.Sprintf("okstra: no okstra found on PATH after the cockpit's shim (%s); install okstra or put it on PATH", shim)
	}
	what := args[0]
	if _, group := okstraOwned[what]; group && len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		what += " " + args[1] // e.g. "team status": the group is the cockpit's, the subcommand not
	}
	if isCockpitCommand(args[0]) {
		return fmt.Sprintf("okstra: %s: not an okstra command; it is the cockpit's: run `cockpit %s`", what, strings.Join(args, " "))
	}
	return fmt.Sprintf("okstra: %s: not a cockpit command, and no okstra found on PATH after the cockpit's shim (%s); install okstra or put it on PATH", what, shim)
}

// isCockpitCommand reports whether name is one of the cockpit's top-level
// commands (okstra has none of the cockpit's own: gate, open, attach, …).
func isCockpitCommand(name string) bool {
	if _, owned := okstraOwned[name]; owned {
		return false
	}
	for _, c := range topLevel {
		for _, n := range c.names {
			if n == name && n != "engine" {
				return true
			}
		}
	}
	return false
}
