package attach

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/okstra/cockpit/internal/testenv"
)

// TestMain runs the tests in a private environment (testenv.Private): an
// engine registry, runtime dir and tmux socket dir of their own, and a
// failed run when they leave an engine, a tmux server or a process behind.
// Under -short, where the waiting tests run side by side without a leak
// check each (waiting), it checks once that no goroutine outlived them.
func TestMain(m *testing.M) {
	// -short runs the waiting tests (waiting) side by side: they wait on
	// frame clocks and quiet spells, not on the CPU.
	testenv.ParallelShort(8)
	code := testenv.Private(m).Run()
	if code == 0 && testing.Short() {
		if err := goleak.Find(leakOptions()...); err != nil {
			fmt.Fprintln(os.Stderr, "tui/attach: goroutines left after the tests:", err)
			code = 1
		}
	}
	os.Exit(code)
}
