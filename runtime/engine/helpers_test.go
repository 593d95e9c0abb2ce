package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/okstra/cockpit/state"
)

// startSubscribed starts an engine on run without a control socket and
// subscribes to its events; the engine and the subscription end with the
// test.
func startSubscribed(tb testing.TB, run *state.Run) (*Engine, <-chan any) {
	tb.Helper()
	c, err := Start(Config{Run: run, NoServer: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	events, stop := c.Subscribe()
	tb.Cleanup(stop)
	return c, events
}

// reportLatency reports the median and 99th percentile of lat (sorted in
// place) as ms/p50 and ms/p99.
func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms/p50")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ms/p99")
}
