package main

// Issue 11's numbers through the real background engine, as benchmarks
// (docs/PERFORMANCE.md, "Attached screens: attach, throughput, idle"):
//
//	go test ./cmd/cockpit -run '^$' -bench AttachFirstFrame -benchtime 20x -count 5
//	go test ./cmd/cockpit -run '^$' -bench AttachedBusy -benchtime 30x -count 3
//	go test ./cmd/cockpit -run '^$' -bench AttachedIdle -benchtime 50x -count 3
//
// Everything is a real process: the engine is `cockpit engine` (what `open`
// starts), its panes run this test binary as a pane program (benchPaneMain,
// chosen by an environment variable only the panes get), the client is
// `cockpit attach` on a real PTY whose other side this process reads into
// panes/vt, as the user's terminal emulator; that emulator answers the
// client's terminal queries as a terminal does (so bubbletea turns on
// synchronized output, whose end marks each frame). tmux runs the same pane
// programs on a private socket in the same benchmark run. CPU is the CPU
// time of the engine's and the client's processes (their process CPU
// clocks: every thread, exact to the nanosecond), not wall time; the pane
// programs and this process are not counted.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/loadgen"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/panes/vt"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/watch"
	"github.com/okstra/cockpit/tui/attach"
)

// envBenchPane makes the test binary a pane program of these benchmarks
// (TestMain): the engine and tmux give it to the panes only.
const envBenchPane = "COCKPIT_BENCH_PANE"

// benchPaneMain is the pane program:
//
//	history N NAME   N numbered lines, then "NAME done"; then wait
//	gen RATE FILE    coloured log lines at RATE bytes/s in 10 ms slices,
//	                 the bytes written so far in FILE (every 100 ms)
//
// Both wait for SIGHUP or SIGTERM, as a worker CLI does.
func benchPaneMain(args []string) int {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGHUP, syscall.SIGTERM)
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "bench pane: history N NAME | gen RATE FILE")
		return 2
	}
	switch args[0] {
	case "history":
		n, _ := strconv.Atoi(args[1])
		var b []byte
		for i := 1; i <= n; i++ {
			b = fmt.Appendf(b, "%s history line %05d\r\n", args[2], i)
		}
		b = fmt.Appendf(b, "%s done", args[2])
		_, _ = os.Stdout.Write(b)
		<-stop
	case "gen":
		rate, _ := strconv.Atoi(args[1])
		loadgen.Run(rate, args[2], stop)
	}
	return 0
}

// envEngineProfile, set to a path prefix when running these benchmarks,
// has each engine they start write a CPU profile (PREFIX.cpu) and an
// execution trace (PREFIX.trace) of 4 seconds, from 6 seconds after its
// start: where an engine spends its time under the benchmark's load.
const envEngineProfile = "COCKPIT_BENCH_ENGINE_PROFILE"

// init profiles the engine when this test binary runs as one (`cockpit
// engine`) with envEngineProfile set.
func init() {
	prefix := os.Getenv(envEngineProfile)
	if prefix == "" || len(os.Args) < 2 || os.Args[1] != "engine" {
		return
	}
	go func() {
		time.Sleep(6 * time.Second)
		tf, err := os.Create(prefix + ".trace")
		if err != nil {
			return
		}
		defer tf.Close()
		cf, err := os.Create(prefix + ".cpu")
		if err != nil {
			return
		}
		defer cf.Close()
		_ = trace.Start(tf)
		_ = pprof.StartCPUProfile(cf)
		time.Sleep(4 * time.Second)
		pprof.StopCPUProfile()
		trace.Stop()
	}()
}

// procCPU is the CPU time process pid has used so far, every thread
// included: its process CPU-time clock (clock_getcpuclockid(3)'s clock,
// MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)).
func procCPU(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	var ts unix.Timespec
	if err := unix.ClockGettime(int32(^int32(pid))<<3|2, &ts); err != nil {
		tb.Fatalf("the CPU clock of pid %d: %v", pid, err)
	}
	return time.Duration(ts.Nano())
}

// waitQuiet waits until none of pids used more than 1 ms of CPU in 500 ms
// (the panes' output digested, start-up done).
func waitQuiet(tb testing.TB, what string, pids ...int) {
	tb.Helper()
	sum := func() (d time.Duration) {
		for _, p := range pids {
			d += procCPU(tb, p)
		}
		return d
	}
	last := sum()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		time.Sleep(500 * time.Millisecond)
		now := sum()
		if now-last <= time.Millisecond {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s never went quiet", what)
		}
		last = now
	}
}

