package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
)

var (
	releaseOnce          sync.Once
	releaseBin, emptyBin string
	releaseErr           error
)

// releaseBinaries builds, once per benchmark run, the cockpit as users get
// it (not this test binary, whose start carries the tests' packages) and
// an empty Go program to compare its start with. Only benchmarks build;
// the tests run the test binary (TestMain).
func releaseBinaries(b *testing.B) (cockpit, empty string) {
	b.Helper()
	releaseOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cockpit-bench-")
		if err != nil {
			releaseErr = err
			return
		}
		emptySrc := filepath.Join(dir, "empty")
		if releaseErr = os.MkdirAll(emptySrc, 0o755); releaseErr != nil {
			return
		}
		if releaseErr = os.WriteFile(filepath.Join(emptySrc, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); releaseErr != nil {
			return
		}
		if releaseErr = os.WriteFile(filepath.Join(emptySrc, "go.mod"), []byte("module empty\n\ngo 1.26\n"), 0o644); releaseErr != nil {
			return
		}
		releaseBin, emptyBin = filepath.Join(dir, "cockpit"), filepath.Join(dir, "empty-program")
		for _, c := range []*exec.Cmd{
			exec.Command("go", "build", "-o", releaseBin, "."),
			{Path: mustLook("go"), Args: []string{"go", "build", "-o", emptyBin, "."}, Dir: emptySrc},
		} {
			if out, err := c.CombinedOutput(); err != nil {
				releaseErr = &buildError{string(out), err}
				return
			}
		}
	})
	if releaseErr != nil {
		b.Fatal(releaseErr)
	}
	return releaseBin, emptyBin
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

func mustLook(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return name
	}
	return p
}

// BenchmarkLeadProgressAppend measures `cockpit lead-progress append` end to
// end, from process start to exit, on a run whose ledger already holds 200
// checkpoints (a long run), beside an empty Go program started the same way
// in the same loop (alternating, so both see the same machine). It reports
// the medians as ms/median and empty-ms/median, and their ratio as
// x-empty (the target: 2.5 at most; docs/PERFORMANCE.md); the mean is
// skewed by the noisy neighbours of a shared machine.
func BenchmarkLeadProgressAppend(b *testing.B) {
	bin, empty := releaseBinaries(b)
	root := fixture.Copy(b)
	ledger := filepath.Join(root, fixture.LeadEvents)
	line := `{"at":"2026-11-29T10:02:10Z","phase":"phase-4-dispatch","worker":"Codex worker","fields":[["model","gpt-6.1-sol"]],"source":"team dispatch","progressLine":"PROGRESS: phase-4-dispatch worker=Codex worker model=gpt-6.1-sol"}` + "\n"
	seed := []byte(strings.Repeat(line, 200))
	if err := os.WriteFile(ledger, seed, 0o644); err != nil {
		b.Fatal(err)
	}
	args := runArgs(root, "lead-progress", "append", "--phase", "phase-5-poll", "--field", "pending=2", "--field", "done=1")
	env := cleanEnv()
	times := make([]time.Duration, 0, b.N)
	base := make([]time.Duration, 0, b.N)
	timed := func(path string, args ...string) time.Duration {
		cmd := exec.Command(path, args...)
		cmd.Dir, cmd.Env = root, env
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		return time.Since(start)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i > 0 && i%200 == 0 {
			b.StopTimer()
			os.WriteFile(ledger, seed, 0o644)
			b.StartTimer()
		}
		times = append(times, timed(bin, args...))
		b.StopTimer()
		base = append(base, timed(empty))
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(times)
	slices.Sort(base)
	med, baseMed := times[len(times)/2], base[len(base)/2]
	b.ReportMetric(float64(med.Microseconds())/1000, "ms/median")
	b.ReportMetric(float64(times[len(times)*9/10].Microseconds())/1000, "ms/p90")
	b.ReportMetric(float64(baseMed.Microseconds())/1000, "empty-ms/median")
	b.ReportMetric(float64(med)/float64(baseMed), "x-empty")
}
