package demo

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/engine"
	"github.com/okstra/cockpit/state"
)

// HeadlessConfig is what the headless demo runs on.
type HeadlessConfig struct {
	Self string     // the cockpit binary: the lead's steps run it
	Dir  string     // the demo's temp dir (the engine's socket goes here)
	Run  *state.Run // the demo run (MakeRun)
	Out  io.Writer  // the story, one line each, with the time since start
}

// quietGrace is how long the story lets the engine's last events (the
// panes closing after the gate) through before it ends.
const quietGrace = 300 * time.Millisecond

// Headless tells the demo's story on cfg.Out: it drives a Story, taking
// the actions it asks for and feeding it what happens — the lead's steps
// run as child processes of cfg.Self, the engine's events on a pane run. It
// returns when the story finishes or ctx ends.
func Headless(ctx context.Context, cfg HeadlessConfig) error {
	run, root := cfg.Run, cfg.Run.Root.Dir()
	start := time.Now()
	done := make(chan struct{})
	defer close(done)
	events := make(chan any)
	send := func(ev any) {
		select {
		case events <- ev:
		case <-done:
		}
	}
	env := append(os.Environ(), "COCKPIT_PROJECT_ROOT="+root, "COCKPIT_RUN_MANIFEST="+RunManifest)
	var eng *engine.Engine
	defer func() {
		if eng != nil {
			eng.Close()
		}
	}()
	story := NewStory()
	pending := []any{Began{Root: root, Backend: run.Manifest.TerminalBackend}}
	for {
		var ev any
		if len(pending) > 0 {
			ev, pending = pending[0], pending[1:]
		} else {
			select {
			case ev = <-events:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		lines, acts := story.Next(ev)
		for _, l := range lines {
			fmt.Fprintf(cfg.Out, "%5.1fs  %s\n", time.Since(start).Seconds(), l)
		}
		for _, a := range acts {
			switch a := a.(type) {
			case StartEngine:
				sock := control.FitSocketPath(filepath.Join(cfg.Dir, "cockpit.sock")) // a long $TMPDIR: the short fallback
				var err error
				if eng, err = engine.Start(engine.Config{Run: run, Self: cfg.Self, Socket: sock, Cols: 100, Rows: 30}); err != nil {
					return err
				}
				env = append(env, "COCKPIT_SOCKET="+sock)
				sub, stop := eng.Subscribe()
				defer stop()
				go func() {
					for ev := range sub {
						send(EngineEvent{Event: ev})
					}
				}()
				pending = append(pending, EngineStarted{Socket: sock})
			case RunStep:
				go runStep(cfg.Self, root, env, a.Args, send)
			case AnswerGate:
				_ = eng.AnswerGate(a.Answer)
			case WaitQuiet:
				t := time.AfterFunc(quietGrace, func() { send(Quiet{}) })
				defer t.Stop()
			case Summarize:
				sum, err := summarize(run)
				if err != nil {
					return err
				}
				pending = append(pending, sum)
			case Finish:
				return a.Err
			}
		}
	}
}

// runStep runs `self args` in root as the lead would, sending each line it
// prints, then StepDone.
func runStep(self, root string, env, args []string, send func(any)) {
	cmd := exec.Command(self, args...)
	cmd.Dir, cmd.Env = root, env
	out, err := cmd.StdoutPipe()
	if err != nil {
		send(StepDone{Err: err})
		return
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		send(StepDone{Err: err})
		return
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		send(StepOutput{Line: sc.Text()})
	}
	if err := cmd.Wait(); err != nil {
		send(StepDone{Err: fmt.Errorf("cockpit %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))})
		return
	}
	send(StepDone{})
}

// summarize reads what the story tells at its end.
func summarize(run *state.Run) (Summary, error) {
	ts, err := state.ReadTeamState(run.TeamStatePath, run.Manifest.TeamStatePath)
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{Dispatches: ts.WorkerDispatches, Results: map[string]string{}, Ledger: run.Manifest.LeadEventsPath}
	for _, d := range ts.WorkerDispatches {
		if res, err := os.ReadFile(filepath.Join(run.Root.Dir(), d.ResultPath)); err == nil {
			first, _, _ := strings.Cut(strings.TrimSpace(string(res)), "\n")
			sum.Results[d.ResultPath] = first
		}
	}
	evs, _ := state.ReadEvents(run.LeadEventsPath, run.Manifest.LeadEventsPath)
	sum.Checkpoints = len(evs)
	return sum, nil
}
