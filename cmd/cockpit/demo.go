package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime"
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
}

// demoBackends are the values of demo --backend.
var demoBackends = []string{state.BackendCockpitPane, state.BackendCLIWrapper}

// NewCmdDemo parses and checks `demo`; runF (demoRun when nil) does it.
func NewCmdDemo(f *Factory, runF func(*DemoOptions) error) *cobra.Command {
	opts := &DemoOptions{IO: f.IO, Prefix: f.envOr("COCKPIT_PREFIX", tui.DefaultPrefix)}
	cmd := &cobra.Command{
		Use:   "demo [--headless] [--backend cockpit-pane|cli-wrapper]",
		Short: "Show the cockpit on a throwaway run with simulated workers (no LLM CLI needed)",
		Long: `demo builds a throwaway okstra run in a temp dir whose four workers use the
built-in sim provider (one fails, one is slow), dispatches them, shows the counts
move and ends with a reclaim of the finished panes. With --headless it prints the
same story as lines; --backend cli-wrapper runs the batch with worker-dispatch
instead of panes. It removes the temp dir when it ends (--keep leaves it).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkEnum("--backend", opts.Backend, demoBackends...); err != nil {
				return err
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
	cmd.Flags().StringVar(&opts.Backend, "backend", state.BackendCockpitPane, "cockpit-pane (workers in panes) or cli-wrapper (worker-dispatch)")
	cmd.Flags().BoolVar(&opts.Keep, "keep", false, "keep the demo run's temp dir")
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
	if d.run, err = runtime.MakeDemoRun(d.root, o.Backend); err != nil {
		d.cleanup()
		return nil, err
	}
	return d, nil
}

func demoHeadless(o *DemoOptions) error {
	d, err := newDemo(o)
	if err != nil {
		return err
	}
	defer d.cleanup()
	self, dir, root, run := d.self, d.dir, d.root, d.run
	start := time.Now()
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(o.IO.Out, "%5.1fs  %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
	say("cockpit demo: a throwaway okstra run with %d simulated workers (sim provider, no LLM CLI) in %s", len(runtime.DemoWorkers), root)
	for _, w := range runtime.DemoWorkers {
		say("  %-28s model %s", w.Label, w.Model)
	}
	env := append(os.Environ(), "COCKPIT_PROJECT_ROOT="+root, "COCKPIT_RUN_MANIFEST="+runtime.DemoRunManifest)
	lead := func(args ...string) error {
		say("$ cockpit %s", strings.Join(args, " "))
		cmd := exec.Command(self, args...)
		cmd.Dir, cmd.Env = root, env
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			return err
		}
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 16<<20)
		var jsonOut strings.Builder
		for sc.Scan() {
			if args[0] == "worker-dispatch" {
				// Its JSON is for machines; the story shows its PROGRESS lines.
				jsonOut.WriteString(sc.Text())
				continue
			}
			say("    %s", sc.Text())
		}
		if jsonOut.Len() > 0 {
			var res dispatchOutput
			if err := json.Unmarshal([]byte(jsonOut.String()), &res); err == nil {
				for _, l := range res.ProgressLines {
					say("    %s", l)
				}
			}
		}
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("cockpit %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
		}
		return nil
	}
	if o.Backend == state.BackendCLIWrapper {
		say("the run's terminalBackend is cli-wrapper: the batch runs as child processes, no panes")
		if err := lead("worker-dispatch", "--jobs-file", runtime.DemoJobsInitial); err != nil {
			return err
		}
	} else {
		sock := filepath.Join(dir, "cockpit.sock")
		env = append(env, "COCKPIT_SOCKET="+sock)
		cp, err := runtime.StartCockpit(runtime.CockpitConfig{Run: run, Self: self, Socket: sock, Cols: 100, Rows: 30})
		if err != nil {
			return err
		}
		defer cp.Close()
		say("the cockpit serves the run at %s; its events:", sock)
		events, stop := cp.Subscribe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			var wire wireEvents
			for ev := range events {
				for _, m := range wire.next(ev) {
					say("  ▸ %s", eventLine(m))
				}
			}
		}()
		steps := [][]string{
			{"team", "dispatch", "--jobs-file", runtime.DemoJobsInitial},
			{"team", "await"},
			{"team", "reclaim", "--dry-run"},
			{"team", "reclaim"},
			runtime.DemoGateArgs(),
		}
		for _, s := range steps {
			if err := lead(s...); err != nil {
				stop()
				return err
			}
		}
		// A gate: the lead asks, and — no human being here — the story
		// answers with the recommended option, as a person would in the
		// screen's dialog.
		go func() {
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if gates := cp.View().Gates; len(gates) > 0 {
					say("the human answers %s in the screen: option 1, %q", gates[0].ID, gates[0].Options[0].Answer)
					_ = cp.AnswerGate(runtime.GateAnswer{GateID: gates[0].ID, Option: 0, Note: "the demo answered for you"})
					return
				}
			}
		}()
		if err := lead("gate", "ask", "--ledger", runtime.DemoApprovals, "--clarification-id", runtime.DemoGateID); err != nil {
			stop()
			return err
		}
		// Let the last pane-closed events through before the story ends.
		ctx, cancel := context.WithTimeout(o.Ctx, 300*time.Millisecond)
		<-ctx.Done()
		cancel()
		stop()
		<-done
	}
	ts, err := state.ReadTeamState(run.TeamStatePath, run.Manifest.TeamStatePath)
	if err != nil {
		return err
	}
	say("sidecars and results:")
	for _, d := range ts.WorkerDispatches {
		exit := "-"
		if d.ExitCode != nil {
			exit = fmt.Sprint(*d.ExitCode)
		}
		line := fmt.Sprintf("  %s %-28s %-9s exit %s", d.DispatchID, d.ExecutionLabel, d.Status, exit)
		if d.Reason != "" {
			line += "  (" + d.Reason + ")"
		}
		say("%s", line)
		if res, err := os.ReadFile(filepath.Join(root, d.ResultPath)); err == nil {
			first, _, _ := strings.Cut(strings.TrimSpace(string(res)), "\n")
			say("      result %s: %s", d.ResultPath, first)
		}
	}
	say("ledger: %d checkpoints in %s", len(ledgerOf(run)), run.Manifest.LeadEventsPath)
	return nil
}

func ledgerOf(run *state.Run) []state.Event {
	evs, _ := state.ReadEvents(run.LeadEventsPath, run.Manifest.LeadEventsPath)
	return evs
}

// demoScreen opens the screen on the demo run. The lead pane runs the
// hidden `cockpit demo lead`, which plays a lead agent: it calls the real
// team commands, so the panes, counts and checkpoints on screen are the
// ones a real run shows.
func demoScreen(o *DemoOptions) error {
	d, err := newDemo(o)
	if err != nil {
		return err
	}
	defer d.cleanup()
	shim, removeShim, err := okstraShim(d.self)
	if err != nil {
		return err
	}
	defer removeShim()
	cp, err := runtime.StartCockpit(runtime.CockpitConfig{
		Run: d.run, Self: d.self, Socket: filepath.Join(d.dir, "cockpit.sock"),
		Lead: []string{d.self, "demo", "lead"}, LeadPath: []string{shim},
	})
	if err != nil {
		return err
	}
	return runScreen(o.Ctx, cp, o.Prefix)
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
	say(dim("Four simulated workers (sim provider, no LLM CLI): one fails, one is slow."))
	say(dim("Keys: ? help · arrows move focus · z zoom · enter types into a pane · q quit"))
	say("")
	pause(1500 * time.Millisecond)
	if err := step("team", "dispatch", "--jobs-file", runtime.DemoJobsInitial); err != nil {
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
	quiet := exec.Command(self, runtime.DemoGateArgs()...)
	if out, err := quiet.CombinedOutput(); err != nil {
		return fmt.Errorf("approval-decision open: %v: %s", err, out)
	}
	if err := step("gate", "ask", "--ledger", runtime.DemoApprovals, "--clarification-id", runtime.DemoGateID); err != nil {
		return err
	}
	say("")
	say(bold("The demo is over.") + " Press q to quit (ctrl+b first if you are typing in this pane).")
	<-o.Ctx.Done() // keep the lead's pane alive until the screen ends (its hang-up)
	return nil
}
