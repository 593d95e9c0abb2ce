package workers

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// simSpec is what a sim model name asks for.
type simSpec struct {
	kind string        // ok, fail, noresult, hang, slow, ignore-term, flood
	dur  time.Duration // how long the work lasts (unused by hang, ignore-term)
}

// simKinds lists the sim behaviours, longest name first so prefixes parse
// unambiguously, with their default durations (0: no duration suffix).
var simKinds = []struct {
	kind   string
	dflt   time.Duration
	timed  bool
	result bool // writes the Result Path
}{
	{"ignore-term", 0, false, false},
	{"noresult", time.Second, true, false},
	{"flood", 3 * time.Second, true, true},
	{"slow", 20 * time.Second, true, true},
	{"hang", 0, false, false},
	{"fail", time.Second, true, false},
	{"ok", 2 * time.Second, true, true},
}

// simCatalogModels are the sim rows the catalog lists; the suffixed names
// (sim-ok-3s, ...) are accepted too.
var simCatalogModels = []struct{ id, display string }{
	{"sim-ok", "Sim: completes in 2s"},
	{"sim-ok-10s", "Sim: completes in 10s"},
	{"sim-fail", "Sim: fails (exit 1)"},
	{"sim-noresult", "Sim: exits 0, writes no result"},
	{"sim-hang", "Sim: goes silent (idle timeout)"},
	{"sim-slow-30s", "Sim: slow, sparse output for 30s"},
	{"sim-ignore-term", "Sim: ignores SIGTERM and SIGHUP"},
	{"sim-flood", "Sim: floods output for 3s"},
}

const simUsage = "usage: cockpit worker sim --model <sim-model> (sim-ok, sim-ok-<dur>, sim-fail, sim-fail-<dur>, sim-noresult, sim-hang, sim-slow-<dur>, sim-ignore-term, sim-flood)"

// parseSimModel reads a sim model name: sim-<kind> or, for timed kinds,
// sim-<kind>-<Go duration> such as sim-ok-500ms.
func parseSimModel(name string) (simSpec, error) {
	rest, ok := strings.CutPrefix(name, "sim-")
	if ok {
		for _, k := range simKinds {
			if rest == k.kind {
				return simSpec{kind: k.kind, dur: k.dflt}, nil
			}
			if d, ok := strings.CutPrefix(rest, k.kind+"-"); ok && k.timed {
				dur, err := time.ParseDuration(d)
				if err != nil || dur < 0 {
					return simSpec{}, fmt.Errorf("unknown sim model %q: %q is not a duration such as 3s or 500ms", name, d)
				}
				return simSpec{kind: k.kind, dur: dur}, nil
			}
		}
	}
	return simSpec{}, fmt.Errorf("unknown sim model %q (known: sim-ok, sim-ok-<dur>, sim-fail, sim-fail-<dur>, sim-noresult, sim-hang, sim-slow-<dur>, sim-ignore-term, sim-flood)", name)
}

func (s simSpec) writesResult() bool {
	for _, k := range simKinds {
		if k.kind == s.kind {
			return k.result
		}
	}
	return false
}

// RunSim is `cockpit worker sim --model <sim-model>`: a stand-in worker CLI
// that needs no LLM. It reads the prompt on stdin, prints lifelike coloured
// progress (spinners and bars redrawn with \r, tool-call lines, 16-colour,
// 256-colour and truecolor escapes, wide CJK text) and, depending on the
// model, writes the prompt's Result Path and exits 0, fails, hangs, ignores
// SIGTERM, or floods its output. It returns the process exit status.
func RunSim(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	model := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--model" && i+1 < len(args):
			model = args[i+1]
			i++
		case strings.HasPrefix(a, "--model="):
			model = strings.TrimPrefix(a, "--model=")
		default:
			fmt.Fprintf(stderr, "cockpit worker sim: unexpected argument %q; %s\n", a, simUsage)
			return exitUsage
		}
	}
	if model == "" {
		fmt.Fprintf(stderr, "cockpit worker sim: --model is required; %s\n", simUsage)
		return exitUsage
	}
	spec, err := parseSimModel(model)
	if err != nil {
		fmt.Fprintf(stderr, "cockpit worker sim: %v\n", err)
		return exitUsage
	}
	prompt, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "cockpit worker sim: read prompt from stdin: %v\n", err)
		return 66
	}
	result := ""
	if spec.writesResult() {
		rp := PromptResultPath(string(prompt))
		if rp == "" {
			fmt.Fprintf(stderr, "cockpit worker sim: the prompt on stdin has no %s line\n", resultPathHeader)
			return 65
		}
		if result, err = resolveResultPath(rp); err != nil {
			fmt.Fprintf(stderr, "cockpit worker sim: resolve result path %s: %v\n", rp, err)
			return 65
		}
	}
	s := &sim{out: stdout, model: model, spec: spec, prompt: string(prompt), usage: newSimTokens(model)}
	return s.run(result, stderr)
}