// loadAvg is the one-minute load average, reported with each benchmark.
func loadAvg() float64 {
	data, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// syncEnd ends a synchronized update: one frame of a renderer that uses them.
var syncEnd = []byte("\x1b[?2026l")

// userTerm is the user's terminal: a real PTY whose master side is read
// into panes/vt, which answers queries on the master as a terminal does.
// It counts the bytes the client wrote and the frames (synchronized
// updates ended), and can watch for a screen condition after every read.
type userTerm struct {
	ptm, pts   *os.File
	cols, rows int

	mu     sync.Mutex
	emu    *vt.Emulator
	bytes  int64
	frames int64
	tail   []byte // the last bytes read, for a marker cut across reads
	want   func(screen string) bool
	wantE  func(e *vt.Emulator) bool // as want, without rendering the screen
	hit    chan time.Time
	done   chan struct{}
}

func newUserTerm(tb testing.TB, cols, rows int) *userTerm {
	tb.Helper()
	ptm, pts, err := pty.Open()
	if err != nil {
		tb.Fatal(err)
	}
	// A non-blocking copy of the master, so that closing it ends the read.
	nfd, err := unix.Dup(int(ptm.Fd()))
	if err != nil {
		tb.Fatal(err)
	}
	_ = ptm.Close()
	if err := unix.SetNonblock(nfd, true); err != nil {
		tb.Fatal(err)
	}
	ptm = os.NewFile(uintptr(nfd), "/dev/ptmx")
	if err := pty.Setsize(pts, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		tb.Fatal(err)
	}
	u := &userTerm{ptm: ptm, pts: pts, cols: cols, rows: rows, emu: vt.New(cols, rows), done: make(chan struct{})}
	replies := make(chan []byte, 64)
	u.emu.SetCallbacks(func(p []byte) {
		select {
		case replies <- slices.Clone(p):
		default:
		}
	}, nil)
	go func() { // the terminal's answers, written outside the read loop
		for {
			select {
			case p := <-replies:
				_, _ = ptm.Write(p)
			case <-u.done:
				return
			}
		}
	}()
	go func() {
		buf := make([]byte, 256<<10)
		for {
			n, err := ptm.Read(buf)
			u.mu.Lock()
			if n > 0 {
				_, _ = u.emu.Write(buf[:n])
				u.bytes += int64(n)
				u.tail = append(u.tail, buf[:n]...)
				u.frames += int64(bytes.Count(u.tail, syncEnd))
				if i := bytes.LastIndex(u.tail, syncEnd); i >= 0 {
					u.tail = u.tail[i+len(syncEnd):]
				}
				if k := len(syncEnd) - 1; len(u.tail) > k {
					u.tail = append(u.tail[:0], u.tail[len(u.tail)-k:]...)
				}
				if u.wantE != nil && u.wantE(u.emu) {
					u.wantE = nil
					u.hit <- time.Now()
				}
				if u.want != nil && u.want(u.screenLocked()) {
					u.want = nil
					u.hit <- time.Now()
				}
			}
			u.mu.Unlock()
			if err != nil {
				close(u.done)
				return
			}
		}
	}()
	tb.Cleanup(u.close)
	return u
}

// close hangs the terminal up and waits for its reader.
func (u *userTerm) close() {
	_ = u.ptm.Close()
	_ = u.pts.Close()
	<-u.done
}

func (u *userTerm) screenLocked() string {
	var b []byte
	for y := range u.rows {
		b = append(u.emu.AppendLine(b, y, false), '\n')
	}
	return string(b)
}

func (u *userTerm) screen() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.screenLocked()
}

func (u *userTerm) counts() (bytes, frames int64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.bytes, u.frames
}

// watch arms a condition checked after every read; the returned channel
// gets the time of the read that made it hold.
func (u *userTerm) watch(cond func(screen string) bool) <-chan time.Time {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.hit = make(chan time.Time, 1)
	if cond(u.screenLocked()) {
		u.hit <- time.Now()
		return u.hit
	}
	u.want = cond
	return u.hit
}

// watchEmu is watch for a condition on the emulator itself (a cell), which
// costs the reader less than rendering the whole screen after every read.
func (u *userTerm) watchEmu(cond func(e *vt.Emulator) bool) <-chan time.Time {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.hit = make(chan time.Time, 1)
	if cond(u.emu) {
		u.hit <- time.Now()
		return u.hit
	}
	u.wantE = cond
	return u.hit
}

