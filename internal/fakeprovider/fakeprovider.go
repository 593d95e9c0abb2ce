// Package fakeprovider is the fake worker CLI that stands in for the LLM
// CLIs in tests. A test binary plays it when run under one of Names (the
// names codex, claude, gemini, grok, kimi, and my-agent, a provider added
// through providers.json): internal/fixture installs the test binary under
// those names, and testdata/fakeprovider is the same program as a command of
// its own. Called by one of those names it checks that its argv has exactly the shape the cockpit's
// catalog gives the real CLI, failing loudly (exit 97) when it does not,
// reads the prompt from stdin (my-agent: from --prompt-file, grok: -p's value), and behaves as
// the prompt's `**Fake Behaviour:**` line says:
//
//	ok                   a little coloured output, writes the Result Path, exit 0 (the default)
//	ok-<dur>             the same, working for <dur> (a Go duration: 3s, 500ms)
//	until-<file>         the same, working until <file> (project-root-relative) exists: a test releases it
//	ok-leave-child       as ok, leaving a background job in its process group that ignores SIGHUP
//	ok-leave-orphan      as ok, leaving a grandchild in a session of its own (setsid)
//	hang-leave-orphan    as hang, after leaving such a grandchild
//	fail                 exit 1 without a result
//	fail-<code>          exit <code> without a result
//	noresult             exit 0 without writing the result
//	hang                 one line, then silence until killed
//	silent-then-ok-<dur> nothing at all for <dur>, then as ok
//	ignore-term          ignores SIGTERM and SIGHUP, prints until SIGKILL
//	hang-ignore-term     one line, then silence, ignoring SIGTERM and SIGHUP, until SIGKILL
//	flood                prints a few MB as fast as it can, then as ok
//	size-<dur>           prints its terminal size now and on every SIGWINCH for <dur>, then as ok
//	size-until-<file>    the same until <file> (project-root-relative) exists: a test releases it
//
// Every run prints a line with its cwd, terminal size, pid and the
// COCKPIT_IDLE_TIMEOUT_S it got, so tests can read them from the log, and
// leaves token evidence in its CLI's shape (usage.go): claude stream-json
// on stdout, a codex rollout under $CODEX_HOME, a kimi wire.jsonl under
// $KIMI_SHARE_DIR (only when those are set). With FAKEPROVIDER_SERVED_MODEL
// set, that evidence names that model as the one that served it (a test of
// the wrapper's served-model verification).
//
// It is the whole process while it runs: it reads stdin, writes stdout and
// stderr, handles signals and may exit from inside (a bad duration). It is
// for tests only and touches nothing but the result file its prompt names
// and the evidence files under the CLI homes a test sets.
package fakeprovider

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// codexModelArgs are the extra args the catalog gives each codex model.
var codexModelArgs = map[string][]string{
	"gpt-6.1-sol":       {"-c", "model_reasoning_effort=high"},
	"gpt-6-astra":       nil,
	"gpt-6-luna":        nil,
	"gpt-6-sol":         nil,
	"gpt-5.6-terra":     nil,
	"gpt-5.6-sol":       nil,
	"gpt-5.6-luna":      nil,
	"gpt-5.4-mini":      nil,
	"codex-auto-review": nil,
}

// Names are the names the fake answers to: the five built-in CLIs and
// my-agent.
var Names = []string{"codex", "claude", "gemini", "grok", "kimi", "my-agent"}

// Is reports whether argv0 (a path or a name) is one of Names: whether a
// process started as argv0 is to play the fake.
func Is(argv0 string) bool {
	return slices.Contains(Names, filepath.Base(argv0))
}