// sim draws one simulated worker session.
type sim struct {
	out    io.Writer
	model  string
	spec   simSpec
	prompt string
	frame  int
	usage  *simTokens
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

var simTools = []struct{ name, arg, note string }{
	{"Read", "docs/brief.md", "128 lines"},
	{"Grep", `"export.*csv" src/`, "7 matches in 3 files"},
	{"Read", "src/export/csv.go", "342 lines"},
	{"Bash", "go test ./export/...", "ok  export  0.412s"},
	{"Write", "worker result", "draft saved"},
}

const simTick = 100 * time.Millisecond

func (s *sim) printf(format string, args ...any) { fmt.Fprintf(s.out, format, args...) }

func (s *sim) run(result string, stderr io.Writer) int {
	duty, _ := PromptHeader(s.prompt, dutyHeader)
	inv, _ := PromptHeader(s.prompt, invocationHeader)
	if duty == "" {
		duty = "(none)"
	}
	// Header: bold, 256-colour accent, dim details.
	s.printf("\x1b[1;38;5;39m◆ cockpit sim\x1b[0m \x1b[2mmodel\x1b[0m \x1b[1m%s\x1b[0m \x1b[2mduty\x1b[0m %s \x1b[2minvocation\x1b[0m %s\n", s.model, duty, inv)
	// Wide CJK text, once, in truecolor.
	s.printf("\x1b[38;2;255;175;95m작업을 시작합니다 — 分析を開始します\x1b[0m \x1b[92m✓\x1b[0m\n")
	s.usage.spend()

	switch s.spec.kind {
	case "hang":
		s.printf("\x1b[33m⠿\x1b[0m waiting for the model to answer…\n")
		for {
			time.Sleep(time.Hour)
		}
	case "ignore-term":
		return s.ignoreTerm()
	case "flood":
		s.flood(s.spec.dur)
	case "slow":
		s.slow(s.spec.dur)
	default:
		s.work(s.spec.dur)
	}

	switch s.spec.kind {
	case "fail":
		s.printf("\r\x1b[2K\x1b[1;31m✗ error:\x1b[0m simulated failure (model %s)\n", s.model)
		fmt.Fprintf(stderr, "cockpit worker sim: simulated failure\n")
		return 1
	case "noresult":
		s.printf("\r\x1b[2K\x1b[1;33m✓ finished\x1b[0m \x1b[2m(no result written)\x1b[0m\n")
		return 0
	}
	if err := s.writeResult(result); err != nil {
		fmt.Fprintf(stderr, "cockpit worker sim: write result: %v\n", err)
		return 1
	}
	s.printf("\r\x1b[2K\x1b[1;32m✓ done\x1b[0m wrote \x1b[4m%s\x1b[0m\n", result)
	return 0
}

// work animates a spinner and a progress bar for d, printing a tool-call line
// at fixed fractions of the way.
func (s *sim) work(d time.Duration) {
	start := time.Now()
	next := 0
	for {
		el := time.Since(start)
		frac := 1.0
		if d > 0 {
			frac = min(float64(el)/float64(d), 1)
		}
		for next < len(simTools) && frac >= float64(next+1)/float64(len(simTools)+1) {
			t := simTools[next]
			s.printf("\r\x1b[2K\x1b[32m●\x1b[0m \x1b[1m%s\x1b[0m(\x1b[36m%s\x1b[0m)\n  \x1b[2m⎿  %s\x1b[0m\n", t.name, t.arg, t.note)
			s.usage.spend()
			next++
		}
		s.bar(frac, "thinking")
		if el >= d {
			return
		}
		time.Sleep(min(simTick, d-el))
	}
}

// bar redraws the status line in place: spinner, label, a 256-colour
// gradient bar and the percentage.
//
// The line fits the terminal it is drawn on (the pane's width, read at
// every redraw): a line wider than its pane wraps, and \r\x1b[2K clears only
// its last row, so every redraw stacked a row. The bar narrows (24 cells at
// most, 4 at least), then the label goes, then the percentage.
func (s *sim) bar(frac float64, label string) {
	width, pct := 24, true
	if cols := termCols(s.out); cols > 0 {
		// spinner, space, label, space, bar, space, " 42%"
		avail := cols - 1 - 2 - 5 // keep the last column free; spinner+space; " 100%"
		switch {
		case avail-len(label)-1 >= 4:
			width = min(width, avail-len(label)-1)
		case avail >= 4:
			label, width = "", min(width, avail)
		default:
			label, width, pct = "", max(cols-3, 0), false
		}
	}
	filled := int(frac * float64(width))
	var b strings.Builder
	for i := range filled {
		if i%4 == 0 {
			fmt.Fprintf(&b, "\x1b[38;5;%dm", 27+i/4)
		}
		b.WriteString("█")
	}
	b.WriteString("\x1b[38;5;238m" + strings.Repeat("░", width-filled))
	if label != "" {
		label += " "
	}
	p := ""
	if pct {
		p = fmt.Sprintf(" \x1b[1m%3d%%\x1b[0m", int(frac*100))
	}
	s.printf("\r\x1b[2K\x1b[35m%s\x1b[0m %s%s\x1b[0m%s", spinnerFrames[s.frame%len(spinnerFrames)], label, b.String(), p)
	s.frame++
}

// slow works for d with long quiet gaps: a heartbeat line every tenth of d.
func (s *sim) slow(d time.Duration) {
	step := d / 10
	for i := 1; i <= 10; i++ {
		time.Sleep(step)
		s.printf("\x1b[2m[%s]\x1b[0m \x1b[34m…\x1b[0m still working (%d/10)\n", time.Now().Format("15:04:05"), i)
		if i%2 == 0 {
			s.usage.spend()
		}
	}
}

// flood prints coloured log lines as fast as the terminal takes them for d.
func (s *sim) flood(d time.Duration) {
	w := bufio.NewWriterSize(s.out, 32<<10)
	end := time.Now().Add(d)
	n := 0
	for time.Now().Before(end) {
		for range 64 {
			fmt.Fprintf(w, "\x1b[38;5;%dm%08d\x1b[0m \x1b[38;2;%d;%d;200mflood\x1b[0m line of simulated output \x1b[31mERR?\x1b[0m \x1b[92mok\x1b[0m\n", 16+n%216, n, n%256, (n*7)%256)
			n++
		}
		_ = w.Flush()
	}
	_ = w.Flush()
	s.usage.spend()
}

// ignoreTerm keeps printing and shrugs off SIGTERM and SIGHUP; only SIGKILL
// (or SIGINT) ends it.
func (s *sim) ignoreTerm() int {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case sig := <-sigs:
			s.printf("\r\x1b[2K\x1b[1;33m⚠ ignoring %v\x1b[0m\n", sig)
		case <-tick.C:
			s.bar(float64(n%100)/100, "stubborn")
		}
	}
}

func (s *sim) writeResult(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create result directory: %w", err)
	}
	inv, _ := PromptHeader(s.prompt, invocationHeader)
	body := fmt.Sprintf("# Simulated worker result\n\n- Model: %s\n- Invocation: %s\n- Written: %s\n\nThe sim provider found nothing to report.\n", s.model, inv, time.Now().UTC().Format(time.RFC3339))
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// termCols is the width of the terminal w is, 0 when it is none.
func termCols(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