// await waits for a watched condition.
func (u *userTerm) await(tb testing.TB, what string, hit <-chan time.Time, d time.Duration) time.Time {
	tb.Helper()
	select {
	case at := <-hit:
		return at
	case <-time.After(d):
		tb.Fatalf("waited %s for %s; the screen:\n%s", d, what, u.screen())
	}
	return time.Time{}
}

// typeText writes to the terminal as keys typed.
func (u *userTerm) typeText(tb testing.TB, s string) {
	tb.Helper()
	if _, err := u.ptm.Write([]byte(s)); err != nil {
		tb.Fatal(err)
	}
}

// clientEnv is the client's environment: the test's without terminal and
// cockpit variables, as a terminal that answers queries (no TERM_PROGRAM,
// no ssh) and outside tmux.
func clientEnv() []string {
	var env []string
	for _, kv := range cleanEnv() {
		name, _, _ := strings.Cut(kv, "=")
		if attach.ClientEnv([]string{kv}) != nil || name == "TMUX_PANE" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PATH="+os.Getenv("PATH"), "TERM=xterm-256color", "COLORTERM=truecolor", "LANG=C.UTF-8")
}

// startOnTerminal starts argv with the terminal as its controlling
// terminal and standard streams.
func startOnTerminal(tb testing.TB, u *userTerm, env []string, argv ...string) *exec.Cmd {
	tb.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = u.pts, u.pts, u.pts
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return cmd
}

// waitExit waits for a client process to end (it was asked to).
func waitExit(tb testing.TB, cmd *exec.Cmd, what string) {
	tb.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		tb.Fatalf("%s did not exit", what)
	}
}

// benchEngine is a `cockpit engine` process, as `open` starts it.
type benchEngine struct {
	root, sock string
	pid        int
}

// startBenchEngine starts the engine on a fixture run, its screen size
// cols×rows (so panes start at the size an attaching screen of that size
// gives them), and waits for its "ok". It is stopped with SIGTERM (every
// pane closed) when the benchmark ends.
func startBenchEngine(tb testing.TB, cols, rows int) *benchEngine {
	tb.Helper()
	root, env := paneRun(tb)
	sock := strings.TrimPrefix(env[0], "COCKPIT_SOCKET=")
	reg := engineRegistry(tb)
	logf, err := os.Create(filepath.Join(tb.TempDir(), "engine.log"))
	if err != nil {
		tb.Fatal(err)
	}
	defer logf.Close()
	r, w, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(cockpitBin, "engine", "--ready-fd", "3", "--project-root", root, "--run-manifest", fixture.RunManifest,
		"--socket", sock, "--cols", strconv.Itoa(cols), "--rows", strconv.Itoa(rows))
	cmd.Dir, cmd.Env = root, cockpitEnv(tb, append(env, "COCKPIT_REGISTRY="+reg, envEngineProfile+"="+os.Getenv(envEngineProfile)))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		tb.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			tb.Errorf("the engine outlived its SIGTERM by 30 s")
		}
	})
	line := make(chan string, 1)
	go func() { l, _ := bufio.NewReader(r).ReadString('\n'); line <- strings.TrimSpace(l) }()
	select {
	case l := <-line:
		if l != "ok" {
			data, _ := os.ReadFile(logf.Name())
			tb.Fatalf("the engine said %q:\n%s", l, data)
		}
	case <-time.After(30 * time.Second):
		tb.Fatal("the engine was not ready in 30 s")
	}
	return &benchEngine{root: root, sock: sock, pid: cmd.Process.Pid}
}

// openPanes opens n panes running this binary as a pane program with
// args(i), titled title(i), as one batch.
func (e *benchEngine) openPanes(tb testing.TB, n int, title func(int) string, args func(int) []string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := control.Dial(ctx, e.sock, "bench")
	if err != nil {
		tb.Fatal(err)
	}
	defer cl.Close()
	for i := range n {
		p := control.OpenPaneParams{Argv: append([]string{cockpitBin}, args(i)...), Env: []string{envBenchPane + "=1"}, Title: title(i), Following: n - 1 - i}
		if _, err := control.OpenPane.Call(ctx, cl, p); err != nil {
			tb.Fatalf("open pane %d: %v", i, err)
		}
	}
}

// attachProcess starts `cockpit attach --socket` on u.
func (e *benchEngine) attachProcess(tb testing.TB, u *userTerm) *exec.Cmd {
	tb.Helper()
	return startOnTerminal(tb, u, clientEnv(), cockpitBin, "attach", "--socket", e.sock)
}

