package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
)

// BenchmarkLeadProgressAppend measures `cockpit lead-progress append` end to
// end, from process start to exit, on a run whose ledger already holds 200
// checkpoints (a long run). It reports the median as ms/median; the mean is
// skewed by the noisy neighbours of a shared machine.
func BenchmarkLeadProgressAppend(b *testing.B) {
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
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i > 0 && i%200 == 0 {
			b.StopTimer()
			os.WriteFile(ledger, seed, 0o644)
			b.StartTimer()
		}
		cmd := exec.Command(cockpitBin, args...)
		cmd.Dir, cmd.Env = root, env
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms/median")
	b.ReportMetric(float64(times[len(times)*9/10].Microseconds())/1000, "ms/p90")
}
