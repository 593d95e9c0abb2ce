package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Package init budget of every cockpit process (docs/PERFORMANCE.md "A
// headless command's start"). Counted in allocations and bytes, which
// GODEBUG=inittrace=1 reports exactly and the machine's load does not move,
// not in time. The test binary that runs as `cockpit` here links the tests'
// packages too, so these bound the installed binary from above. Measured
// 2026-12-02, night: 1,404 allocations and 197 KB for the test binary (695 and
// 127 KB, 88 packages, for the release binary after DECISIONS 87 dropped
// glamour; 1,851 and 296 KB, 1,113 and 224 KB after DECISIONS 86; 2,658 and
// 368 KB, 1,910 and 282 KB that morning, the largest package
// regexp2/syntax's 29 KB;
// 2,485 and 477 KB before glamour's HTML tokenizer, its styles, chroma's
// palettes and goldmark's filters were made on first use; 1,237 and 160 KB
// before the result view's markdown renderer arrived; 75,216 and 6.0 MB
// with upstream's glamour, chroma and goldmark). The bytes matter more than
// the time: each fresh heap page an init touches is a minor fault, ≈40 µs
// on the development VM, and the faults are most of a command's start
// (BenchmarkLeadProgressAppend reports them as minflt).
const (
	initAllocsBudget     = 3000
	initBytesBudget      = 448 << 10
	initPkgAllocsBudget  = 400
	initPkgBytesBudget   = 48 << 10
	initTraceMinPackages = 50 // fewer lines means the trace was not read
	// ownPkgAllocsBudget bounds a cockpit package's own init (DECISIONS
	// 86: package state is built on first use). Measured 2026-12-02: the
	// most is workers/setup's 36 (its step tables); a regexp compiled at
	// init, a method table or a layout check by reflection takes more.
	ownPkgAllocsBudget = 40
	ownModule          = "github.com/okstra/cockpit/"
)

// notInRelease are the cockpit packages of the test binary the release
// binary does not have at init: the test helpers, and this package, whose
// init in the test binary holds the tests' own variables (the release
// binary's main allocates 6 objects).
var notInRelease = []string{
	ownModule + "cmd/cockpit",
	ownModule + "internal/fixture",
	ownModule + "internal/fakeprovider",
	ownModule + "internal/testenv",
	ownModule + "internal/mockllm",
	ownModule + "internal/filetest",
}

// notLinked are packages the cockpit must not link at all, and why.
var notLinked = []struct{ pkg, why string }{
	// A markdown renderer's packages run their inits in every command a
	// lead calls: glamour's with chroma, goldmark, regexp2 and x/text were
	// ≈3 ms of a 15 ms start even with their work made lazy (DECISIONS 87).
	{"charm.land/glamour/v2", markdownWhy},
	{"github.com/alecthomas/chroma/v2", markdownWhy},
	{"github.com/yuin/goldmark", markdownWhy},
	{"github.com/dlclark/regexp2", markdownWhy},
	// x/text was linked through jsonschema's error texts too: seven packages
	// of inits (third_party/jsonschema/README.md, its third patch).
	{"golang.org/x/text", "its seven packages' inits cost every command ≈0.8 ms; jsonschema formats with third_party/jsonschema/message"},
	// bluemonday (and the CSS parsers under it) compiled regexps and CSS
	// tables at init, ≈2 ms; x/net/html builds its 2,231-entry entity map
	// at init (113 KB, ≈30 minor faults).
	{"github.com/microcosm-cc/bluemonday", "its init costs every command ≈2 ms; " + markdownWhy},
	{"github.com/gorilla/css", "bluemonday's CSS parser; " + markdownWhy},
	{"github.com/aymerick/douceur", "bluemonday's CSS parser; " + markdownWhy},
	{"golang.org/x/net/html", "its init builds a 113 KB entity map in every command; " + markdownWhy},
}

const markdownWhy = "result files render with tui/markdown, whose init does nothing (docs/DECISIONS.md 87)"

// lightInits are packages linked for the screen whose upstream init did
// work every command paid for, patched to do it on first use, and the most
// they may allocate at init now.
var lightInits = []struct {
	pkg    string
	allocs int
	why    string
}{
	{"github.com/atotto/clipboard", 2, "upstream probes PATH for five clipboard tools at init (52 stats); third_party/clipboard probes on the first read or write"},
}

// firstInit must run before any init that allocates: it makes the heap's
// first 2 MB one huge page before the inits fault it in page by page, and
// grows the main goroutine's stack while it is shallow.
const firstInit = "github.com/okstra/cockpit/internal/startmem"

var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

type pkgInit struct {
	pkg           string
	bytes, allocs int
}

// TestStartInitBudget fails when a package whose init is heavy returns to
// the binary every command starts (a lead calls one per checkpoint): chroma
// loading its lexers and styles (34,000 + 26,000 allocations), goldmark or
// glamour compiling regexps, bluemonday — what made `lead-progress append`
// 15× an empty Go program (issue 20). Fix a failure by making the named
// package's work happen on first use (see third_party/*/README.md), not by
// raising the budget.
func TestStartInitBudget(t *testing.T) {
	cmd := exec.Command(cockpitBin, "lead-progress", "append")
	cmd.Dir = t.TempDir()
	env := cleanEnv()
	godebug := "inittrace=1"
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok && v != "" {
			godebug = v + ",inittrace=1"
			env = append(env[:i:i], env[i+1:]...)
			break
		}
	}
	cmd.Env = append(env, "GODEBUG="+godebug)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 2 {
		t.Fatalf("cockpit lead-progress append (no flags): want the usage error, exit 2; got %v\n%s", err, stderr.Bytes())
	}
	inits := parseInitTrace(t, stderr.Bytes())
	if len(inits) < initTraceMinPackages {
		t.Fatalf("GODEBUG=inittrace=1 printed %d init lines, want at least %d:\n%s", len(inits), initTraceMinPackages, stderr.Bytes())
	}
	for _, problem := range initBudgetProblems(inits) {
		t.Error(problem)
	}
	allocs, bytes := initTotals(inits)
	t.Logf("package init: %d packages, %d allocations, %d bytes", len(inits), allocs, bytes)
}

