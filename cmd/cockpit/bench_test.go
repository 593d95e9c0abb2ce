package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
)

// benchBuilds are the binaries the start benchmark compares: the cockpit
// built as `go install` builds it (cgo on: the binary links libc
// dynamically, because net and os/user have cgo variants), the cockpit
// built with CGO_ENABLED=0 (static, as docs/PERFORMANCE.md recommends), and
// an empty Go program.
type benchBuilds struct{ cgo, static, empty string }

// releaseBinaries builds them for one run of the benchmark (a -count
// repetition builds again, mostly from the build cache) in a directory
// removed when it ends. Only benchmarks build; the tests run the test
// binary (TestMain), whose start carries the tests' packages.
func releaseBinaries(b *testing.B) benchBuilds {
	b.Helper()
	dir := b.TempDir()
	emptySrc := filepath.Join(dir, "empty")
	if err := os.MkdirAll(emptySrc, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(emptySrc, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(emptySrc, "go.mod"), []byte("module empty\n\ngo 1.26\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	builds := benchBuilds{cgo: filepath.Join(dir, "cockpit"), static: filepath.Join(dir, "cockpit-static"), empty: filepath.Join(dir, "empty-program")}
	for _, c := range []struct {
		dir, out string
		env      []string
	}{
		{".", builds.cgo, nil},
		{".", builds.static, []string{"CGO_ENABLED=0"}},
		{emptySrc, builds.empty, nil},
	} {
		cmd := exec.Command(mustLook("go"), "build", "-o", c.out, ".")
		cmd.Dir, cmd.Env = c.dir, append(os.Environ(), c.env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatal(&buildError{string(out), err})
		}
	}
	return builds
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
// the medians as ms/median and empty-ms/median and their ratio as x-empty
// (docs/PERFORMANCE.md); the mean is skewed by the noisy neighbours of a
// shared machine. The start sub-benchmarks time the same call refused for
// want of a run manifest: process start, flag parsing and exit, without the
// ledger's locked atomic rewrite. Beside the wall times, what the load
// moves less: the median CPU time (user + system) of the command and of the
// empty program and their ratio (cpu-ms/median, empty-cpu-ms/median,
// x-empty-cpu), and what it does not move: the median minor page faults
// (minflt, empty-minflt) and the package init of the binary as
// GODEBUG=inittrace=1 counts it (init-allocs, init-KB; TestStartInitBudget
// holds their budget).
func BenchmarkLeadProgressAppend(b *testing.B) {
	bins := releaseBinaries(b)
	appendArgs := []string{"lead-progress", "append", "--phase", "phase-5-poll", "--field", "pending=2", "--field", "done=1"}
	for _, c := range []struct {
		name, bin string
		start     bool
	}{
		{"cgo=default", bins.cgo, false},
		{"cgo=0", bins.static, false},
		{"start/cgo=default", bins.cgo, true},
		{"start/cgo=0", bins.static, true},
	} {
		b.Run(c.name, func(b *testing.B) { benchStart(b, c.bin, bins.empty, appendArgs, c.start) })
	}
}

// benchStart times bin with args (on a fixture run, or with no run manifest
// when startOnly: the usage error) against the empty program.
func benchStart(b *testing.B, bin, empty string, args []string, startOnly bool) {
	root := fixture.Copy(b)
	ledger := filepath.Join(root, fixture.LeadEvents)
	line := `{"at":"2026-11-29T10:02:10Z","phase":"phase-4-dispatch","worker":"Codex worker","fields":[["model","gpt-6.1-sol"]],"source":"team dispatch","progressLine":"PROGRESS: phase-4-dispatch worker=Codex worker model=gpt-6.1-sol"}` + "\n"
	seed := []byte(strings.Repeat(line, 200))
	if err := os.WriteFile(ledger, seed, 0o644); err != nil {
		b.Fatal(err)
	}
	if !startOnly {
		args = runArgs(root, args...)
	}
	env := cleanEnv()
	initAllocs, initBytes := benchInitTrace(b, bin, root, env)
	times := make([]time.Duration, 0, b.N)
	base := make([]time.Duration, 0, b.N)
	faults := make([]int64, 0, b.N)
	baseFaults := make([]int64, 0, b.N)
	cpu := make([]time.Duration, 0, b.N)
	baseCPU := make([]time.Duration, 0, b.N)
	timed := func(path string, args ...string) (time.Duration, int64, time.Duration) {
		cmd := exec.Command(path, args...)
		cmd.Dir, cmd.Env = root, env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		if wantUsage := startOnly && path == bin; (err != nil) != wantUsage || (wantUsage && cmd.ProcessState.ExitCode() != 2) {
			b.Fatalf("%s %v: %v: %s", path, args, err, out)
		}
		var minflt int64
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			minflt = ru.Minflt
		}
		return d, minflt, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i > 0 && i%200 == 0 {
			b.StopTimer()
			os.WriteFile(ledger, seed, 0o644)
			b.StartTimer()
		}
		d, f, c := timed(bin, args...)
		times, faults, cpu = append(times, d), append(faults, f), append(cpu, c)
		b.StopTimer()
		d, f, c = timed(empty)
		base, baseFaults, baseCPU = append(base, d), append(baseFaults, f), append(baseCPU, c)
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(times)
	slices.Sort(base)
	slices.Sort(faults)
	slices.Sort(baseFaults)
	slices.Sort(cpu)
	slices.Sort(baseCPU)
	med, baseMed := times[len(times)/2], base[len(base)/2]
	b.ReportMetric(float64(med.Microseconds())/1000, "ms/median")
	b.ReportMetric(float64(times[len(times)*9/10].Microseconds())/1000, "ms/p90")
	b.ReportMetric(float64(baseMed.Microseconds())/1000, "empty-ms/median")
	b.ReportMetric(float64(med)/float64(baseMed), "x-empty")
	cpuMed, baseCPUMed := cpu[len(cpu)/2], baseCPU[len(baseCPU)/2]
	b.ReportMetric(float64(cpuMed.Microseconds())/1000, "cpu-ms/median")
	b.ReportMetric(float64(baseCPUMed.Microseconds())/1000, "empty-cpu-ms/median")
	if baseCPUMed > 0 {
		b.ReportMetric(float64(cpuMed)/float64(baseCPUMed), "x-empty-cpu")
	}
	b.ReportMetric(float64(faults[len(faults)/2]), "minflt")
	b.ReportMetric(float64(baseFaults[len(baseFaults)/2]), "empty-minflt")
	b.ReportMetric(float64(initAllocs), "init-allocs")
	b.ReportMetric(float64(initBytes)/1024, "init-KB")
}

// benchInitTrace runs bin once with GODEBUG=inittrace=1 and totals the
// allocations and bytes of its package init.
func benchInitTrace(b *testing.B, bin, dir string, env []string) (allocs, bytes int) {
	b.Helper()
	cmd := exec.Command(bin, "lead-progress", "append")
	cmd.Dir, cmd.Env = dir, append(slices.Clip(env), "GODEBUG=inittrace=1")
	out, _ := cmd.CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if m := initLine.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[2])
			a, _ := strconv.Atoi(m[3])
			bytes, allocs = bytes+n, allocs+a
		}
	}
	if allocs == 0 {
		b.Fatalf("%s: no inittrace lines in:\n%s", bin, out)
	}
	return allocs, bytes
}