// Main runs the fake as the process started with argv (os.Args) and
// returns its exit code. The name it was called by, argv[0]'s base name,
// says which CLI it plays.
func Main(argv []string) int {
	name := filepath.Base(argv[0])
	args := argv[1:]
	model, promptFile, promptArg, err := checkArgv(name, args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "\x1b[1;31mfakeprovider %s: argv mismatch: %v\x1b[0m\n  got: %q\n", name, err, args)
		return 97
	}
	var prompt []byte
	switch {
	case promptArg != "":
		prompt = []byte(promptArg)
	case promptFile != "":
		prompt, err = os.ReadFile(promptFile)
	default:
		if isTerminal(os.Stdin) {
			fmt.Fprintf(os.Stderr, "fakeprovider %s: stdin is a terminal; the prompt must come on stdin\n", name)
			return 98
		}
		prompt, err = io.ReadAll(os.Stdin)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakeprovider %s: read prompt: %v\n", name, err)
		return 98
	}
	text := string(prompt)
	resultRel := header(text, "**Result Path:**")
	if resultRel == "" {
		fmt.Fprintf(os.Stderr, "fakeprovider %s: the prompt has no **Result Path:** line\n", name)
		return 98
	}
	behaviour := header(text, "**Fake Behaviour:**")
	if behaviour == "" {
		behaviour = "ok"
	}
	f := &fake{name: name, model: model, behaviour: behaviour, result: resolve(resultRel)}
	// A CLI that takes --session-id (claude, gemini) files its session
	// under it, as the real ones do.
	if i := slices.Index(args, "--session-id"); i >= 0 && i+1 < len(args) {
		f.session = args[i+1]
	}
	return f.run()
}

// checkArgv checks args against the shape the catalog gives name and
// returns the model and, for a file-prompt provider, the prompt path; for
// grok, which takes its prompt as -p's value, the prompt itself.
func checkArgv(name string, args []string) (model, promptFile, promptArg string, err error) {
	var want []string
	next := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	// A session id the wrapper passes: any UUID, checked here, compared as
	// given.
	session := func(i int) string {
		if id := next(i); uuidRE.MatchString(id) {
			return id
		}
		return "<a session UUID>"
	}
	switch name {
	case "codex":
		// exec [--add-dir <dir>]... --model M
		i := 1
		var dirs []string
		for next(i) == "--add-dir" && next(i+1) != "" {
			dirs = append(dirs, "--add-dir", next(i+1))
			i += 2
		}
		model = next(i + 1)
		extra, ok := codexModelArgs[model]
		if !ok {
			return "", "", "", fmt.Errorf("unknown codex model %q", model)
		}
		want = append(append([]string{"exec"}, dirs...), "--model", model)
		want = append(want, extra...)
		want = append(want, "--sandbox", "danger-full-access", "-c", "approval_policy=never", "-")
	case "claude":
		model = next(2)
		if model != "opus" && model != "sonnet" {
			return "", "", "", fmt.Errorf("unknown claude model %q", model)
		}
		want = []string{"-p", "--model", model, "--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose", "--session-id", session(9)}
	case "gemini":
		model = next(1)
		want = []string{"--model", "gemini-3.1-pro", "--yolo", "--skip-trust", "--session-id", session(5)}
	case "grok":
		model = next(1)
		promptArg = next(3)
		want = []string{"--model", "grok-code-fast-1", "-p", promptArg}
		if promptArg == "" {
			return "", "", "", fmt.Errorf("want -p <prompt>")
		}
	case "kimi":
		model = next(2)
		want = []string{"--print", "--model", "kimi-k2-thinking"}
	case "my-agent":
		model = next(1)
		promptFile = next(3)
		want = []string{"--model", model, "--prompt-file", promptFile}
		if model == "" || promptFile == "" {
			return "", "", "", fmt.Errorf("want --model M --prompt-file P")
		}
	default:
		return "", "", "", fmt.Errorf("installed under the unknown name %q", name)
	}
	if !slices.Equal(args, want) {
		return "", "", "", fmt.Errorf("want %q", want)
	}
	return model, promptFile, promptArg, nil
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// header returns the value of the prompt's `**Name:** value` line.
func header(prompt, h string) string {
	for _, line := range strings.Split(prompt, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "- ")
		if rest, ok := strings.CutPrefix(line, h); ok {
			return strings.TrimSpace(strings.Trim(strings.TrimSpace(rest), "`"))
		}
	}
	return ""
}

