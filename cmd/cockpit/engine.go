package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/internal/procgov"
	"github.com/okstra/cockpit/runtime/engine"
	"github.com/okstra/cockpit/runtime/registry"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/tui"
	"github.com/okstra/cockpit/tui/attach"
	"github.com/okstra/cockpit/tui/host"
)

// engineLogName is the engine's log, in the run's state directory.
const engineLogName = "cockpit-engine.log"

// engineReadyTimeout bounds how long open waits for a starting engine.
const engineReadyTimeout = 10 * time.Second

// EngineOptions are the flags of the hidden `engine` command: the daemon
// `open` starts.
type EngineOptions struct {
	IO         *IOStreams
	Run        runFlags
	Lead       []string // nil: no lead pane
	Socket     string
	Prefix     string
	Cols, Rows int
	ReadyFD    int
	RemoveDir  string // removed when the engine ends (the demo's temp dir)
	// ScriptedLead: the lead is a script (the demo's); screens start in
	// navigation (tui.Config.ScriptedLead).
	ScriptedLead bool
	// EndUnwatched ends the run once no screen has been attached for this
	// long (0: never; the demo's engine, demoGrace).
	EndUnwatched time.Duration
}

// NewCmdEngine parses `engine`; runF (engineRun when nil) does it.
func NewCmdEngine(f *Factory, runF func(*EngineOptions) error) *cobra.Command {
	opts := &EngineOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:    "engine --project-root <dir> --run-manifest <path> [--ready-fd N] [--lead -- <cmd>...]",
		Short:  "The run's engine without a terminal, serving attached screens (started by open)",
		Hidden: true,
		// It catches SIGTERM and SIGINT itself and ignores SIGHUP: the
		// terminal that launched it may go, the engine stays.
		Annotations: map[string]string{annotationOwnSignals: "true"},
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if (dash < 0 && len(args) > 0) || dash > 0 {
				return &usageError{fmt.Errorf("unexpected argument %q; put the lead command after --lead --", args[0])}
			}
			opts.Lead = args
			p, err := tui.ParsePrefix(opts.Prefix)
			if err != nil {
				return &usageError{fmt.Errorf("--prefix (or $COCKPIT_PREFIX): %w", err)}
			}
			opts.Prefix = p
			if runF != nil {
				return runF(opts)
			}
			return engineRun(opts)
		},
	}
	opts.Run.add(f, cmd)
	cmd.Flags().Bool("lead", false, "the lead command follows after --")
	cmd.Flags().StringVar(&opts.Socket, "socket", "", "the control socket (default: the run's)")
	cmd.Flags().StringVar(&opts.Prefix, "prefix", f.envOr("COCKPIT_PREFIX", tui.DefaultPrefix), "the key that leaves a pane")
	cmd.Flags().IntVar(&opts.Cols, "cols", 0, "the first screen's columns, so panes start at their size")
	cmd.Flags().IntVar(&opts.Rows, "rows", 0, "the first screen's rows")
	cmd.Flags().IntVar(&opts.ReadyFD, "ready-fd", 0, "an inherited pipe to write one line on: ok, or why the engine did not start")
	cmd.Flags().BoolVar(&opts.ScriptedLead, "scripted-lead", false, "the lead is a script the human watches (the demo's): screens start in navigation")
	cmd.Flags().StringVar(&opts.RemoveDir, "remove-dir", "", "a `dir` to remove when the engine ends (the demo's)")
	cmd.Flags().DurationVar(&opts.EndUnwatched, "end-unwatched", 0, "end the run once no screen has been attached for this `duration` (the demo's)")
	return cmd
}

// engineRun is the daemon: it starts the engine with a screen host,
// registers it, says it is ready, and serves until the run is ended (a
// screen, cockpit stop) or SIGTERM/SIGINT; SIGHUP is ignored.
func engineRun(o *EngineOptions) (err error) {
	signal.Ignore(syscall.SIGHUP)
	ctx, stopSignals := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stopSignals()
	var ready *os.File
	if o.ReadyFD > 0 {
		ready = os.NewFile(uintptr(o.ReadyFD), "ready")
	}
	say := func(line string) {
		if ready != nil {
			fmt.Fprintln(ready, line)
			ready.Close()
			ready = nil
		}
	}
	defer func() {
		if err != nil {
			say(err.Error())
		}
	}()
	if o.RemoveDir != "" {
		defer os.RemoveAll(o.RemoveDir)
	}
	var logFile *engine.LogFile // the engine's log, rotated; stdout and stderr follow it
	defer func() {
		if logFile != nil {
			logFile.Close()
		}
	}()
	he, err := startHosted(&o.Run, o.Lead, o.Prefix, true, func(c *engine.Config) {
		c.Socket, c.ScreenCols, c.ScreenRows = o.Socket, o.Cols, o.Rows
		if lf, err := engine.OpenLog(engineLog(c.Run)); err == nil && lf.CaptureStd() == nil {
			logFile, c.Log = lf, engine.NewLogger(lf)
		}
	})
	if err != nil {
		return err
	}
	he.host.SetScriptedLead(o.ScriptedLead)
	var unwatched <-chan struct{}
	if o.EndUnwatched > 0 {
		unwatched = he.watch.after(o.EndUnwatched)
	}
	cp, run := he.cp, he.cp.Run()
	fmt.Fprintf(o.IO.Err, "%s cockpit engine: pid %d serving %s at %s\n", time.Now().Format(time.RFC3339), os.Getpid(), run.Manifest.Display, cp.SocketPath())
	say("ok")
	why := "the run was ended"
	select {
	case <-cp.Stopping():
	case <-ctx.Done():
		why = "the engine was stopped by a signal"
	case <-unwatched:
		why = fmt.Sprintf("no screen was attached for %s", o.EndUnwatched)
	}
	fmt.Fprintf(o.IO.Err, "%s cockpit engine: %s; closing the panes\n", time.Now().Format(time.RFC3339), why)
	return he.end(why)
}

