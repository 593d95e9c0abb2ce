package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/lifecycle"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/runtime/watch"
	"github.com/okstra/cockpit/state"
)

// loop rebuilds the view on file events, pane exits and gate changes.
func (c *Engine) loop() {
	defer c.wg.Done()
	for {
		var batch []watch.FileEvent
		full := false
		select {
		case <-c.done:
			return
		case <-c.rebuild:
			full = true
		case batch = <-c.watch.Events():
		case err := <-c.watch.Errors():
			// Events may have been lost: look at everything.
			c.log.Warn("watcher overflow: rescanning every dispatch", "err", errString(err))
			full = true
		}
		c.refresh(batch, full)
	}
}

// refresh brings the view up to date with what changed, in three steps:
// classify the events, settle the dispatches they concern, build the view.
// A sidecar event settles that sidecar's dispatch only; a team-state change
// looks at the dispatches not seen before; a full refresh (start, pane
// exit, gate, watcher overflow) looks at every pending dispatch. So the
// work per event does not grow with the number of workers.
func (c *Engine) refresh(batch []watch.FileEvent, full bool) {
	if changed, only := c.usageEvents(batch, full); only {
		if changed {
			c.publishUsage()
		}
		return
	}
	ch := classify(batch, full)
	ts, problem, err := c.settle(ch)
	if err != nil {
		c.log.Warn("team-state unreadable", "err", errString(err))
		c.setErr(err)
		return
	}
	c.trackUsage(ts)
	c.buildView(ts, ch, problem)
}

// changes is what a batch of events says to look at again.
type changes struct {
	full         bool            // everything: start, pane exit, gate, overflow
	sidecars     map[string]bool // sidecars written (absolute paths)
	exited       map[int]bool    // wrapper pids seen exit
	ledger       bool            // the timeline's ledger changed
	taskManifest bool            // the next-phase pointer may have changed
}

// classify sorts a batch of watcher events into what must be read again.
func classify(batch []watch.FileEvent, full bool) changes {
	ch := changes{full: full, sidecars: map[string]bool{}, exited: map[int]bool{}, ledger: full, taskManifest: full}
	for _, ev := range batch {
		switch ev.Kind {
		case watch.EvSidecar:
			ch.sidecars[ev.Path] = true
		case watch.EvProcessExit:
			ch.exited[ev.PID] = true
		case watch.EvLedger:
			ch.ledger = true
		case watch.EvOther:
			ch.taskManifest = true
		}
	}
	return ch
}

// settle reads team-state, asks the sidecars of the dispatches ch concerns
// for their verdicts and records the terminal ones under the team-state
// lock. It returns team-state as it stands after, and a problem to show
// when recording failed (then it is tried again: see below).
func (c *Engine) settle(ch changes) (*state.TeamState, string, error) {
	run := c.run
	ts, err := run.TeamState()
	if err != nil {
		return nil, "", err
	}
	verdicts := map[string]lifecycle.Verdict{}
	for i := range ts.WorkerDispatches {
		d := &ts.WorkerDispatches[i]
		if d.Terminal() || d.StatusPath == "" {
			continue
		}
		w, seen := c.seen[d.DispatchID]
		if !ch.full && seen && !ch.sidecars[w.name] && !ch.sidecars[w.target] && !ch.exited[d.PID] && !ch.exited[w.pid] {
			continue
		}
		// Resolved at every read, never remembered: a sidecar that is a
		// symlink may be swapped, and only what its name leads to now
		// speaks for the dispatch.
		sp, err := run.Root.Resolve(d.StatusPath, "statusPath")
		if err != nil {
			c.log.Warn("sidecar path refused", "dispatch", d.DispatchID, "pane", d.PaneID, "err", errString(err))
			continue
		}
		probe := *d
		if probe.PID == 0 && seen {
			// The wrapper the sidecar named at its last read: while it
			// lives, a sidecar that cannot be read now (replaced by a FIFO,
			// say) is not its end.
			probe.PID = w.pid
		}
		v := lifecycle.SettleVerdict(run.Root.Dir(), sp, &probe, c.watch)
		name := filepath.Join(run.Root.Dir(), d.StatusPath)
		if filepath.IsAbs(d.StatusPath) {
			name = filepath.Clean(d.StatusPath)
		}
		if !seen || ch.full || w.target != sp {
			// The name (a write, or a symlink put in its place) and what
			// it leads to (a write through the link).
			_ = c.watch.Watch(name, watch.EvSidecar)
			if sp != name {
				_ = c.watch.Watch(sp, watch.EvSidecar)
			}
		}
		pid := v.PID
		if pid == 0 {
			// Unreadable now (a FIFO in its place): the wrapper it named
			// last still speaks for it.
			pid = probe.PID
		}
		c.seen[d.DispatchID] = sidecarWatch{name: name, target: sp, pid: pid}
		for _, pid := range []int{d.PID, v.PID} {
			if pid > 0 {
				c.watch.WatchPID(pid)
			}
		}
		if v.Status != "" {
			verdicts[d.DispatchID] = v
		}
	}
	if len(verdicts) == 0 {
		return ts, "", nil
	}
	written, _, err := lifecycle.RecordVerdicts(context.Background(), run, verdicts)
	if err == nil {
		c.logVerdicts(written, verdicts)
		return written, "", nil
	}
	c.log.Error("settle not recorded; retrying in 1s", "dispatches", strings.Join(slices.Sorted(maps.Keys(verdicts)), ","), "err", errString(err))
	// Shown in the view, and looked at again on the next event: the
	// settle did not happen.
	for id := range verdicts {
		delete(c.seen, id)
	}
	// No file event may come to retry it (the sidecar is final), so try
	// again in a second — only after a failure, never as polling.
	time.AfterFunc(time.Second, c.kick)
	return ts, err.Error(), nil
}

