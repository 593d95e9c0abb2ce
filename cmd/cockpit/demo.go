package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/demo"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/tui"
)

// DemoOptions are the flags of `demo`.
type DemoOptions struct {
	IO       *IOStreams
	Ctx      context.Context
	Headless bool // also when stdout is not a terminal
	Backend  string
	Keep     bool
	Prefix   string // $COCKPIT_PREFIX, or ctrl+b
	Alerts   alertsFlag
	// Grace is how long the demo's engine waits for a screen once the
	// last one has gone before it ends the run (--grace).
	Grace time.Duration
	// SlowWork is how long the slow worker works (hidden --slow-work; the
	// tests shorten it).
	SlowWork time.Duration
}

// demoGrace is how long a demo's engine outlives its last screen: long
// enough to detach on purpose and attach again, short enough that a closed
// terminal does not leave a demo running (docs/DECISIONS.md).
const demoGrace = time.Minute

// demoBackends are the values of demo --backend.
// cmux-pane is okstra's value for workers in panes (seed 000), which the
// cockpit serves; cockpit-pane, the cockpit's older name, is still taken
// but no longer offered.
var demoBackends = []string{state.BackendCmuxPane, state.BackendCLIWrapper}

// NewCmdDemo parses and checks `demo`; runF (demoRun when nil) does it.
func NewCmdDemo(f *Factory, runF func(*DemoOptions) error) *cobra.Command {
	opts := &DemoOptions{IO: f.IO, Prefix: f.envOr("COCKPIT_PREFIX", tui.DefaultPrefix)}
	cmd := &cobra.Command{
		Use:   "demo [--headless] [--backend cmux-pane|cli-wrapper] [--grace <duration>] [--keep]",
		Short: "Try the cockpit on a throwaway run with simulated workers (no LLM CLI needed)",
		Long: `demo makes a throwaway okstra run in a temp dir and opens the cockpit on it. Its
lead pane plays a lead agent: it dispatches four workers of the built-in sim
provider (one fails, one works for about a minute: time to try focus, zoom,
scroll and search on a live pane), awaits them, reclaims their panes and asks
you a question at a gate. The screen starts in navigation: ? lists the keys.

ctrl+b d detaches: the demo goes on, and cockpit attach NAME (the name it
prints, also in cockpit ls) brings it back. Its engine ends the run when no
screen has been attached for --grace (1m), when you end it (q e), or with
cockpit stop NAME; it then removes its temp dir and its copy of the cockpit
binary (--keep leaves the run's files). With --headless, or when stdout is not
a terminal, it tells the same story as lines; --backend cli-wrapper runs the
batch with worker-dispatch instead of panes.`,
		Example: `  cockpit demo
  cockpit demo --headless
  go run ./cmd/cockpit demo     # the first build takes a while: see README`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Alerts.check(); err != nil {
				return err
			}
			p, err := tui.ParsePrefix(opts.Prefix)
			if err != nil {
				return &usageError{fmt.Errorf("$COCKPIT_PREFIX: %w", err)}
			}
			opts.Prefix = p
			if opts.Grace <= 0 {
				return &usageError{fmt.Errorf("--grace %s: give a positive duration such as 1m or 30s", opts.Grace)}
			}
			opts.Ctx = cmd.Context()
			if !opts.IO.IsStdoutTTY() {
				opts.Headless = true
			}
			if runF != nil {
				return runF(opts)
			}
			return demoRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Headless, "headless", false, "print the story as lines instead of opening the screen")
	enumVar(cmd, &opts.Backend, "backend", state.BackendCmuxPane, "cmux-pane (workers in panes) or cli-wrapper (worker-dispatch)",
		func(v string) bool { return v == state.BackendCockpitPane }, demoBackends...)
	cmd.Flags().BoolVar(&opts.Keep, "keep", false, "keep the demo run's temp dir")
	cmd.Flags().DurationVar(&opts.Grace, "grace", demoGrace, "end the demo once no screen has been attached for this `duration`")
	cmd.Flags().DurationVar(&opts.SlowWork, "slow-work", demo.SlowWork, "how long the slow worker works")
	_ = cmd.Flags().MarkHidden("slow-work")
	opts.Alerts.add(f, cmd)
	cmd.AddCommand(NewCmdDemoLead(f, nil))
	return cmd
}

func demoRun(o *DemoOptions) error {
	if !o.Headless {
		return demoScreen(o)
	}
	return demoHeadless(o)
}

// demoSetup lays out the throwaway demo run in a new temp dir and returns
// it with the cockpit binary and a cleanup that removes the dir (unless
// --keep).
type demoSetup struct {
	self, dir, root string
	run             *state.Run
	cleanup         func()
}

func newDemo(o *DemoOptions) (*demoSetup, error) {
	self, err := selfPath()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "cockpit-demo-")
	if err != nil {
		return nil, err
	}
	d := &demoSetup{self: self, dir: dir, root: filepath.Join(dir, "project")}
	d.cleanup = func() {
		if o.Keep {
			fmt.Fprintf(o.IO.Err, "kept the demo run in %s\n", dir)
			return
		}
		os.RemoveAll(dir)
	}
	if d.run, err = demo.MakeRun(d.root, demo.Options{Backend: o.Backend, SlowWork: slowWork(o)}); err != nil {
		d.cleanup()
		return nil, err
	}
	return d, nil
}

// demoHeadless tells the demo's story as lines (demo.Headless).
func demoHeadless(o *DemoOptions) error {
	d, err := newDemo(o)
	if err != nil {
		return err
	}
	defer d.cleanup()
	return demo.Headless(o.Ctx, demo.HeadlessConfig{Self: d.self, Dir: d.dir, Run: d.run, Out: o.IO.Out})
}