// resolve makes a Result Path absolute: relative to the project root the
// wrapper exports, else to the working directory.
func resolve(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	base := os.Getenv("COCKPIT_PROJECT_ROOT")
	if base == "" {
		base, _ = os.Getwd()
	}
	return filepath.Join(base, p)
}

type fake struct {
	name, model, behaviour, result string
	session                        string // --session-id, when given
	ev                             *evidence
}

func (f *fake) printf(format string, args ...any) { fmt.Printf(format, args...) }

func (f *fake) banner() {
	cwd, _ := os.Getwd()
	cols, rows := termSize(os.Stdout)
	f.printf("\x1b[1;38;5;208m▌fake %s\x1b[0m model=\x1b[1m%s\x1b[0m behaviour=%s\n", f.name, f.model, f.behaviour)
	f.printf("fake: cwd=%s tty=%dx%d pid=%d idle=%s\n", cwd, cols, rows, os.Getpid(), os.Getenv("COCKPIT_IDLE_TIMEOUT_S"))
	if f.ev == nil {
		f.ev = newEvidence(f)
		f.ev.header()
	}
	f.ev.spend()
}

func (f *fake) progress(d time.Duration) {
	steps := max(int(d/(100*time.Millisecond)), 1)
	for i := 1; i <= steps; i++ {
		f.printf("\r\x1b[2K\x1b[36m⠹\x1b[0m working \x1b[38;5;%dm%s\x1b[0m \x1b[38;2;120;200;80m%3d%%\x1b[0m", 27+i%6, strings.Repeat("█", i*20/steps), i*100/steps)
		time.Sleep(d / time.Duration(steps))
	}
	f.printf("\n\x1b[32m●\x1b[0m \x1b[1mRead\x1b[0m(\x1b[36msrc/main.go\x1b[0m)\n")
	if f.ev != nil {
		f.ev.spend()
	}
}

