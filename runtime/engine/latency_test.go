package engine

import (
	"os"
	"testing"
	"time"

	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// BenchmarkSidecarToCount measures the time from a worker's sidecar being
// renamed into place (terminal) to the cockpit publishing a view whose
// batch counts include it — the status line's input. It reports p50 and p99
// over the events (at least 200: use -benchtime=250x).
func BenchmarkSidecarToCount(b *testing.B) {
	run, sidecars := runtest.StartedRun(b, b.N)
	_, events := startSubscribed(b, run)
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
			if vu, ok := ev.(view.ViewUpdated); ok && vu.View.Batch.Done >= i+1 {
				break
			}
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	reportLatency(b, lat)
}