// detach types ctrl+b d, the default prefix's detach (cockpit and tmux
// alike), and waits for the client to exit.
func detach(tb testing.TB, u *userTerm, cmd *exec.Cmd) {
	tb.Helper()
	u.typeText(tb, "\x02d")
	waitExit(tb, cmd, "the client after ctrl+b d")
}

// benchTmux is a tmux server on a private socket, one session of panes.
type benchTmux struct {
	sock, conf string
	pid        int
}

func (t *benchTmux) run(tb testing.TB, args ...string) string {
	tb.Helper()
	cmd := exec.Command("tmux", append([]string{"-S", t.sock, "-f", t.conf}, args...)...)
	cmd.Env = clientEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// startBenchTmux starts a tmux server whose one session, cols×rows, tiles
// n panes running the pane program with args(i), titled title(i) on the
// pane borders, with 10,000 lines of history each.
func startBenchTmux(tb testing.TB, cols, rows, n int, title func(int) string, args func(int) []string) *benchTmux {
	tb.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatal("tmux is not installed (CI installs it: .ci/run)")
		}
		tb.Skip("tmux is not installed")
	}
	dir := testenv.ShortDir(tb)
	t := &benchTmux{sock: filepath.Join(dir, "tmux.sock"), conf: filepath.Join(dir, "tmux.conf")}
	conf := "set -g history-limit 10000\nset -g pane-border-status top\nset -g pane-border-format ' #{pane_title} '\nset -g escape-time 0\n"
	if err := os.WriteFile(t.conf, []byte(conf), 0o600); err != nil {
		tb.Fatal(err)
	}
	shell := func(i int) string {
		return "exec env " + envBenchPane + "=1 " + cockpitBin + " " + strings.Join(args(i), " ")
	}
	t.run(tb, "new-session", "-d", "-s", "bench", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), shell(0))
	var panePIDs []int
	tb.Cleanup(func() {
		_ = exec.Command("tmux", "-S", t.sock, "kill-server").Run()
		// The pane programs end on their SIGHUP (and write their last count).
		for _, pid := range panePIDs {
			if !poll(30*time.Second, func() bool { return !watch.ProcessAlive(pid) }) {
				tb.Errorf("tmux's pane program %d outlived kill-server", pid)
			}
		}
	})
	for i := 1; i < n; i++ {
		t.run(tb, "split-window", "-t", "bench", shell(i))
		t.run(tb, "select-layout", "-t", "bench", "tiled")
	}
	for _, f := range strings.Fields(t.run(tb, "list-panes", "-t", "bench", "-F", "#{pane_pid}")) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			tb.Fatal(err)
		}
		panePIDs = append(panePIDs, pid)
	}
	for i, id := range strings.Fields(t.run(tb, "list-panes", "-t", "bench", "-F", "#{pane_id}")) {
		t.run(tb, "select-pane", "-t", id, "-T", title(i))
	}
	var err error
	t.pid, err = strconv.Atoi(t.run(tb, "display-message", "-p", "#{pid}"))
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

func (t *benchTmux) attachProcess(tb testing.TB, u *userTerm) *exec.Cmd {
	tb.Helper()
	return startOnTerminal(tb, u, clientEnv(), "tmux", "-S", t.sock, "-f", t.conf, "attach", "-t", "bench")
}

// The fixture of the attach and idle benchmarks: 16 panes that each printed
// 10,000 lines of history, then wait.
const (
	histPanes = 16
	histLines = 10000
	histCols  = 240
	histRows  = 80
)

func histTitle(i int) string { return fmt.Sprintf("bench-%02d", i) }
func histArgs(i int) []string {
	return []string{"history", strconv.Itoa(histLines), fmt.Sprintf("p%02d", i)}
}

