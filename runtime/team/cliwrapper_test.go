package team

import (
	"context"
	"errors"
	"github.com/okstra/cockpit/runtime/lifecycle"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/runtime/watch"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/workers"
)

// sigCause is a context cause naming a signal, as cmd/cockpit's signal
// context makes it.
type sigCause struct{ sig syscall.Signal }

func (e *sigCause) Error() string        { return "interrupted by " + e.sig.String() }
func (e *sigCause) Signal() os.Signal    { return e.sig }
func (e *sigCause) Is(target error) bool { return target == context.Canceled }

// cliBatch plans the fixture's initial batch on a cli-wrapper run.
func cliBatch(t *testing.T) (*state.Run, *lifecycle.Batch) {
	t.Helper()
	root := fixture.Copy(t)
	fixture.SetTerminalBackend(t, root, state.BackendCLIWrapper)
	run, err := state.LoadRun(root, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := workers.LoadCatalog(root)
	if err != nil {
		t.Fatal(err)
	}
	b, err := lifecycle.PlanBatch(run, cat, filepath.Join(root, fixture.JobsInitial), "")
	if err != nil {
		t.Fatal(err)
	}
	return run, b
}

// A signal before anything is recorded: nothing is, and the result names
// the signal.
func TestCLIWrapperOnAnEndedContextRecordsNothing(t *testing.T) {
	run, b := cliBatch(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&sigCause{syscall.SIGINT})
	res, err := RunCLIWrapper(ctx, b, "/nonexistent/cockpit")
	if !errors.Is(err, context.Canceled) || res == nil || res.Signal != syscall.SIGINT {
		t.Fatalf("RunCLIWrapper on an ended context: %+v, %v; want context.Canceled and SIGINT", res, err)
	}
	ts, err := state.ReadTeamState(run.TeamStatePath, "team-state")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts.WorkerDispatches) != 0 {
		t.Fatalf("%d dispatches recorded after the signal", len(ts.WorkerDispatches))
	}
}

// wrapperScript stands in for `cockpit worker exec`: it says it is ready,
// then waits, and writes which signal came (once: it exits on it).
const wrapperScript = `#!/bin/sh
d=$(dirname "$0")
sleep 60 & p=$!
trap 'echo INT >> "$d/got"; kill $p; exit 0' INT
trap 'echo TERM >> "$d/got"; kill $p; exit 0' TERM
trap 'echo HUP >> "$d/got"; kill $p; exit 0' HUP
echo $$ >> "$d/ready"
wait $p
`

// The signal that ended the context (its cause) reaches every wrapper,
// once; the batch is settled and the result names the signal. The engine
// catches no signal itself: only the context carries it.
func TestCLIWrapperPassesTheCausesSignalOn(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			// A test run under nohup (or as a background job) starts with
			// the signal ignored, and an ignored signal stays ignored in
			// every child, where the stand-in's shell cannot even trap it.
			// Catching it here makes the children start with the default.
			caught := make(chan os.Signal, 1)
			signal.Notify(caught, sig)
			defer signal.Stop(caught)
			run, b := cliBatch(t)
			dir := t.TempDir()
			self := filepath.Join(dir, "cockpit")
			if err := os.WriteFile(self, []byte(wrapperScript), 0o755); err != nil {
				t.Fatal(err)
			}
			w, err := watch.NewWatcher()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := w.Watch(filepath.Join(dir, "ready"), watch.EvOther); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			type out struct {
				res *DispatchResult
				err error
			}
			done := make(chan out, 1)
			go func() {
				res, err := RunCLIWrapper(ctx, b, self)
				done <- out{res, err}
			}()
			// Wait, on the directory's events, until every wrapper is ready.
			deadline := time.After(20 * time.Second)
			for {
				ready := lines(filepath.Join(dir, "ready"))
				if len(ready) == len(b.Jobs) {
					break
				}
				select {
				case <-w.Events():
				case <-deadline:
					t.Fatalf("%d of %d wrappers ready", len(ready), len(b.Jobs))
				}
			}
			cancel(&sigCause{sig})
			var o out
			select {
			case o = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("RunCLIWrapper still runs 20s after the signal")
			}
			if o.err != nil || o.res.Signal != sig || len(o.res.Dispatches) != len(b.Jobs) {
				t.Fatalf("result %+v, %v; want the settled batch and %v", o.res, o.err, sig)
			}
			got := lines(filepath.Join(dir, "got"))
			if len(got) != len(b.Jobs) {
				t.Fatalf("the wrappers got %q, want one signal each", got)
			}
			want := map[syscall.Signal]string{syscall.SIGINT: "INT", syscall.SIGHUP: "HUP"}[sig]
			for _, g := range got {
				if g != want {
					t.Errorf("a wrapper got %s, want %s", g, want)
				}
			}
			ts, err := state.ReadTeamState(run.TeamStatePath, "team-state")
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ts.WorkerDispatches {
				if !d.Terminal() {
					t.Errorf("%s is %s after the batch", d.DispatchID, d.Status)
				}
			}
		})
	}
}

// lines are the lines of the file at path (none when it is missing).
func lines(path string) []string {
	data, _ := os.ReadFile(path)
	return strings.Fields(string(data))
}
