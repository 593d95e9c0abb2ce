package attach

import (
	"os"
	"testing"

	"github.com/okstra/cockpit/internal/testenv"
)

// TestMain runs the tests in a private environment (testenv.Private): an
// engine registry, runtime dir and tmux socket dir of their own, and a
// failed run when they leave an engine, a tmux server or a process behind.
func TestMain(m *testing.M) { os.Exit(testenv.Private(m).Run()) }
