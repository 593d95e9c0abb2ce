package engine

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// startSubscribed starts an engine on run without a control socket and
// subscribes to its events; the engine and the subscription end with the
// test.
func startSubscribed(tb testing.TB, run *state.Run) (*Engine, <-chan view.Event) {
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

// waitView takes events until a view satisfies ok (at most 20 s) and
// returns it.
func waitView(tb testing.TB, events <-chan view.Event, what string, ok func(view.RunView) bool) view.RunView {
	tb.Helper()
	deadline := time.After(testenv.Scale(20 * time.Second))
	for {
		select {
		case ev, open := <-events:
			if !open {
				tb.Fatalf("%s: the subscription ended", what)
			}
			if vu, isView := ev.(view.ViewUpdated); isView && ok(vu.View) {
				return vu.View
			}
		case <-deadline:
			tb.Fatalf("%s: not within 20s", what)
		}
	}
}

// startChild starts this test binary as a child engine process (its
// TestMain reads env, "NAME=value", and serves), with stderr shared and
// stdin held open: the child stops when stdin closes. It returns the
// child's first stdout line ("ready …"); what to do at the end is the
// caller's.
func startChild(t *testing.T, env string) (child *exec.Cmd, stdin io.WriteCloser, ready string) {
	t.Helper()
	child = exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), env)
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	ready, err = bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = child.Process.Kill()
		_ = child.Wait()
		t.Fatalf("the child engine did not start: %q %v", ready, err)
	}
	return child, stdin, ready
}
