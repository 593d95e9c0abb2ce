package interactive

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/mockllm"
	"github.com/okstra/cockpit/internal/realcli"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/panes"
)

var update = flag.Bool("update", false, "rewrite the golden screens under testdata/")

// A cli is one real CLI as a person starts it, and what its screen says
// once it is ready for a prompt.
type cli struct {
	name  string
	argv  []string
	ready []string
}

var clis = []cli{
	{"claude", []string{"claude"}, []string{"auto mode on"}},
	{"codex", []string{"codex"}, []string{"Ask Codex to do anything"}},
	// The model named: with "auto" gemini first asks a router model
	// whose answer the mock does not give. Its input box shows before
	// its configuration is loaded; a prompt sent then is queued behind
	// an "Initializing..." line. Its header (the tips) shows once it is
	// loaded.
	{"gemini", []string{"gemini", "-m", "gemini-2.5-flash"}, []string{"Type your message", "Tips for getting started"}},
	{"grok", []string{"grok"}, []string{"Ask me anything"}},
}

// The sizes: the lead pane's inner size at first and after the resize.
const (
	cols1, rows1 = 120, 32
	cols2, rows2 = 100, 26
	// chrome is the rows the cockpit's screen takes around a lone lead
	// pane (header, pane title, timeline, status line); the pane's real
	// rows are read off the screen.
	chrome = 10
	// prompt is what the test types; the mock answers mockllm.FinalText.
	prompt = "say hello"
)

// TestInteractiveScreens runs each real CLI as the cockpit's lead and in a
// plain tmux pane of the lead pane's size, and compares what a person
// sees: the first screen, the answer to a typed prompt, and the screen
// after both terminals shrink.
func TestInteractiveScreens(t *testing.T) {
	bin := realcli.Require(t)
	for _, c := range clis {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runCLI(t, bin, c)
		})
	}
}

func runCLI(t *testing.T, bin string, c cli) {
	root, homes, reg := setup(t, bin)
	// After setup: the tmux server (and the plain pane's program) ends
	// first when the test does, then the engines, then what the CLIs
	// left running in their homes.
	tm := newTmux(t)
	// The cockpit, in a terminal of the pane's size and its chrome. Its
	// environment is a person's: the cockpit cleans it for the pane.
	ckEnv := append(userEnv(homes[0].Env(nil)), "TERM=xterm-256color", "COLORTERM=truecolor", "COCKPIT_REGISTRY="+reg)
	tm.start("ck", root, ckEnv, cols1, rows1+chrome,
		append([]string{cockpitBin, "open", "--project-root", root, "--run-manifest", fixture.RunManifest, "--lead", "--"}, c.argv...)...)
	top, rows, status := leadPane(t, tm, "ck", cols1, "")
	// The same program in a plain pane of the lead pane's size, with the
	// environment a pane gives it.
	tm.start("tm", root, paneEnv(userEnv(homes[1].Env(nil))), cols1, rows, c.argv...)

	norm := normalizer(root, homes)
	check := func(step string, rows int, want ...string) {
		t.Helper()
		ck, plain := waitSame(t, tm, top, rows, want...)
		golden(t, c.name+"-"+step, norm(plain))
		_ = ck
	}
	check("first", rows, c.ready...)

	view := map[string]func() []string{
		"ck": func() []string { return lead(tm, top, rows) },
		"tm": func() []string { return trimBlank(tm.screen("tm")) },
	}
	for _, s := range []string{"ck", "tm"} {
		typePrompt(t, tm, s, view[s])
	}
	// gemini takes an Enter within 30 ms of a key for a newline, and grok
	// one right after a burst of keys for part of it.
	time.Sleep(time.Second)
	for _, s := range []string{"ck", "tm"} {
		tm.key(s, "Enter")
	}
	check("answer", rows, mockllm.FinalText)

	tm.resize("ck", cols2, rows2+chrome)
	_, rows, _ = leadPane(t, tm, "ck", cols2, status)
	tm.resize("tm", cols2, rows)
	check("resized", rows, mockllm.FinalText)
}

