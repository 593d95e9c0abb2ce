package interactive

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/okstra/cockpit/internal/realcli"
	"github.com/okstra/cockpit/internal/testenv"
)

// cockpitBin is the cockpit built for these tests (with -race when they
// are), so the lead runs in the real command.
var cockpitBin string

// TestMain runs the tests in a private environment (testenv.Private): a
// private engine registry, runtime and tmux directory, and a run that
// fails if an engine, a tmux server or a process of the tests is left.
func TestMain(m *testing.M) {
	os.Exit(testenv.Private(builtM{m}).Run())
}

// builtM runs the tests after building the cockpit (run).
type builtM struct{ m *testing.M }

func (b builtM) Run() int { return run(b.m) }

func run(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		return m.Run() // every test skips (newTmux); nothing to build
	}
	dir, err := os.MkdirTemp("", "ckint")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	cockpitBin = filepath.Join(dir, "cockpit")
	args := []string{"build", "-o", cockpitBin}
	if raceBuild {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "./cmd/cockpit")...)
	build.Dir = realcli.ModuleRoot()
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the cockpit: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}
