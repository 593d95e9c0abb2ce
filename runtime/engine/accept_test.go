package engine

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/state"
)

// childEngineEnv names the run a child engine serves (TestMain):
// "<project root>\n<run manifest>\n<socket>".
const childEngineEnv = "COCKPIT_TEST_CHILD_ENGINE"

// childNoFile is the open-file limit of the child engine.
const childNoFile = 64

// runChildEngine is the child of TestAcceptSurvivesTheOpenFileLimit: an
// engine with RLIMIT_NOFILE lowered, serving until its stdin closes.
func runChildEngine(spec string) {
	f := strings.Split(spec, "\n")
	run, err := state.LoadRun(f[0], f[1])
	if err != nil {
		fmt.Println("child:", err)
		os.Exit(1)
	}
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: childNoFile, Max: childNoFile}); err != nil {
		fmt.Println("child: setrlimit:", err)
		os.Exit(1)
	}
	c, err := Start(Config{Run: run, Socket: f[2]})
	if err != nil {
		fmt.Println("child:", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	c.Close()
	os.Exit(0)
}

// openFDs counts the open files of pid.
func openFDs(pid int) int {
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(ents)
}

// TestAcceptSurvivesTheOpenFileLimit: a burst of connections past the
// engine's open-file limit makes accept fail with EMFILE; once they go,
// the engine accepts again (before, its accept loop ended on the first
// error and the engine lived on, deaf).
func TestAcceptSurvivesTheOpenFileLimit(t *testing.T) {
	run := runtest.FixtureRun(t, state.BackendCockpitPane)
	sock := filepath.Join(runtest.ShortDir(t), "s", "cockpit.sock")
	child, stdin, line := startChild(t, childEngineEnv+"="+run.Root.Dir()+"\n"+run.Manifest.Display+"\n"+sock)
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- child.Wait() }()
		select {
		case <-done:
		case <-time.After(testenv.Scale(30 * time.Second)):
			child.Process.Kill()
			<-done
		}
	})
	if line != "ready\n" {
		t.Fatalf("the child engine did not start: %q", line)
	}
	// Connect until the child is out of files (each accepted connection
	// is one; the rest wait in the listen backlog).
	var burst []net.Conn
	defer func() {
		for _, c := range burst {
			c.Close()
		}
	}()
	pid := child.Process.Pid
	deadline := time.Now().Add(testenv.Scale(20 * time.Second))
	for openFDs(pid) < childNoFile && time.Now().Before(deadline) {
		if c, err := net.Dial("unix", sock); err == nil {
			burst = append(burst, c)
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if n := openFDs(pid); n < childNoFile {
		t.Fatalf("the child engine has %d files open, never reached its limit of %d", n, childNoFile)
	}
	// Let its accept fail on the limit a few times, then free the files.
	for range 5 {
		if c, err := net.Dial("unix", sock); err == nil {
			burst = append(burst, c)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, c := range burst {
		c.Close()
	}
	burst = nil
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Scale(30*time.Second))
	defer cancel()
	cl, err := control.Dial(ctx, sock, "test")
	if err != nil {
		t.Fatalf("the engine no longer accepts after the burst: %v", err)
	}
	defer cl.Close()
	if _, err := control.Status.Call(ctx, cl, control.Empty{}); err != nil {
		t.Fatalf("status after the burst: %v", err)
	}
}