// demoScreen starts an engine for the demo run and attaches this terminal
// to it, so the demo too can be detached and attached again. The lead pane
// runs the hidden `cockpit demo lead`, which plays a lead agent: it calls
// the real team commands, so the panes, counts and checkpoints on screen
// are the ones a real run shows. The engine outlives this command, and `go
// run` deletes the binary it built when it exits: the engine and its panes
// run a copy of the cockpit kept in the demo's dir, which the engine
// removes when the run ends (unless --keep).
func demoScreen(o *DemoOptions) error {
	in, out, p, err := screenParams(o.IO, false, o.Alerts)
	if err != nil {
		return err
	}
	d, err := newDemo(o)
	if err != nil {
		return err
	}
	bin := filepath.Join(d.dir, "bin", "cockpit")
	if err := copyExecutable(d.self, bin); err != nil {
		d.cleanup()
		return err
	}
	sock := control.FitSocketPath(filepath.Join(d.dir, "cockpit.sock")) // a long $TMPDIR: the short fallback
	args := engineArgs(d.root, d.run.Manifest.Display, sock, p.Cols, p.Rows, o.Prefix, []string{bin, "demo", "lead"})
	// The demo's lead is a script: its screen starts in navigation, so the
	// keys its intro lists drive the screen.
	args = append([]string{"--scripted-lead"}, args...)
	// The engine removes the temp dir when the run ends, or only the copy
	// of the binary with --keep.
	remove := d.dir
	if o.Keep {
		remove = filepath.Dir(bin)
		fmt.Fprintf(o.IO.Err, "the demo run is in %s; it is kept when the run ends\n", d.dir)
	}
	args = append([]string{"--remove-dir", remove, "--end-unwatched", o.Grace.String()}, args...)
	if err := spawnEngine(bin, args, engineLog(d.run)); err != nil {
		d.cleanup()
		return err
	}
	conn, hello, err := dialScreen(o.Ctx, sock, "demo", p)
	if err != nil {
		return err
	}
	return runClient(o.IO, conn, in, out, p, hello, comeBack{socket: sock, bySocket: true,
		note: fmt.Sprintf("the demo ends once no screen has been attached for %s", demo.ShortDuration(o.Grace))})
}

// copyExecutable copies the binary at src to dst (made with its directory).
func copyExecutable(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copy the cockpit binary: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o700)
	if err != nil {
		return fmt.Errorf("copy the cockpit binary: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy the cockpit binary: %w", err)
	}
	return out.Close()
}

// DemoLeadOptions are what the demo's scripted lead needs.
type DemoLeadOptions struct {
	IO  *IOStreams
	Ctx context.Context
}

// NewCmdDemoLead is what the demo's lead pane runs: a scripted lead agent.
func NewCmdDemoLead(f *Factory, runF func(*DemoLeadOptions) error) *cobra.Command {
	opts := &DemoLeadOptions{IO: f.IO}
	return &cobra.Command{
		Use:    "lead",
		Short:  "The demo's scripted lead (runs in the demo's lead pane)",
		Hidden: true,
		Args:   noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return demoLead(opts)
		},
	}
}

func demoLead(o *DemoLeadOptions) error {
	self, err := selfPath()
	if err != nil {
		return err
	}
	bold := func(s string) string { return "\x1b[1m" + s + "\x1b[0m" }
	dim := func(s string) string { return "\x1b[2m" + s + "\x1b[0m" }
	say := func(s string) { fmt.Fprintln(o.IO.Out, s) }
	step := func(args ...string) error {
		say(bold("$ cockpit " + strings.Join(args, " ")))
		cmd := exec.Command(self, args...)
		cmd.Stdout, cmd.Stderr = o.IO.Out, o.IO.Out
		return cmd.Run()
	}
	pause := func(d time.Duration) { time.Sleep(d) }
	say(bold("cockpit demo") + " — this pane plays the lead agent of a throwaway okstra run.")
	say(dim("Four simulated workers (sim provider, no LLM CLI): one fails, Claude's works for about a minute."))
	say(dim("? lists the keys. While Claude's analyser works, try moving focus to it, zooming it, scrolling and searching."))
	say("")
	pause(1500 * time.Millisecond)
	if err := step("team", "dispatch", "--jobs-file", demo.JobsInitial); err != nil {
		return err
	}
	say("")
	if err := step("team", "await"); err != nil {
		return err
	}
	say("")
	pause(1500 * time.Millisecond)
	say(dim("Every worker is done: reclaim their panes at the batch boundary."))
	if err := step("team", "reclaim"); err != nil {
		return err
	}
	say("")
	pause(1000 * time.Millisecond)
	say(dim("A question only you can answer: the lead records it, then asks you in the cockpit."))
	quiet := exec.Command(self, demo.GateArgs()...)
	if out, err := quiet.CombinedOutput(); err != nil {
		return fmt.Errorf("approval-decision open: %v: %s", err, out)
	}
	if err := step("gate", "ask", "--ledger", demo.Approvals, "--clarification-id", demo.GateID); err != nil {
		return err
	}
	say("")
	say(bold("The demo is over.") + " q, then e, ends the run (ctrl+b first if you are typing in this pane); ctrl+b d detaches.")
	<-o.Ctx.Done() // keep the lead's pane alive until the screen ends (its hang-up)
	return nil
}

// slowWork is the slow worker's time: paced for the screen, where keys are
// tried on it; as before (sim-slow-10s) for the headless story.
func slowWork(o *DemoOptions) time.Duration {
	if o.Headless {
		return 0
	}
	return o.SlowWork
}
