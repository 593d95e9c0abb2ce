// Package testenv is the tests' own environment: timeouts scaled to the
// machine the suite runs on, short private directories for unix sockets,
// and a process-wide private engine registry and tmux socket directory
// that a package's TestMain installs and checks is left empty. It owns no
// product behaviour; every package's tests may use it (issue 20, "A
// hermetic, fast, deterministic suite").
package testenv

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// MaxSocketPath is the room in sockaddr_un.sun_path, less the NUL.
const MaxSocketPath = 107

// maxLoadFactor bounds the load part of Factor: past it a wait that still
// times out is a bug, not a slow machine.
const maxLoadFactor = 4

var (
	factorOnce sync.Once
	factor     float64
)

// Factor is how much longer than on a quiet machine a test waits here:
// $COCKPIT_TEST_SCALE when set (a positive number), else 3 under the race
// detector, times the run queue per core at the suite's start (the 1-minute
// load average over the CPUs, at least 1, at most 4).
func Factor() float64 {
	factorOnce.Do(func() {
		load, _ := os.ReadFile("/proc/loadavg")
		factor = computeFactor(os.Getenv("COCKPIT_TEST_SCALE"), raceEnabled, string(load), runtime.NumCPU())
	})
	return factor
}

func computeFactor(scale string, race bool, loadavg string, cpus int) float64 {
	if v, err := strconv.ParseFloat(scale, 64); err == nil && v > 0 {
		return v
	}
	f := 1.0
	if race {
		f = 3
	}
	return f * loadFactor(loadavg, cpus)
}

// loadFactor is the 1-minute load average (from /proc/loadavg) per CPU,
// clamped to [1, 4].
func loadFactor(loadavg string, cpus int) float64 {
	fields := strings.Fields(loadavg)
	if len(fields) == 0 || cpus < 1 {
		return 1
	}
	load, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return 1
	}
	return min(max(load/float64(cpus), 1), maxLoadFactor)
}

// Scale is d × Factor(): the time a test gives an effect that takes d on a
// quiet machine. Use it for every timeout a test waits with, never for a
// sleep.
func Scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Factor())
}

// Poll calls cond every few milliseconds until it holds or Scale(d) has
// passed, and reports whether it held.
func Poll(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(Scale(d))
	wait := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			return cond()
		}
		time.Sleep(wait)
		wait = min(2*wait, 20*time.Millisecond)
	}
	return true
}

// Wait is Poll that fails t, naming what it waited for and for how long.
func Wait(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	if !Poll(d, cond) {
		t.Fatalf("timed out after %s (%s × %.1f) waiting for %s", Scale(d).Round(time.Millisecond), d, Factor(), what)
	}
}

// SkipShort skips t under `go test -short`, the inner loop's tier, saying
// why it is left to the full tier (.ci/run): why names what makes the test
// slow or heavy ("tmux end to end", "the real worker CLIs"). It is not a
// skip for a missing tool: the full tier runs every such test.
func SkipShort(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: " + why + "; the full tier (go test ./..., .ci/run) runs it")
	}
}

// Shrink is full in the full tier and short under -short: the size of a
// load (writers, processes, records) whose point holds at the smaller
// size too, so the inner loop runs it rather than skipping it.
func Shrink(full, short int) int {
	if testing.Short() {
		return short
	}
	return full
}

// ParallelShort sets -test.parallel to n under -short, unless the command
// line set it: for a package whose parallel tests mostly wait (on timers,
// on other processes, on the kernel), so that the inner loop does not run
// them two at a time (the default is GOMAXPROCS, 2 on the suite's
// machine) while the CPU idles. Call it from TestMain before m.Run. The
// full tier keeps the default, so .ci/run's -race run is unchanged.
func ParallelShort(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	if !testing.Short() {
		return
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(n))
	}
}