// setup starts the mock LLM API and makes a copy of the fixture project
// (root), two homes pointing at the mock that trust root (one for the
// cockpit's lead, one for the plain pane) and a private engine registry.
func setup(t testing.TB, bin string) (root string, homes [2]*realcli.Home, reg string) {
	t.Helper()
	mock, err := mockllm.Start(mockllm.Options{Lifetime: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mock.Close)
	// Short directories whatever $TMPDIR is: the CLIs shorten a long
	// working directory on screen (so <root> would not be found), and
	// their daemons put sockets in their homes.
	root = fixture.CopyInto(t, testenv.ShortDir(t))
	for i := range homes {
		h, err := realcli.NewHome(testenv.ShortDir(t), mock.URL(), bin)
		if err != nil {
			t.Fatal(err)
		}
		trustProject(t, h, root)
		t.Cleanup(func() { killUnder(t, h.Dir) })
		homes[i] = h
	}
	return root, homes, engineRegistry(t)
}

// killUnder kills every process whose program lives under dir: codex
// 0.171's TUI starts an app-server daemon from its home
// (.codex/packages/app-server-daemon), in a session of its own, that
// outlives the TUI.
func killUnder(t testing.TB, dir string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		var left []int
		des, _ := os.ReadDir("/proc")
		for _, de := range des {
			pid, err := strconv.Atoi(de.Name())
			if err != nil {
				continue
			}
			cmdline, err := os.ReadFile(filepath.Join("/proc", de.Name(), "cmdline"))
			if err != nil {
				continue
			}
			if arg0, _, _ := strings.Cut(string(cmdline), "\x00"); strings.HasPrefix(arg0, dir+string(filepath.Separator)) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes %v under %s outlived SIGKILL", left, dir)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// trustProject records root as trusted in every CLI's settings in h, so
// none opens its folder-trust dialog.
func trustProject(t testing.TB, h *realcli.Home, root string) {
	t.Helper()
	if err := h.TrustClaudeProject(root); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(map[string]string{root: "TRUST_FOLDER"})
	if err := os.WriteFile(filepath.Join(h.GeminiDir(), "trustedFolders.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(h.CodexHome(), "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "check_for_update_on_startup = false\n\n[projects.%q]\ntrust_level = \"trusted\"\n", root); err != nil {
		t.Fatal(err)
	}
}

// userEnv is env without the variables that tell a program it runs in
// CI: .ci/run sets CI=true for the tests' own decisions, and gemini-cli
// and Ink (grok) then refuse to be interactive ("No input provided via
// stdin"), in the cockpit's pane and tmux's alike. A person's terminal
// has none of them (the names are is-in-ci's, which both use).
func userEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == "CI" || k == "CONTINUOUS_INTEGRATION" || k == "BUILD_NUMBER" || k == "RUN_ID" || strings.HasPrefix(k, "CI_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// paneEnv is env as a cockpit pane gives it to its program
// (panes.OuterTermVar, docs/PANES.md "Environment").
func paneEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); !panes.OuterTermVar(k) {
			out = append(out, kv)
		}
	}
	return append(out, "TERM="+panes.DefaultTerm, "COLORTERM="+panes.ColorTerm, "TERM_PROGRAM="+panes.TermProgram)
}

// leadPane reads where the lead pane is on the cockpit's screen
// (findLead), waiting up to a minute for it.
func leadPane(t *testing.T, tm *tmuxServer, name string, cols int, prev string) (top, rows int, status string) {
	t.Helper()
	var scr []string
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		scr = tm.screen(name)
		if top, rows, status, ok := findLead(scr, cols, prev); ok {
			return top, rows, status
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no lead pane on the cockpit's screen %d wide:\n%s", cols, strings.Join(scr, "\n"))
	return 0, 0, ""
}

// findLead reads where the lead pane is on the cockpit's screen scr (one
// string a row, trailing blanks trimmed): the rows between its title line
// and the timeline's, once the screen is drawn for a terminal cols wide
// (the timeline's rule spans it). prev is the status line (the screen's
// last row) before the terminal shrank, "" if it did not; findLead
// returns the status line it read.
func findLead(scr []string, cols int, prev string) (top, rows int, status string, ok bool) {
	title, timeline := -1, -1
	for i, l := range scr {
		switch {
		case title < 0 && strings.HasPrefix(l, "━"):
			title = i
		case title >= 0 && strings.HasPrefix(l, "─ timeline") && utf8.RuneCountInString(l) == cols:
			timeline = i
		}
	}
	// A terminal that shrank shows the old screen cropped until the
	// cockpit redraws: the status line (its key hint flush right) is
	// then the old one cut at the new width.
	if len(scr) > 0 {
		status = scr[len(scr)-1]
	}
	r := []rune(prev)
	cropped := strings.TrimRight(string(r[:min(len(r), cols)]), " ")
	redrawn := utf8.RuneCountInString(status) > cols-4 && (prev == "" || status != cropped)
	if title >= 0 && timeline > title+1 && redrawn {
		return title + 1, timeline - title - 1, status, true
	}
	return 0, 0, "", false
}

// typePrompt types prompt into the terminal name until view (its
// program's screen) shows it. codex 0.171 drops the keys typed while it
// starts, for a minute and more at load 50 — in the cockpit's lead pane one
// run, in the plain pane the next (so the CLI, not the terminal; its TUI
// waits for the app-server daemon it starts from a copy in its home): a
// prompt not shown within 30 s is erased and typed again, four times at
// most.
func typePrompt(t *testing.T, tm *tmuxServer, name string, view func() []string) {
	t.Helper()
	for try := 0; try < 4; try++ {
		if try > 0 {
			tm.run("send-keys", "-t", name, "-N", strconv.Itoa(2*len(prompt)), "BSpace")
		}
		tm.typeText(name, prompt)
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if strings.Contains(strings.Join(view(), "\n"), prompt) {
				return
			}
		}
	}
	t.Fatalf("typed %q four times into %s; it shows:\n%s", prompt, name, strings.Join(view(), "\n"))
}

// settled is how long both panes must show the same screen, unchanged,
// before it counts: the CLIs draw their first screen in steps.
const settled = 1500 * time.Millisecond

// waitSame waits until both panes show everything in want and the same
// screen, unchanged for settled, and returns the two.
func waitSame(t *testing.T, tm *tmuxServer, top, rows int, want ...string) (ck, plain []string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var last string
	var since time.Time
	for {
		ck, plain = mask(lead(tm, top, rows)), mask(trimBlank(tm.screen("tm")))
		a, b := strings.Join(ck, "\n"), strings.Join(plain, "\n")
		shows := true
		for _, w := range want {
			shows = shows && strings.Contains(a, w)
		}
		if a == b && shows {
			if a != last {
				last, since = a, time.Now()
			} else if time.Since(since) >= settled {
				return ck, plain
			}
		} else {
			last = ""
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 90s for the same screen showing %q\ncockpit's lead pane:\n%s\nplain tmux pane:\n%s\n%s", want, a, b, lineDiff(ck, plain, "cockpit", "tmux"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// lead is the lead pane's rows of the cockpit's screen, trailing blank
// rows dropped (capture-pane drops them for the plain pane too).
func lead(tm *tmuxServer, top, rows int) []string {
	scr := tm.screen("ck")
	if top+rows > len(scr) {
		return scr
	}
	return trimBlank(scr[top : top+rows])
}

func trimBlank(ls []string) []string {
	for len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// lineDiff lists the rows where a (labelled la) and b (lb) differ.
func lineDiff(a, b []string, la, lb string) string {
	var d []string
	for i := 0; i < max(len(a), len(b)); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			d = append(d, fmt.Sprintf("row %d:\n  %-7s %q\n  %-7s %q", i, la, x, lb, y))
		}
	}
	return strings.Join(d, "\n")
}

// masks are what a CLI draws at random or from the clock, replaced
// before any comparison: claude's status verb ("✻ Baked for 4s · done
// 10:01 PM", the verb picked at random), durations and the time of day.
var masks = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`✻ \S+ for`), "✻ <verb> for"},
	{regexp.MustCompile(`\bfor <?\d[\dhms ]*\b`), "for <n>"}, // how long it worked, as each run took
	{regexp.MustCompile(`\b\d{1,2}:\d{2}( [AP]M)?\b`), "<time>"},
}

func mask(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		for _, m := range masks {
			l = m.re.ReplaceAllString(l, m.with)
		}
		out[i] = l
	}
	return out
}