func initTotals(inits []pkgInit) (allocs, bytes int) {
	for _, p := range inits {
		allocs += p.allocs
		bytes += p.bytes
	}
	return allocs, bytes
}

// initBudgetProblems says how inits break the budget, one line a problem.
func initBudgetProblems(inits []pkgInit) []string {
	var out []string
	first := -1
	for i, p := range inits {
		if p.pkg == firstInit {
			first = i
			break
		}
	}
	switch {
	case first < 0:
		out = append(out, firstInit+" has no init line: cmd/cockpit must import it (main.go)")
	default:
		for _, p := range inits[:first] {
			if p.allocs > 0 {
				out = append(out, fmt.Sprintf("%s allocates at init before %s: it must import nothing, so that its init runs before the heap fills", p.pkg, firstInit))
			}
		}
	}
	for _, p := range inits {
		for _, light := range lightInits {
			if p.pkg == light.pkg && p.allocs > light.allocs {
				out = append(out, fmt.Sprintf("package %s allocates %d objects at init, want at most %d (%s)", p.pkg, p.allocs, light.allocs, light.why))
			}
		}
		for _, banned := range notLinked {
			if p.pkg == banned.pkg || strings.HasPrefix(p.pkg, banned.pkg+"/") && p.pkg != "golang.org/x/net/html/atom" {
				out = append(out, p.pkg+" is linked again ("+banned.why+")")
			}
		}
		if strings.HasPrefix(p.pkg, ownModule) && !slices.Contains(notInRelease, p.pkg) && p.allocs > ownPkgAllocsBudget {
			out = append(out, fmt.Sprintf("package %s allocates %d objects at init; a cockpit package may allocate at most %d: build its state on first use (internal/lazyre for a regexp, sync.OnceValue for a table; docs/DECISIONS.md 86)", p.pkg, p.allocs, ownPkgAllocsBudget))
		}
		if p.allocs > initPkgAllocsBudget || p.bytes > initPkgBytesBudget {
			out = append(out, fmt.Sprintf("package %s allocates %d objects, %d bytes at init; budget per package %d objects, %d bytes: make its work happen on first use", p.pkg, p.allocs, p.bytes, initPkgAllocsBudget, initPkgBytesBudget))
		}
	}
	if allocs, bytes := initTotals(inits); allocs > initAllocsBudget || bytes > initBytesBudget {
		out = append(out, fmt.Sprintf("package init totals %d allocations, %d bytes over %d packages; budget %d, %d. Heaviest:\n%s", allocs, bytes, len(inits), initAllocsBudget, initBytesBudget, heaviest(inits, 10)))
	}
	return out
}

