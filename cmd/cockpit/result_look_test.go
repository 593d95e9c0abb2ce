package main

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/exp/golden"
)

// TestResultRendererLook holds the look of the result view's markdown (the
// renderer tui/result.go builds: glamour, dark or notty, wrapped) to what
// upstream glamour v2.0.1, goldmark v1.7.8, bluemonday and chroma v2.14.0
// drew before third_party/ made their init lazy (issue 20): the goldens were
// written by that upstream tree (with chroma's findClosest made
// deterministic, third_party/chroma/README.md), not by this one. The input
// has inline and block HTML, entities, links, a table, tasks, emoji and code
// blocks whose lexers the patches touch (HTML, the Lisps, Go templates, the
// analysers of unlabelled blocks). -update rewrites the goldens from this
// tree: do so only for a change of look that is meant.
func TestResultRendererLook(t *testing.T) {
	t.Parallel() // its cleanup waits out regexp2's clock beside the other waiting tests
	md, err := os.ReadFile("testdata/result-look.md")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { waitRegexpClock(t) })
	for _, c := range []struct{ name, style string }{{"dark", styles.DarkStyle}, {"notty", styles.NoTTYStyle}} {
		t.Run(c.name, func(t *testing.T) {
			r, err := glamour.NewTermRenderer(glamour.WithStylePath(c.style), glamour.WithWordWrap(76))
			if err != nil {
				t.Fatal(err)
			}
			out, err := r.Render(string(md))
			if err != nil {
				t.Fatal(err)
			}
			golden.RequireEqual(t, out)
		})
	}
}

// waitRegexpClock waits for the goroutine regexp2 runs while a chroma lexer's
// match deadline (250 ms) is pending, and a second after it, to end: the
// package's TestMain fails on goroutines that outlive the tests, and this
// test can be the last one run.
func waitRegexpClock(t *testing.T) {
	t.Helper()
	running := func() bool {
		buf := make([]byte, 1<<20)
		return strings.Contains(string(buf[:runtime.Stack(buf, true)]), "regexp2.runClock")
	}
	if !poll(30*time.Second, func() bool { return !running() }) {
		t.Error("regexp2's clock goroutine still runs 30 s after the render")
	}
}