// buildView makes the new RunView from team-state, the files ch says
// changed and the waiting gates, and publishes it when it differs.
func (c *Engine) buildView(ts *state.TeamState, ch changes, problem string) {
	run := c.run
	c.mu.Lock()
	v := c.view
	c.mu.Unlock()
	v.Err = problem
	v.Title, v.Backend = runTitle(run), run.Manifest.TerminalBackend
	v.Dispatches = ts.WorkerDispatches
	v.BatchKind, v.Batch = currentBatch(ts.WorkerDispatches)
	v.Usage = c.usageView()
	if ch.ledger {
		err := c.ledger.read(run.LeadEventsPath, run.Manifest.LeadEventsPath)
		v.Timeline, v.TimelineTotal = c.ledger.timeline()
		if err != nil {
			c.log.Warn("ledger unreadable", "err", errString(err))
			if v.Err == "" {
				v.Err = err.Error()
			}
		}
	}
	if ch.taskManifest {
		np, err := readNextPhase(run)
		v.Next = np
		if err != nil {
			c.log.Warn("task manifest unreadable", "err", errString(err))
			if v.Err == "" {
				v.Err = err.Error()
			}
		}
	}
	c.broker.update(func() (view.Event, bool) {
		c.mu.Lock()
		defer c.mu.Unlock()
		v.Gates = nil
		for _, g := range c.gates {
			v.Gates = append(v.Gates, g.gate)
		}
		if reflect.DeepEqual(c.view, v) {
			return nil, false
		}
		c.view = v
		return view.ViewUpdated{View: v}, true
	})
}

// logVerdicts records each settle decision: the dispatch, its pane, the
// status and reason its sidecar gave, and the wrapper that gave it.
func (c *Engine) logVerdicts(ts *state.TeamState, verdicts map[string]lifecycle.Verdict) {
	for _, d := range ts.WorkerDispatches {
		v, ok := verdicts[d.DispatchID]
		if !ok {
			continue
		}
		attrs := []any{"dispatch", d.DispatchID, "pane", d.PaneID, "status", string(v.Status), "reason", control.Clip(v.Reason), "wrapperPid", v.PID}
		if v.Exit != nil {
			attrs = append(attrs, "exit", *v.Exit)
		}
		if d.Status != v.Status {
			// Someone settled it first (a teardown): its record stands.
			attrs = append(attrs, "recorded", string(d.Status))
		}
		c.log.Info("dispatch settled", attrs...)
	}
}

// sidecarWatch is what the engine watches of one dispatch's sidecar: its
// name in the run, the file that name led to at the last read (the same
// unless a symlink), and the wrapper pid it named.
type sidecarWatch struct {
	name, target string
	pid          int
}

// pathResolver resolves run-file paths inside the project root, at every
// call: a path is never remembered, since a symlink on it may be swapped
// between two reads (a cached sidecar path once settled a running worker
// from a file its sidecar no longer named).
type pathResolver struct{}

func (pathResolver) resolve(run *state.Run, rel string) (string, error) {
	return run.Root.Resolve(rel, "path")
}

func (c *Engine) setErr(err error) {
	c.broker.update(func() (view.Event, bool) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.view.Err = err.Error()
		return view.ViewUpdated{View: c.view}, true
	})
}

func runTitle(run *state.Run) string {
	m := run.Manifest
	return strings.TrimSpace(fmt.Sprintf("%s %s %s", m.TaskKey, m.TaskType, m.RunSeq))
}

// currentBatch counts the dispatches of the most recent dispatch command:
// the same kind and dispatch time as the last one.
func currentBatch(ds []state.Dispatch) (state.DispatchKind, view.Counts) {
	if len(ds) == 0 {
		return "", view.Counts{}
	}
	last := ds[len(ds)-1]
	var c view.Counts
	for i := range ds {
		if ds[i].DispatchKind == last.DispatchKind && ds[i].DispatchedAt == last.DispatchedAt {
			if ds[i].Terminal() {
				c.Done++
			} else {
				c.Pending++
			}
		}
	}
	return last.DispatchKind, c
}

func readNextPhase(run *state.Run) (*state.NextPhase, error) {
	p := run.Manifest.TaskManifestPath
	if p == "" {
		return nil, nil
	}
	abs, err := run.Root.Resolve(p, "taskManifestPath")
	if err != nil {
		return nil, err
	}
	np, err := state.ReadNextPhase(abs, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return np, err
}