func (f *fake) run() int {
	b := f.behaviour
	if d, ok := strings.CutPrefix(b, "silent-then-ok-"); ok {
		time.Sleep(mustDur(d))
		f.banner()
		return f.ok(0)
	}
	f.banner()
	switch {
	case b == "ok":
		return f.ok(150 * time.Millisecond)
	case b == "ok-leave-child":
		// A background job in the CLI's process group that outlives it and
		// shrugs off the hang-up the kernel sends when the CLI, the session
		// leader, exits (the ignored SIGHUP is inherited across exec).
		signal.Ignore(syscall.SIGHUP)
		bg := exec.Command("sleep", "300")
		if err := bg.Start(); err != nil {
			fmt.Fprintf(os.Stderr, "fakeprovider: %v\r\n", err)
			return 96
		}
		f.printf("left pid %d behind\r\n", bg.Process.Pid)
		return f.ok(50 * time.Millisecond)
	case b == "ok-leave-orphan", b == "hang-leave-orphan":
		// A daemon of its own: a grandchild in a new session (setsid), out
		// of reach of the CLI's process group, that outlives the CLI.
		bg := exec.Command("sleep", "300")
		bg.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := bg.Start(); err != nil {
			fmt.Fprintf(os.Stderr, "fakeprovider: %v\r\n", err)
			return 96
		}
		f.printf("left orphan pid %d behind\r\n", bg.Process.Pid)
		if b == "hang-leave-orphan" {
			for {
				time.Sleep(time.Hour)
			}
		}
		return f.ok(50 * time.Millisecond)
	case strings.HasPrefix(b, "until-"):
		release := resolve(strings.TrimPrefix(b, "until-"))
		for {
			if _, err := os.Stat(release); err == nil {
				return f.ok(150 * time.Millisecond)
			}
			f.progress(100 * time.Millisecond)
		}
	case strings.HasPrefix(b, "ok-"):
		return f.ok(mustDur(strings.TrimPrefix(b, "ok-")))
	case b == "fail":
		return f.fail(1)
	case strings.HasPrefix(b, "fail-"):
		code, err := strconv.Atoi(strings.TrimPrefix(b, "fail-"))
		if err != nil {
			fmt.Fprintf(os.Stderr, "fakeprovider: bad behaviour %q\n", b)
			return 96
		}
		return f.fail(code)
	case b == "noresult":
		f.progress(100 * time.Millisecond)
		f.printf("\x1b[33mdone, but I forgot the result\x1b[0m\n")
		return 0
	case b == "hang":
		f.printf("\x1b[2mthinking…\x1b[0m\n")
		for {
			time.Sleep(time.Hour)
		}
	case b == "hang-ignore-term":
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
		f.printf("\x1b[2mthinking, and not to be disturbed…\x1b[0m\n")
		for {
			time.Sleep(time.Hour)
		}
	case b == "ignore-term":
		sigs := make(chan os.Signal, 4)
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
		tick := time.NewTicker(200 * time.Millisecond)
		for {
			select {
			case s := <-sigs:
				f.printf("\x1b[1;33mignoring %v\x1b[0m\n", s)
			case <-tick.C:
				f.printf("\x1b[35m…\x1b[0m still here\n")
			}
		}
	case b == "flood":
		w := bufio.NewWriterSize(os.Stdout, 64<<10)
		for i := range 40000 {
			fmt.Fprintf(w, "\x1b[38;5;%dmline %06d\x1b[0m the quick brown fox jumps over the lazy dog %s\n", 16+i%216, i, strings.Repeat("=", 20))
		}
		_ = w.Flush()
		return f.ok(0)
	case strings.HasPrefix(b, "size-"):
		winch := make(chan os.Signal, 4)
		signal.Notify(winch, syscall.SIGWINCH)
		var end, tick <-chan time.Time
		release, until := strings.CutPrefix(strings.TrimPrefix(b, "size-"), "until-")
		if until {
			release = resolve(release)
			t := time.NewTicker(50 * time.Millisecond)
			defer t.Stop()
			tick = t.C
		} else {
			end = time.After(mustDur(release))
		}
		for {
			c, r := termSize(os.Stdout)
			f.printf("size=%dx%d\n", c, r)
		wait:
			for {
				select {
				case <-winch:
					break wait
				case <-end:
					return f.ok(0)
				case <-tick:
					if _, err := os.Stat(release); err == nil {
						return f.ok(0)
					}
				}
			}
		}
	}
	fmt.Fprintf(os.Stderr, "fakeprovider: unknown behaviour %q\n", b)
	return 96
}

func (f *fake) ok(d time.Duration) int {
	if d > 0 {
		f.progress(d)
	}
	cwd, _ := os.Getwd()
	if err := os.MkdirAll(filepath.Dir(f.result), 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "fakeprovider: %v\n", err)
		return 99
	}
	body := fmt.Sprintf("# Fake result\n\nprovider: %s\nmodel: %s\ncwd: %s\n", f.name, f.model, cwd)
	if err := os.WriteFile(f.result, []byte(body), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "fakeprovider: %v\n", err)
		return 99
	}
	f.printf("\x1b[1;32m✓\x1b[0m wrote %s \x1b[38;2;255;175;95m완료 — 完了\x1b[0m\n", f.result)
	if f.ev != nil {
		f.ev.done()
	}
	return 0
}

func (f *fake) fail(code int) int {
	f.progress(100 * time.Millisecond)
	f.printf("\x1b[1;31m✗ error:\x1b[0m the model refused (fake exit %d)\n", code)
	return code
}

func mustDur(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakeprovider: bad duration %q\n", s)
		os.Exit(96)
	}
	return d
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

func termSize(f *os.File) (int, int) {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0
	}
	return int(ws.Col), int(ws.Row)
}