// histFrame holds when the screen shows every pane's title and last line.
func histFrame(screen string) bool {
	for i := range histPanes {
		if !strings.Contains(screen, histTitle(i)) || !strings.Contains(screen, fmt.Sprintf("p%02d done", i)) {
			return false
		}
	}
	return true
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func percentileDur(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// BenchmarkAttachFirstFrame times an attach until the client's terminal
// shows every pane's title and last line: 16 panes that each printed
// 10,000 lines, a 240×80 terminal the size the engine's panes were made
// for. One iteration is one attach and detach. Variants:
//
//   - cockpit/request: from the attach request (dialling the control
//     socket, in this process) to the frame, the client relay (attach.Run)
//     in this process too;
//   - cockpit/process: from starting `cockpit attach` to the frame;
//   - tmux/process: from starting `tmux attach` to the frame, the same pane
//     programs in a tiled tmux session with titles on the pane borders.
//
// Reported: p50-ms and p90-ms of the iterations, and the first frame's
// size (first-KB, what reached the terminal until it was complete).
func BenchmarkAttachFirstFrame(b *testing.B) {
	for _, v := range []string{"cockpit/request", "cockpit/process", "tmux/process"} {
		b.Run(v, func(b *testing.B) {
			var attachOnce func(u *userTerm) (*exec.Cmd, func())
			if v == "tmux/process" {
				t := startBenchTmux(b, histCols, histRows, histPanes, histTitle, histArgs)
				attachOnce = func(u *userTerm) (*exec.Cmd, func()) { return t.attachProcess(b, u), nil }
			} else {
				e := startBenchEngine(b, histCols, histRows)
				e.openPanes(b, histPanes, histTitle, histArgs)
				attachOnce = func(u *userTerm) (*exec.Cmd, func()) {
					if v == "cockpit/process" {
						return e.attachProcess(b, u), nil
					}
					p := attach.Params{Cols: histCols, Rows: histRows, Env: attach.ClientEnv(clientEnv())}
					conn, _, err := dialScreen(context.Background(), e.sock, "bench", p)
					if err != nil {
						b.Fatal(err)
					}
					done := make(chan struct{})
					go func() {
						defer close(done)
						_, _ = attach.Run(conn, u.pts, u.pts, attach.ClientOptions{Cols: histCols, Rows: histRows})
					}()
					return nil, func() { <-done }
				}
			}
			once := func() (time.Duration, int64) {
				u := newUserTerm(b, histCols, histRows)
				defer u.close()
				hit := u.watch(histFrame)
				t0 := time.Now()
				cmd, wait := attachOnce(u)
				at := u.await(b, "a frame with every pane's title and last line", hit, time.Minute)
				n, _ := u.counts()
				u.typeText(b, "\x02d")
				if cmd != nil {
					waitExit(b, cmd, "the client after ctrl+b d")
				} else {
					wait()
				}
				return at.Sub(t0), n
			}
			once() // the panes have digested their history; warm caches
			var lat []time.Duration
			var first int64
			for b.Loop() {
				d, n := once()
				lat = append(lat, d)
				first += n
			}
			b.ReportMetric(ms(percentileDur(lat, 0.5)), "p50-ms")
			b.ReportMetric(ms(percentileDur(lat, 0.9)), "p90-ms")
			b.ReportMetric(float64(first)/float64(len(lat))/1024, "first-KB")
			b.ReportMetric(loadAvg(), "load")
		})
	}
}

// The busy fixture: 64 panes, each running a generator of coloured log
// lines at a fixed rate, through one attached 240×80 screen.
const (
	busyPanes = 64
	busyCols  = 240
	busyRows  = 80
)

// BenchmarkAttachedBusy runs 64 panes, each writing coloured log lines at
// a paced MBps megabytes a second (10^6 bytes) into its real PTY, through
// one attached 240×80 screen (`cockpit attach` / `tmux attach` on a real
// PTY read by panes/vt), and measures over a window of b.N × 100 ms:
//
//   - frames/s: synchronized updates the client's terminal got (cockpit;
//     tmux draws without them here);
//   - cpu-cores, engine-cores, client-cores: CPU time of the engine (tmux:
//     server) and the client processes over wall time;
//   - out-KB/s and KB/frame: bytes the client wrote to its terminal;
//   - in-MB/s: what the generators got written (all 64 together).
func BenchmarkAttachedBusy(b *testing.B) {
	for _, sys := range []string{"cockpit", "tmux"} {
		for _, rate := range []float64{0.25, 1, 2} {
			b.Run(fmt.Sprintf("%s/MBps=%g", sys, rate), func(b *testing.B) {
				dir := b.TempDir()
				title := func(i int) string { return fmt.Sprintf("gen-%02d", i) }
				args := func(i int) []string {
					return []string{"gen", strconv.Itoa(int(rate * 1e6)), loadgen.CountPath(dir, i)}
				}
				u := newUserTerm(b, busyCols, busyRows)
				var server int
				var client *exec.Cmd
				if sys == "tmux" {
					t := startBenchTmux(b, busyCols, busyRows, busyPanes, title, args)
					server, client = t.pid, t.attachProcess(b, u)
				} else {
					e := startBenchEngine(b, busyCols, busyRows)
					e.openPanes(b, busyPanes, title, args)
					server, client = e.pid, e.attachProcess(b, u)
				}
				defer detach(b, u, client)
				u.await(b, "every pane's title", u.watch(func(s string) bool { return strings.Contains(s, title(busyPanes-1)) && strings.Contains(s, title(0)) }), time.Minute)
				time.Sleep(time.Second) // the generators at their pace: the window starts in the steady state

				cpuE, cpuC, g0 := procCPU(b, server), procCPU(b, client.Process.Pid), loadgen.Total(dir, busyPanes)
				by0, f0 := u.counts()
				t0 := time.Now()
				for b.Loop() {
					time.Sleep(100 * time.Millisecond)
				}
				wall := time.Since(t0).Seconds()
				cpuE, cpuC = procCPU(b, server)-cpuE, procCPU(b, client.Process.Pid)-cpuC
				by, f := u.counts()
				by, f = by-by0, f-f0
				g := loadgen.Total(dir, busyPanes) - g0

				if sys == "cockpit" {
					b.ReportMetric(float64(f)/wall, "frames/s")
					b.ReportMetric(float64(by)/1024/float64(max(f, 1)), "KB/frame")
				}
				b.ReportMetric((cpuE+cpuC).Seconds()/wall, "cpu-cores")
				b.ReportMetric(cpuE.Seconds()/wall, "engine-cores")
				b.ReportMetric(cpuC.Seconds()/wall, "client-cores")
				b.ReportMetric(float64(by)/1024/wall, "out-KB/s")
				b.ReportMetric(float64(g)/1e6/wall, "in-MB/s")
				b.ReportMetric(loadAvg(), "load")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// BenchmarkAttachedIdle measures the CPU an idle engine uses, 16 panes
// that printed 10,000 lines each and are silent since, over a window of
// b.N × 100 ms: with no screen; with one idle screen attached (the
// `cockpit attach` process counted apart); after that screen detached; and
// tmux with the same panes, without and with an attached client. Reported
// as percent of one core: engine-% (tmux: the server), client-%.
func BenchmarkAttachedIdle(b *testing.B) {
	for _, v := range []string{"cockpit/no-screen", "cockpit/screen", "cockpit/after-detach", "tmux/no-client", "tmux/client"} {
		b.Run(v, func(b *testing.B) {
			var server int
			var client *exec.Cmd
			var u *userTerm
			attachNow := func(start func(*userTerm) *exec.Cmd) {
				u = newUserTerm(b, histCols, histRows)
				client = start(u)
				u.await(b, "every pane's last line", u.watch(histFrame), time.Minute)
			}
			if strings.HasPrefix(v, "tmux/") {
				t := startBenchTmux(b, histCols, histRows, histPanes, histTitle, histArgs)
				server = t.pid
				if v == "tmux/client" {
					attachNow(func(u *userTerm) *exec.Cmd { return t.attachProcess(b, u) })
				}
			} else {
				e := startBenchEngine(b, histCols, histRows)
				e.openPanes(b, histPanes, histTitle, histArgs)
				server = e.pid
				if v != "cockpit/no-screen" {
					attachNow(func(u *userTerm) *exec.Cmd { return e.attachProcess(b, u) })
				}
				if v == "cockpit/after-detach" {
					detach(b, u, client)
					client = nil
				}
			}
			pids := []int{server}
			if client != nil {
				pids = append(pids, client.Process.Pid)
				defer detach(b, u, client)
			}
			waitQuiet(b, "the engine", pids...)

			cpuE, cpuC := procCPU(b, server), time.Duration(0)
			if client != nil {
				cpuC = procCPU(b, client.Process.Pid)
			}
			var f0 int64
			if u != nil {
				_, f0 = u.counts()
			}
			t0 := time.Now()
			for b.Loop() {
				time.Sleep(100 * time.Millisecond)
			}
			wall := time.Since(t0).Seconds()
			cpuE = procCPU(b, server) - cpuE
			b.ReportMetric(100*cpuE.Seconds()/wall, "engine-%")
			if client != nil {
				cpuC = procCPU(b, client.Process.Pid) - cpuC
				b.ReportMetric(100*cpuC.Seconds()/wall, "client-%")
				_, f := u.counts()
				b.ReportMetric(float64(f-f0)/wall, "frames/s")
			}
			b.ReportMetric(loadAvg(), "load")
			b.ReportMetric(0, "ns/op")
		})
	}
}
