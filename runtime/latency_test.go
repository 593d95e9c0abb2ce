package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/okstra/cockpit/state"
)

// latencyRun lays out a pane run with n in-progress dispatches whose
// sidecars say "started" (by this live process).
func latencyRun(tb testing.TB, n int) (*state.Run, []string) {
	tb.Helper()
	root := tb.TempDir()
	manifest := `{"executionIdentityVersion":1,"taskKey":"bench","taskType":"t","runSeq":"001","teamStatePath":"run/state/team-state.json","leadEventsPath":"run/state/lead-events.jsonl","terminalBackend":"cockpit-pane"}`
	os.MkdirAll(filepath.Join(root, "run/state"), 0o755)
	os.MkdirAll(filepath.Join(root, "run/prompts"), 0o755)
	os.WriteFile(filepath.Join(root, "run/state/run-manifest.json"), []byte(manifest), 0o644)
	run, err := state.LoadRun(root, "run/state/run-manifest.json")
	if err != nil {
		tb.Fatal(err)
	}
	var sidecars []string
	err = state.UpdateTeamState(run.TeamStatePath, "team-state", "bench", func(ts *state.TeamState) error {
		for i := 0; i < n; i++ {
			prompt := fmt.Sprintf("run/prompts/w%03d.md", i)
			sp := filepath.Join(root, state.SidecarPath(prompt))
			sidecars = append(sidecars, sp)
			if err := state.WriteSidecar(sp, &state.Sidecar{Status: "started", Wrapper: "bench", PID: os.Getpid(), StartedAt: "2026-11-29T10:00:00Z"}); err != nil {
				return err
			}
			ts.WorkerDispatches = append(ts.WorkerDispatches, state.Dispatch{
				DispatchID: fmt.Sprintf("dispatch-%03d", i+1), DispatchKind: "initial", Role: "W", PromptPath: prompt,
				StatusPath: state.SidecarPath(prompt), Status: state.StatusInProgress, DispatchedAt: "2026-11-29T10:00:00Z",
			})
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return run, sidecars
}

// BenchmarkSidecarToCount measures the time from a worker's sidecar being
// renamed into place (terminal) to the cockpit publishing a view whose
// batch counts include it — the status line's input. It reports p50 and p99
// over the events (at least 200: use -benchtime=250x).
func BenchmarkSidecarToCount(b *testing.B) {
	run, sidecars := latencyRun(b, b.N)
	c, err := StartCockpit(CockpitConfig{Run: run, NoServer: true})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	events, stop := c.Subscribe()
	defer stop()
	lat := make([]time.Duration, 0, b.N)
	zero := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := state.WriteSidecar(sidecars[i], &state.Sidecar{Status: "completed", Wrapper: "bench", PID: os.Getpid(), StartedAt: "2026-11-29T10:00:00Z", ExitCode: &zero}); err != nil {
			b.Fatal(err)
		}
		for {
			ev := <-events
			if vu, ok := ev.(ViewUpdated); ok && vu.View.Batch.Done >= i+1 {
				break
			}
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms/p50")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ms/p99")
}
