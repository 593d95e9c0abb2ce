package main

import (
	"os"
	"testing"

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
	md, err := os.ReadFile("testdata/result-look.md")
	if err != nil {
		t.Fatal(err)
	}
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