// hosted is a started engine with its screen host (screens attach through
// the engine's socket), registered in the user's registry of live engines:
// what `cockpit engine` and `cockpit serve` run.
type hosted struct {
	cp         *engine.Engine
	host       *host.Host
	reg        *registry.Registration
	removeShim func()
	watch      *screenWatch
	procs      func() // gives the process its processors back (procgov.Start)
}

// screenWatch counts the screens attached through the host, so an engine
// can end once none has been attached for a while (after).
type screenWatch struct {
	mu     sync.Mutex
	n      int
	grace  time.Duration
	timer  *time.Timer
	fire   chan struct{}
	closed bool
}

func newScreenWatch() *screenWatch { return &screenWatch{fire: make(chan struct{})} }

// wrap counts the screens that attach hook serves.
func (w *screenWatch) wrap(hook func(context.Context, io.ReadWriteCloser, json.RawMessage) error) func(context.Context, io.ReadWriteCloser, json.RawMessage) error {
	return func(ctx context.Context, conn io.ReadWriteCloser, raw json.RawMessage) error {
		w.mu.Lock()
		w.n++
		if w.timer != nil {
			w.timer.Stop()
		}
		w.mu.Unlock()
		defer func() {
			w.mu.Lock()
			w.n--
			w.arm()
			w.mu.Unlock()
		}()
		return hook(ctx, conn, raw)
	}
}

// after returns a channel closed once no screen has been attached for d,
// counted from now if none is attached now (the timer is a single
// time.AfterFunc, armed only while no screen is attached: no polling).
func (w *screenWatch) after(d time.Duration) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.grace = d
	w.arm()
	return w.fire
}

// arm starts the grace timer when no screen is attached; w.mu is held.
func (w *screenWatch) arm() {
	if w.grace <= 0 || w.n > 0 || w.closed {
		return
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	w.timer = time.AfterFunc(w.grace, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.n == 0 && !w.closed {
			w.closed = true
			close(w.fire)
		}
	})
}

// startHosted starts the engine on the run (startEngine) with a screen host
// for prefix, and registers it; withLog records the engine's log file (the
// daemon's) in the registry entry.
func startHosted(r *runFlags, lead []string, prefix string, withLog bool, tune func(*engine.Config)) (*hosted, error) {
	h := host.New(prefix)
	watch := newScreenWatch()
	var logger *slog.Logger
	cp, removeShim, err := startEngine(r, lead, func(c *engine.Config) {
		tune(c)
		c.Attach = watch.wrap(h.Attach)
		logger = c.Log
	})
	if err != nil {
		return nil, err
	}
	h.SetEngine(cp)
	// One processor while the panes are quiet: a key's echo crosses its
	// goroutines on one thread (internal/procgov, DECISIONS 88).
	procs := procgov.Start(func(n int) {
		if logger == nil {
			return
		}
		why := "pane output quiet"
		if n > 1 {
			why = "pane output over 2.5 MB/s"
		}
		logger.Info("engine processors", "procs", n, "why", why)
	})
	run := cp.Run()
	entry := registry.Entry{
		Name: registry.BaseName(run.Manifest.TaskKey, run.Manifest.RunSeq, run.Manifest.Display),
		PID:  os.Getpid(), Socket: cp.SocketPath(), ProjectRoot: run.Root.Dir(), RunManifest: run.Manifest.Display,
		TaskKey: run.Manifest.TaskKey, Started: cp.Started(),
	}
	if withLog {
		entry.Log = filepath.Join(run.StateDir(), engineLogName)
	}
	reg, err := registry.Register(entry)
	if err != nil {
		cp.Close()
		removeShim()
		procs()
		return nil, err
	}
	return &hosted{cp: cp, host: h, reg: reg, removeShim: removeShim, watch: watch, procs: procs}, nil
}

