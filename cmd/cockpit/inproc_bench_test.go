package main

import (
	"io"
	"testing"

	"github.com/okstra/cockpit/internal/fixture"
)

// BenchmarkLeadProgressInProcess is the same command without the process:
// flag parsing, loading the run, the locked atomic append. Compared with
// BenchmarkLeadProgressAppend it shows what process start and exit cost.
func BenchmarkLeadProgressInProcess(b *testing.B) {
	root := fixture.Copy(b)
	args := runArgs(root, "lead-progress", "append", "--phase", "complete")
	for i := 0; i < b.N; i++ {
		if code := Main(args, nil, io.Discard, io.Discard); code != 0 {
			b.Fatal(code)
		}
	}
}