// parseInitTrace reads the init lines of GODEBUG=inittrace=1 from a
// process's stderr.
func parseInitTrace(t *testing.T, stderr []byte) []pkgInit {
	t.Helper()
	var out []pkgInit
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "init ") {
			continue
		}
		m := initLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("unexpected inittrace line %q", line)
		}
		b, _ := strconv.Atoi(m[2])
		a, _ := strconv.Atoi(m[3])
		out = append(out, pkgInit{m[1], b, a})
	}
	return out
}

// heaviest lists the n packages that allocate most at init.
func heaviest(inits []pkgInit, n int) string {
	s := append([]pkgInit(nil), inits...)
	sort.Slice(s, func(i, j int) bool { return s[i].allocs > s[j].allocs })
	var b strings.Builder
	for _, p := range s[:min(n, len(s))] {
		fmt.Fprintf(&b, "  %6d allocs %8d bytes  %s\n", p.allocs, p.bytes, p.pkg)
	}
	return b.String()
}

// TestStartInitBudgetFailsOnHeavyInit holds the budget's check to the
// tree before issue 20's fix: the inittrace of that release binary
// (upstream glamour, chroma, goldmark and bluemonday) must break it, naming
// the packages that made the start slow.
func TestStartInitBudgetFailsOnHeavyInit(t *testing.T) {
	trace, err := os.ReadFile("testdata/inittrace-upstream-glamour.txt")
	if err != nil {
		t.Fatal(err)
	}
	problems := strings.Join(initBudgetProblems(parseInitTrace(t, trace)), "\n")
	for _, want := range []string{
		"package github.com/alecthomas/chroma/v2/lexers allocates",
		"package github.com/alecthomas/chroma/v2/styles allocates",
		"package github.com/yuin/goldmark/extension allocates",
		"github.com/microcosm-cc/bluemonday is linked again",
		"golang.org/x/net/html is linked again",
		"package golang.org/x/net/html allocates 16 objects, 113144 bytes",
		"package init totals 75216 allocations",
		"package github.com/atotto/clipboard allocates 216 objects at init, want at most 2",
		firstInit + " has no init line",
	} {
		if !strings.Contains(problems, want) {
			t.Errorf("the budget's problems with the old tree do not say %q:\n%s", want, problems)
		}
	}
}

// TestStartInitBudgetFailsOnHeavyOwnInit: a cockpit package that compiles
// its regexps at init again (workers and state/approval did, 315 and 195
// allocations, before internal/lazyre) breaks the budget, named.
func TestStartInitBudgetFailsOnHeavyOwnInit(t *testing.T) {
	trace := []byte("init " + firstInit + " @0.1 ms, 0.2 ms clock, 16 bytes, 1 allocs\n" +
		"init github.com/okstra/cockpit/workers @1 ms, 0.3 ms clock, 36048 bytes, 315 allocs\n" +
		"init github.com/okstra/cockpit/state/approval @2 ms, 0.1 ms clock, 18064 bytes, 195 allocs\n" +
		"init github.com/okstra/cockpit/workers/setup @3 ms, 0.08 ms clock, 5280 bytes, 36 allocs\n")
	problems := strings.Join(initBudgetProblems(parseInitTrace(t, trace)), "\n")
	for _, want := range []string{
		"package github.com/okstra/cockpit/workers allocates 315 objects at init; a cockpit package may allocate at most 40",
		"package github.com/okstra/cockpit/state/approval allocates 195 objects at init",
	} {
		if !strings.Contains(problems, want) {
			t.Errorf("the budget's problems do not say %q:\n%s", want, problems)
		}
	}
	if strings.Contains(problems, "workers/setup") {
		t.Errorf("workers/setup's 36 allocations are within the budget:\n%s", problems)
	}
}
