package panes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/internal/proc"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/panes/term"
)

func TestColoursAndExit(t *testing.T) {
	m := NewManager()
	p, err := m.Open(Config{Argv: []string{"printf", `\033[31mred\033[0m plain\n`}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	st := waitDone(t, p)
	if st.Code != 0 || st.Signaled() {
		t.Fatalf("status = %v, want exit 0", st)
	}
	// The pane keeps its last screen after the program exited (like tmux
	// remain-on-exit).
	snap := p.Snapshot()
	if !snap.Exited || snap.Status != st {
		t.Fatalf("snapshot exited=%v status=%v, want true %v", snap.Exited, snap.Status, st)
	}
	if got := p.Capture(false)[0]; got != "red plain" {
		t.Fatalf("row 0 = %q, want %q", got, "red plain")
	}
	row := snap.Lines[0]
	if !strings.Contains(row, "31m") || !strings.Contains(row, "red") || !strings.HasSuffix(row, " plain") {
		t.Fatalf("styled row 0 = %q, want red SGR then plain text", row)
	}
	if len(snap.Lines) != 24 || snap.Cols != 80 || snap.Rows != 24 {
		t.Fatalf("snapshot %dx%d with %d lines, want 80x24", snap.Cols, snap.Rows, len(snap.Lines))
	}
	if err := p.SendKey(Key{Code: 'x'}); !errors.Is(err, ErrExited) {
		t.Fatalf("SendKey after exit: %v, want ErrExited", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	// The screen is still there after Close, from the final snapshot.
	if got := p.Capture(false)[0]; got != "red plain" {
		t.Fatalf("row 0 after close = %q", got)
	}
}

func TestExitCode(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	m := NewManager()
	p := openHelper(t, m, Config{}, "exit", "3")
	st := waitDone(t, p)
	if st.Code != 3 || st.Signaled() {
		t.Fatalf("status = %v, want exit status 3", st)
	}
	if !strings.Contains(screenText(p), "bye 3") {
		t.Fatalf("screen lost after exit:\n%s", screenText(p))
	}
	if !p.Exited() {
		t.Fatal("Exited() = false after Done")
	}
}

func TestStartErrors(t *testing.T) {
	m := NewManager()
	if _, err := m.Open(Config{}); err == nil {
		t.Fatal("empty argv: no error")
	}
	if _, err := m.Open(Config{Argv: []string{"/nonexistent/program"}}); err == nil {
		t.Fatal("missing program: no error")
	}
	if _, err := m.Open(Config{Argv: []string{"true"}, Cols: -1, Rows: 5}); err == nil {
		t.Fatal("bad size: no error")
	}
	if n := len(m.List()); n != 0 {
		t.Fatalf("failed opens left %d panes", n)
	}
}

func TestEnvAndDir(t *testing.T) {
	m := NewManager()
	dir := testenv.ShortDir(t) // pwd fits on one row whatever $TMPDIR is
	p, err := m.Open(Config{
		Argv: []string{"sh", "-c", `printf '%s|%s|%s|' "$TERM" "$COCKPIT_PANE" "$FOO"; pwd`},
		Dir:  dir,
		Env:  []string{"FOO=bar", "PATH=/usr/bin:/bin"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	waitDone(t, p)
	want := DefaultTerm + "|" + p.ID() + "|bar|" + dir
	if got := screenText(p); got != want {
		t.Fatalf("screen = %q, want %q", got, want)
	}
}

func TestCursorPositionReply(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	m := NewManager()
	p := openHelper(t, m, Config{}, "cpr")
	// The helper moved to row 3, column 5 and asked where the cursor is;
	// the emulator's reply must have reached its stdin.
	waitScreen(t, p, "reply=ESC[3;5R")
	if st := waitDone(t, p); st.Code != 0 {
		t.Fatalf("helper status %v; screen:\n%s", st, screenText(p))
	}
}

func TestResize(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	m := NewManager()
	p := openHelper(t, m, Config{Cols: 80, Rows: 24}, "winch")
	waitScreen(t, p, "size=80x24")
	if err := p.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, p, "size=100x30")
	if c, r := p.Size(); c != 100 || r != 30 {
		t.Fatalf("Size() = %dx%d, want 100x30", c, r)
	}
	snap := p.Snapshot()
	if snap.Cols != 100 || snap.Rows != 30 || len(snap.Lines) != 30 {
		t.Fatalf("snapshot %dx%d with %d lines, want 100x30", snap.Cols, snap.Rows, len(snap.Lines))
	}
	if err := p.Resize(0, 10); err == nil {
		t.Fatal("Resize(0, 10): no error")
	}
	// Closing a program that does not ignore SIGHUP takes the first step
	// only.
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if st, _ := p.Status(); st.Signal != syscall.SIGHUP {
		t.Fatalf("status = %v, want signal SIGHUP", st)
	}
	if err := p.Resize(90, 20); !errors.Is(err, ErrClosed) {
		t.Fatalf("Resize after close: %v, want ErrClosed", err)
	}
}

func TestCloseEscalates(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want syscall.Signal
	}{
		{"ignores HUP", []string{"ignorehup"}, syscall.SIGTERM},
		{"ignores HUP and TERM", []string{"ignorehup", "term"}, syscall.SIGKILL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewManager()
			grace := 100 * time.Millisecond
			p := openHelper(t, m, Config{CloseGrace: grace}, tc.args...)
			waitScreen(t, p, "ready")
			start := time.Now()
			if err := m.Close(p.ID()); err != nil {
				t.Fatal(err)
			}
			elapsed := time.Since(start)
			st, ok := p.Status()
			if !ok || st.Signal != tc.want || st.Code != -1 {
				t.Fatalf("status = %v (known %v), want signal %v", st, ok, tc.want)
			}
			steps := map[syscall.Signal]time.Duration{syscall.SIGTERM: grace, syscall.SIGKILL: 2 * grace}
			if elapsed < steps[tc.want] {
				t.Fatalf("closed in %v, before the grace periods (%v) ran out", elapsed, steps[tc.want])
			}
			if _, ok := m.Get(p.ID()); ok {
				t.Fatal("closed pane still in manager")
			}
		})
	}
}

func TestCloseTwiceAndConcurrently(t *testing.T) {
	base := runtime.NumGoroutine()
	m := NewManager()
	p, err := m.Open(Config{Argv: []string{helperBin, "winch"}})
	if err != nil {
		t.Fatal(err)
	}
	waitScreen(t, p, "size=")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := p.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
		})
	}
	wg.Wait()
	if err := p.Close(); err != nil {
		t.Fatalf("third close: %v", err)
	}
	if err := m.Close(p.ID()); err != nil {
		t.Fatalf("manager close after pane close: %v", err)
	}
	if err := m.Close(p.ID()); !errors.Is(err, ErrNoPane) {
		t.Fatalf("manager close twice: %v, want ErrNoPane", err)
	}
	if _, err := p.Write([]byte("x")); !errors.Is(err, ErrClosed) && !errors.Is(err, ErrExited) {
		t.Fatalf("write after close: %v", err)
	}
	checkNoLeaks(t, base)
}

func TestNoGoroutineOutlivesClose(t *testing.T) {
	base := runtime.NumGoroutine()
	m := NewManager()
	grace := 50 * time.Millisecond
	// One of each: running and idle, exited by itself, ignoring SIGHUP,
	// blocked writing output nobody reads, blocked on input.
	for _, args := range [][]string{
		{"winch"},
		{"exit", "0"},
		{"ignorehup"},
		{"spew", "100000000"},
		{"keys"},
	} {
		openHelper(t, m, Config{CloseGrace: grace}, args...)
	}
	for _, p := range m.List() {
		// A program that does not read its input holds the writer in a
		// blocked write; Close must still end it.
		_ = p.Paste(strings.Repeat("x", 1<<20))
	}
	waitFor(t, "exit of the exit helper", 10*time.Second, func() bool {
		p, _ := m.Get("pane-2")
		return p.Exited()
	})
	if err := m.CloseAll(); err != nil {
		t.Fatal(err)
	}
	if n := len(m.List()); n != 0 {
		t.Fatalf("%d panes left after CloseAll", n)
	}
	checkNoLeaks(t, base)
}

func TestSynchronizedOutputHoldsFrame(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	m := NewManager()
	p := openHelper(t, m, Config{SyncTimeout: time.Minute}, "sync")
	settle := func(want string) {
		t.Helper()
		waitScreen(t, p, want)
		waitFor(t, "output settled", 10*time.Second, func() bool { return p.feeds.Load() == p.reads.Load() })
	}
	settle("before")
	before := p.Snapshot()

	// Begin the update. Output can arrive split across reads (a read may end
	// inside the mode sequence, before the update began), so marks up to
	// here are legitimate; clear them.
	if _, err := p.Write([]byte("1")); err != nil {
		t.Fatal(err)
	}
	settle("during")
	if !p.Modes().SyncOutput {
		t.Fatal("update not begun")
	}
	m.TakeDirty(nil)

	// Output inside the update must not be reported nor shown.
	if _, err := p.Write([]byte("2")); err != nil {
		t.Fatal(err)
	}
	settle("more")
	if p.dirty.Load() || len(m.Dirty()) != 0 {
		t.Fatal("pane reported dirty inside a synchronized update")
	}
	if held := p.Snapshot(); held.Seq != before.Seq || strings.Contains(strings.Join(held.Lines, "\n"), "during") {
		t.Fatalf("snapshot changed inside a synchronized update: %q", held.Lines[:3])
	}

	// Ending the update reports the pane and shows all of it.
	if _, err := p.Write([]byte("3")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ids, err := m.WaitDirty(ctx, 0)
	if err != nil || len(ids) != 1 || ids[0] != p.ID() {
		t.Fatalf("WaitDirty = %v, %v; want [%s]", ids, err, p.ID())
	}
	settle("after")
	text := strings.Join(p.Snapshot().Lines, "\n")
	for _, want := range []string{"during", "more", "after"} {
		if !strings.Contains(text, want) {
			t.Fatalf("snapshot after the update lacks %q: %q", want, text)
		}
	}
}

func TestSynchronizedOutputTimeout(t *testing.T) {
	// The timer fires once; if the machine is so slow that it fired before
	// the test cleared earlier marks, the report cannot be told apart, so
	// try again with a longer timeout.
	for timeout := 300 * time.Millisecond; timeout <= 5*time.Second; timeout *= 3 {
		if syncTimeoutObserved(t, timeout) {
			return
		}
		t.Logf("timeout %v too short to observe on this machine, retrying", timeout)
	}
	t.Fatal("could not observe the sync timeout")
}

func syncTimeoutObserved(t *testing.T, timeout time.Duration) bool {
	m := NewManager()
	p := openHelper(t, m, Config{SyncTimeout: timeout}, "sync", "hold")
	waitScreen(t, p, "before")
	p.Snapshot() // the UI's frame before the update
	if _, err := p.Write([]byte("1")); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, p, "during")
	p.mu.Lock()
	began := p.syncSince
	p.mu.Unlock()
	if began.IsZero() {
		t.Fatal("update not begun")
	}
	// Marks from before the update (split reads) are legitimate; clear them.
	m.TakeDirty(nil)
	if time.Since(began) >= timeout {
		return false
	}
	if !strings.Contains(strings.Join(p.Snapshot().Lines, "\n"), "before") ||
		strings.Contains(strings.Join(p.Snapshot().Lines, "\n"), "during") {
		t.Fatalf("held snapshot: %q", p.Snapshot().Lines[:3])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := m.WaitDirty(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(began); elapsed < timeout {
		t.Fatalf("held update reported after %v, before the %v timeout", elapsed, timeout)
	}
	if !p.Modes().SyncOutput {
		t.Fatal("program's update should still be open")
	}
	if text := strings.Join(p.Snapshot().Lines, "\n"); !strings.Contains(text, "during") {
		t.Fatalf("timed-out update not drawn: %q", text)
	}
	return true
}

func TestEvents(t *testing.T) {
	m := NewManager()
	p, err := m.Open(Config{Argv: []string{"printf", `\033]2;my title\007\007\033]9;build done\007`}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	waitDone(t, p)
	evs := p.TakeEvents(nil)
	var kinds []string
	for _, ev := range evs {
		switch {
		case ev.Kind == term.EventTitle && ev.Title == "my title":
			kinds = append(kinds, "title")
		case ev.Kind == term.EventBell:
			kinds = append(kinds, "bell")
		case ev.Kind == term.EventNotify && ev.Body == "build done":
			kinds = append(kinds, "notify")
		}
	}
	if strings.Join(kinds, ",") != "title,bell,notify" {
		t.Fatalf("events = %+v", evs)
	}
	if p.Snapshot().Title != "my title" {
		t.Fatalf("title = %q", p.Snapshot().Title)
	}
	if len(p.TakeEvents(nil)) != 0 {
		t.Fatal("events not cleared")
	}
}

func TestExitWhileBackgroundChildHoldsTerminal(t *testing.T) {
	base := runtime.NumGoroutine()
	m := NewManager()
	// The background sleep inherits the ignored SIGHUP and keeps the
	// terminal open after sh exits, so the output never ends.
	p, err := m.Open(Config{Argv: []string{"sh", "-c", `trap "" HUP; sleep 60 & echo started`}, CloseGrace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// The orphan is in the pane's process group, which outlives sh.
	defer syscall.Kill(-p.Pid(), syscall.SIGKILL)
	if st := waitDone(t, p); st.Code != 0 {
		t.Fatalf("status %v", st)
	}
	if !strings.Contains(screenText(p), "started") {
		t.Fatalf("screen:\n%s", screenText(p))
	}
	if !proc.GroupLive(p.Pid()) {
		t.Fatal("the background sleep is not running before Close")
	}
	if err := m.Close(p.ID()); err != nil {
		t.Fatal(err)
	}
	// Close ends what sh left behind, as it would end sh.
	if proc.GroupLive(p.Pid()) {
		t.Fatal("the background sleep outlived Close")
	}
	checkNoLeaks(t, base)
}

func TestScrollback(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	m := NewManager()
	p := openHelper(t, m, Config{Rows: 10}, "flood", "100")
	waitDone(t, p)
	snap := p.Snapshot()
	if snap.ScrollbackLen < 90 {
		t.Fatalf("ScrollbackLen = %d, want at least 90", snap.ScrollbackLen)
	}
	got := p.Scrollback(0, 2, false)
	if len(got) != 2 || got[0] != "line 0" || got[1] != "line 1" {
		t.Fatalf("Scrollback(0, 2) = %q", got)
	}
	if got := p.Scrollback(snap.ScrollbackLen, 5, false); got != nil {
		t.Fatalf("Scrollback past the end = %q", got)
	}
}

func TestInputQueueBounded(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	m := NewManager()
	// The helper never reads its input.
	p := openHelper(t, m, Config{CloseGrace: 50 * time.Millisecond}, "ignorehup")
	waitScreen(t, p, "ready")
	if _, err := p.Write(make([]byte, maxInput+1)); !errors.Is(err, ErrInputFull) {
		t.Fatalf("oversized write: %v, want ErrInputFull", err)
	}
	if _, err := p.Write([]byte("small")); err != nil {
		t.Fatalf("small write: %v", err)
	}
}

// Input keeps its order when the PTY fills: the first writes go to the PTY
// from their callers, the one the PTY takes only in part leaves its rest to
// the writer goroutine, and the writes after it queue behind that rest
// (writer.go). The program reads nothing until all of it is sent, so the
// PTY's buffer (a few KiB) is full long before the 4,000 records are.
func TestInputOrderWhenPTYFills(t *testing.T) {
	t.Parallel()    // a manager and helper of its own; it waits on the helper
	const n = 40000 // 280,000 bytes
	m := NewManager()
	p := openHelper(t, m, Config{CloseGrace: 50 * time.Millisecond}, "lagread", strconv.Itoa(n))
	waitScreen(t, p, "ready")
	for i := range n {
		if i == n/4 {
			// The PTY is full: the program starts reading while the
			// writer goroutine and the callers go on writing.
			if err := unix.Kill(p.Pid(), unix.SIGUSR1); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := p.Write(fmt.Appendf(nil, "%06d\n", i)); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	waitFor(t, "the program to read every record", 20*time.Second, func() bool {
		s := screenText(p)
		return strings.Contains(s, "in order") || strings.Contains(s, "out of order")
	})
	if s := screenText(p); !strings.Contains(s, fmt.Sprintf("in order: %d", n)) {
		t.Fatalf("the program read:\n%s", s)
	}
}

// A signal this process ignores (a cockpit started under nohup, an engine
// that ignores its launching terminal's SIGHUP) is not handed to the
// panes' programs as ignored: Close's SIGHUP still ends them at once.
func TestPaneProgramsStartWithDefaultSignals(t *testing.T) {
	// Not reset afterwards: the package keeps catching it, as the engine
	// does for its whole life, and later tests' programs must not care.
	signal.Ignore(syscall.SIGHUP)
	m := NewManager()
	p := openHelper(t, m, Config{Cols: 80, Rows: 24}, "winch")
	waitScreen(t, p, "size=80x24")
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if st, _ := p.Status(); st.Signal != syscall.SIGHUP {
		t.Fatalf("status = %v, want signal SIGHUP: the program inherited SIGHUP ignored", st)
	}
	// This process still shrugs SIGHUP off: it is caught (and dropped),
	// not back at its default action.
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if mask, ok := strings.CutPrefix(line, "SigCgt:"); ok {
			if v, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64); err != nil || v&(1<<(syscall.SIGHUP-1)) == 0 {
				t.Fatalf("SIGHUP is not caught by this process (SigCgt %s, %v)", mask, err)
			}
		}
	}
}

// outerEnv is what a cockpit started inside tmux inside kitty has.
var outerEnv = []string{
	"TERM=xterm-kitty", "COLORTERM=24bit", "TERM_PROGRAM=tmux", "TERM_PROGRAM_VERSION=3.3a",
	"TMUX=/tmp/tmux-0/default,123,0", "TMUX_PANE=%3", "KITTY_WINDOW_ID=7", "KITTY_PID=99",
	"KITTY_PUBLIC_KEY=1:abc", "WEZTERM_PANE=2", "WEZTERM_EXECUTABLE=/bin/wezterm",
	"ITERM_SESSION_ID=w0t0p0", "ITERM_PROFILE=Default", "VTE_VERSION=7600", "WINDOWID=4194310",
	"STY=123.pts-0.host", "WINDOW=1", "ZELLIJ=0", "ZELLIJ_SESSION_NAME=s", "ZELLIJ_PANE_ID=1",
	"ALACRITTY_WINDOW_ID=1", "ALACRITTY_SOCKET=/tmp/a.sock", "COLORFGBG=15;0",
	"TERMINFO=/usr/lib/kitty/terminfo", "TERM_SESSION_ID=w0t0", "LC_TERMINAL=iTerm2",
	"GHOSTTY_RESOURCES_DIR=/g", "KONSOLE_VERSION=230800", "GNOME_TERMINAL_SCREEN=/org/x",
	"WT_SESSION=abc", "COLUMNS=200", "LINES=50", "COCKPIT_PANE=pane-9",
}

// TestCleanTerminalEnv runs env(1) in a real pane, with the environment
// given and with the cockpit's own, both full of the outer terminal's
// variables: the program sees the pane's terminal and none of them.
func TestCleanTerminalEnv(t *testing.T) {
	keep := []string{"PATH=/usr/bin:/bin", "HOME=/home/x", "LANG=C.UTF-8", "NO_COLOR=1", "TMUX_TMPDIR=/tmp/tm", "MY_TERM=keep"}
	for _, tc := range []struct {
		name string
		env  []string // nil: the cockpit's own
	}{
		{"Config.Env", append(append([]string{}, outerEnv...), keep...)},
		{"the cockpit's environment", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env == nil {
				for _, kv := range append(append([]string{}, outerEnv...), keep...) {
					k, v, _ := strings.Cut(kv, "=")
					t.Setenv(k, v)
				}
			}
			m := NewManager()
			p, err := m.Open(Config{Argv: []string{"env"}, Env: tc.env, Cols: 120, Rows: 200})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			waitDone(t, p)
			got := map[string]string{}
			for _, l := range strings.Split(screenText(p), "\n") {
				if k, v, ok := strings.Cut(l, "="); ok {
					got[k] = v
				}
			}
			for _, kv := range outerEnv {
				k, _, _ := strings.Cut(kv, "=")
				switch k {
				case "TERM", "COLORTERM", "TERM_PROGRAM", "COCKPIT_PANE":
					continue
				}
				if v, ok := got[k]; ok {
					t.Errorf("the pane has the outer terminal's %s=%s", k, v)
				}
			}
			for k, want := range map[string]string{"TERM": DefaultTerm, "COLORTERM": "truecolor", "TERM_PROGRAM": "cockpit", "COCKPIT_PANE": p.ID()} {
				if got[k] != want {
					t.Errorf("%s=%q, want %q", k, got[k], want)
				}
			}
			for _, kv := range keep {
				k, v, _ := strings.Cut(kv, "=")
				if got[k] != v {
					t.Errorf("%s=%q, want %q kept", k, got[k], v)
				}
			}
		})
	}
}

// TestColorQueries runs a program that asks its terminal for colours: it
// gets the defaults, then what Manager.SetColors gave every pane, open or
// opened after.
func TestColorQueries(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	m := NewManager()
	p := openHelper(t, m, Config{Cols: 120}, "colors")
	waitScreen(t, p, "1=ESC]10;rgb:ffff/ffff/ffffBELESC]11;rgb:0000/0000/0000BELESC]4;1;rgb:cdcd/0000/0000BEL")
	c := term.DefaultColors()
	c.Fg, c.Bg, c.Palette[1] = term.RGB8(0x65, 0x7b, 0x83), term.RGB8(0xfd, 0xf6, 0xe3), term.RGB8(0xdc, 0x32, 0x2f)
	m.SetColors(c)
	if m.Colors() != c {
		t.Fatalf("Colors() = %+v, want what was set", m.Colors())
	}
	if _, err := p.Write([]byte("a")); err != nil {
		t.Fatal(err)
	}
	light := "ESC]10;rgb:6565/7b7b/8383BELESC]11;rgb:fdfd/f6f6/e3e3BELESC]4;1;rgb:dcdc/3232/2f2fBEL"
	waitScreen(t, p, "2="+light)
	q := openHelper(t, m, Config{Cols: 120}, "colors")
	waitScreen(t, q, "1="+light)
}