// end tells every attached screen why the run ends (waiting a little for
// them to go), closes the engine (every pane gets its hang-up), and leaves
// the registry.
func (e *hosted) end(why string) error {
	e.host.EndAll(attach.Outcome{Reason: attach.ReasonRunEnded, Message: why}, 5*time.Second)
	err := e.cp.Close()
	e.reg.Close()
	e.removeShim()
	e.procs()
	return err
}

// startEngine starts the engine on the run with lead in its lead pane (none
// when empty), the okstra shim first on the lead's PATH; tune adjusts the
// config. stop removes the shim once the engine is closed.
func startEngine(r *runFlags, lead []string, tune func(*engine.Config)) (cp *engine.Engine, stop func(), err error) {
	run, err := r.load()
	if err != nil {
		return nil, nil, err
	}
	self, err := selfPath()
	if err != nil {
		return nil, nil, err
	}
	cfg := engine.Config{Run: run, Self: self, Lead: lead}
	if tune != nil {
		tune(&cfg)
	}
	stop = func() {}
	if len(lead) > 0 {
		shim, removeShim, err := runShim(run, self)
		if err != nil {
			return nil, nil, err
		}
		cfg.LeadPath, stop = []string{shim}, removeShim
	}
	if cp, err = engine.Start(cfg); err != nil {
		stop()
		return nil, nil, err
	}
	return cp, stop, nil
}

// spawnEngine starts `self engine args...` as a daemon: its own session,
// stdin /dev/null, stdout and stderr appended to logPath, and waits for
// the line it writes on the inherited ready pipe (at most
// engineReadyTimeout). An engine that says anything but ok, or exits
// without a word, is an error naming its log.
func spawnEngine(self string, args []string, logPath string) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		w.Close()
		return err
	}
	defer devnull.Close()
	lf, err := engine.OpenLog(logPath) // never through a planted symlink
	if err != nil {
		w.Close()
		return err
	}
	defer lf.Close()
	logf := lf.File()
	cmd := exec.Command(self, append([]string{"engine", "--ready-fd", "3"}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, logf, logf
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("start the engine: %w", err)
	}
	go cmd.Wait() // reaped while we live; init's afterwards
	line := make(chan string, 1)
	go func() {
		l, err := bufio.NewReader(r).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			l = ""
		}
		line <- strings.TrimSpace(l)
	}()
	select {
	case l := <-line:
		switch l {
		case "ok":
			return nil
		case "":
			return fmt.Errorf("the engine exited before it was ready; see %s", logPath)
		default:
			return errors.New(l)
		}
	case <-time.After(engineReadyTimeout):
		_ = cmd.Process.Signal(syscall.SIGTERM)
		return fmt.Errorf("the engine was not ready after %s; see %s", engineReadyTimeout, logPath)
	}
}

// engineArgs are the engine's flags for a run (and its lead, if any).
func engineArgs(root, manifest, socket string, cols, rows int, prefix string, lead []string) []string {
	args := []string{"--project-root", root, "--run-manifest", manifest, "--prefix", prefix}
	if socket != "" {
		args = append(args, "--socket", socket)
	}
	if cols > 0 && rows > 0 {
		args = append(args, "--cols", strconv.Itoa(cols), "--rows", strconv.Itoa(rows))
	}
	if len(lead) > 0 {
		args = append(append(args, "--lead", "--"), lead...)
	}
	return args
}

// engineLog is the engine's log path for run.
func engineLog(run *state.Run) string { return filepath.Join(run.StateDir(), engineLogName) }

// shimDirName is the directory of the lead's okstra shim in the run's
// state directory.
const shimDirName = "cockpit-bin"

// runShim puts the lead's okstra shim (an okstra symlink to the cockpit
// binary self) in the run's state directory, replacing the one an engine
// killed with SIGKILL left: a run has at most one, and nothing of it is
// left in the temp dir (issue 19). A state directory whose path holds a
// ':' cannot be on PATH; the shim then goes to a fresh temp dir
// (okstraShim). remove deletes it.
func runShim(run *state.Run, self string) (dir string, remove func(), err error) {
	dir = filepath.Join(run.StateDir(), shimDirName)
	if strings.Contains(dir, ":") {
		return okstraShim(self)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", nil, fmt.Errorf("make the okstra shim directory: %w", err)
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return "", nil, fmt.Errorf("make the okstra shim directory %s: it is not a directory; remove it", dir)
	}
	// Replace by rename: a symlink planted at the name is replaced, never
	// followed.
	tmp := filepath.Join(dir, fmt.Sprintf(".%s-%d", okstraName, os.Getpid()))
	os.Remove(tmp)
	if err := os.Symlink(self, tmp); err != nil {
		return "", nil, fmt.Errorf("make the okstra shim: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, okstraName)); err != nil {
		os.Remove(tmp)
		return "", nil, fmt.Errorf("make the okstra shim: %w", err)
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}
