package interactive

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
)

// tmuxServer is a private tmux server (its own socket in a temp dir),
// killed when the test ends.
type tmuxServer struct {
	t    testing.TB
	sock string
}

func newTmux(t testing.TB) *tmuxServer {
	t.Helper()
	testenv.SkipShort(t, "the real CLIs in tmux end to end")
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("tmux not found and CI=true: %v", err)
		}
		t.Skip("tmux not found: install tmux to run the interactive tests")
	}
	// The socket's directory is short whatever $TMPDIR is: a unix
	// socket's path holds 108 bytes.
	s := &tmuxServer{t: t, sock: filepath.Join(testenv.ShortDir(t), "s")}
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-S", s.sock, "kill-server").Run()
	})
	return s
}

func (s *tmuxServer) run(args ...string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", append([]string{"-S", s.sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// start runs argv (no shell: tmux execs a command of one word as is, so
// the argv goes through env(1)) in dir with exactly env, in a new
// session of cols×rows.
func (s *tmuxServer) start(name, dir string, env []string, cols, rows int, argv ...string) {
	s.t.Helper()
	cmd := append([]string{"new-session", "-d", "-s", name, "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), "-c", dir,
		"env", "-i"}, env...)
	s.run(append(cmd, argv...)...)
	// The window keeps its size when no client is attached; resizes are
	// the test's (resize-window).
	s.run("set", "-t", name, "window-size", "manual")
	s.run("set", "-t", name, "remain-on-exit", "on")
}

// screen is the pane's text, one line a row, trailing blanks trimmed.
func (s *tmuxServer) screen(name string) []string {
	s.t.Helper()
	out := strings.TrimSuffix(s.run("capture-pane", "-p", "-t", name), "\n")
	lines := strings.Split(out, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return lines
}

func (s *tmuxServer) resize(name string, cols, rows int) {
	s.t.Helper()
	s.run("resize-window", "-t", name, "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows))
}

// typeText types text as one burst (typed a character at a time, grok
// loses one now and then under load).
func (s *tmuxServer) typeText(name, text string) {
	s.t.Helper()
	s.run("send-keys", "-t", name, "-l", text)
}

// key sends a tmux key name (Enter, Escape, ...).
func (s *tmuxServer) key(name, key string) {
	s.t.Helper()
	s.run("send-keys", "-t", name, key)
}
