package team

import (
	"fmt"
	"os"
	"testing"

	"github.com/okstra/cockpit/internal/testenv"
)

// TestMain runs the tests in a private environment (testenv.Private): an
// engine registry, runtime dir and tmux socket dir of their own, and a
// failed run when they leave an engine, a tmux server or a process behind.
// No test reads the developer's own providers.json: XDG_CONFIG_HOME is an
// empty directory of the run's (a test that needs a config of its own
// sets one). Most parallel tests here wait on an await's timeout, so
// -short runs them eight at a time.
func TestMain(m *testing.M) {
	cfg, err := os.MkdirTemp("", "team-config-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "make temp dir:", err)
		os.Exit(1)
	}
	os.Setenv("XDG_CONFIG_HOME", cfg)
	testenv.ParallelShort(8)
	code := testenv.Private(m).Run()
	_ = os.RemoveAll(cfg)
	os.Exit(code)
}