// transient are lines a CLI shows or not depending on how fast it started
// (claude adds its effort line once it loads, or not within a minute):
// goldens show them as blank rows, which they are until then. The
// differential compares them all. hints are key hints claude adds to a
// line once its agents load; goldens leave them out.
var (
	transient = regexp.MustCompile(`^◐ \w+ · /effort$`)
	hints     = regexp.MustCompile(` · ← for agents| \(shift\+tab to cycle\)`)
)

// normalizer makes a screen independent of the machine: the temp dirs
// become <root> and <home>, and runs of blanks one blank (the layout
// around a path depends on its length).
func normalizer(root string, homes [2]*realcli.Home) func([]string) string {
	pairs := []string{root, "<root>"}
	for _, h := range homes {
		pairs = append(pairs, h.Dir, "<home>")
	}
	r := strings.NewReplacer(pairs...)
	blanks := regexp.MustCompile(`  +`)
	return func(ls []string) string {
		var out []string
		for _, l := range trimBlank(ls) {
			l = strings.TrimSpace(hints.ReplaceAllString(blanks.ReplaceAllString(r.Replace(l), " "), ""))
			out = append(out, transient.ReplaceAllString(l, ""))
		}
		return strings.Join(out, "\n") + "\n"
	}
}

var goldenName = regexp.MustCompile(`^[a-z0-9-]+$`)

// golden compares got with testdata/name.golden (-update writes it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	if !goldenName.MatchString(name) {
		t.Fatalf("bad golden name %q", name)
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from %s (-update rewrites it):\n%s", name, path, lineDiff(strings.Split(got, "\n"), strings.Split(string(want), "\n"), "screen", "golden"))
	}
}

// engineRegistry is the test's own engine registry; every engine still
// registered when the test ends gets SIGTERM (it closes its panes) and is
// waited for.
func engineRegistry(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ckir")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		des, _ := os.ReadDir(dir)
		for _, de := range des {
			pid, err := strconv.Atoi(strings.TrimSuffix(de.Name(), ".json"))
			if err != nil || !strings.HasSuffix(de.Name(), ".json") {
				continue
			}
			_ = syscall.Kill(pid, syscall.SIGTERM)
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if syscall.Kill(pid, 0) != nil {
					break
				}
			}
		}
		_ = os.RemoveAll(dir)
	})
	return dir
}
