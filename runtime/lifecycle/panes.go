package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/okstra/cockpit/internal/proc"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/workers"
)

// PaneBackend is the backend a dispatch in a cockpit pane records: the
// run's own pane backend (okstra's cmux-pane, or an early cockpit run's
// cockpit-pane), cmux-pane on any other run.
func PaneBackend(run *state.Run) string {
	if run.Manifest.IsPaneBackend() {
		return run.Manifest.TerminalBackend
	}
	return state.BackendCmuxPane
}

// OpenPanes asks host for one pane per recorded job, in order. Once ctx
// is done (interrupted), the jobs not started yet are reported as not
// started (MarkLaunched writes them off), never left in progress with
// nothing running.
func OpenPanes(ctx context.Context, host PaneHost, run *state.Run, recs []Recorded, self, who string) []Launched {
	launched := make([]Launched, len(recs))
	for i, r := range recs {
		if ctx.Err() != nil {
			launched[i] = Launched{Err: fmt.Errorf("%s was interrupted before starting it", who)}
			continue
		}
		res, err := host.OpenPane(ctx, control.OpenPaneParams{
			Argv:       WorkerArgv(self, run, r.Job, "live"),
			Dir:        run.Root.Dir(),
			Title:      r.Dispatch.ExecutionLabel,
			DispatchID: r.Dispatch.DispatchID,
			Following:  len(recs) - 1 - i,
		})
		launched[i] = Launched{PaneID: res.PaneID, PID: res.PID, Err: err}
	}
	return launched
}

// Started is a batch started in a cockpit's panes (StartInPanes).
type Started struct {
	*Recording
	Launched []Launched
	// Failed says what of the batch did not start (NotStarted) or was not
	// checkpointed; the rest runs.
	Failed error
}

// StartInPanes records the verified batch b (RecordBatch), opens one pane
// per job in host (OpenPanes, who naming the command in errors), records
// where each runs (MarkLaunched) and checkpoints what started into rec:
// `team dispatch` and worker-dispatch on a pane run. An error means the
// batch could not be recorded; what did not start is Started.Failed.
func StartInPanes(ctx context.Context, host PaneHost, b *Batch, self, who string, rec *Recorder) (*Started, error) {
	run := b.Run
	rg, err := RecordBatch(b, PaneBackend(run))
	if err != nil {
		return nil, err
	}
	launched := OpenPanes(ctx, host, run, rg.Recs, self, who)
	// Recording where they run must not be cut short by an interruption.
	if err := MarkLaunched(run, rg.Recs, launched); err != nil {
		return nil, err
	}
	failed := errors.Join(NotStarted(rg.Recs, launched), rg.Checkpoints(rec, launched))
	return &Started{Recording: rg, Launched: launched, Failed: failed}, nil
}

// PaneRef is one pane a closing command acts on.
type PaneRef struct {
	PaneID string `json:"paneId"`
	Kind   string `json:"kind"`
}

// ReclaimResult is what `team reclaim` and `team teardown` report.
type ReclaimResult struct {
	Panes []PaneRef
	Lines []string
}

// ErrNoPanes is returned by reclaim on a run whose backend has no panes.
type ErrNoPanes struct{ Run *state.Run }

func (e *ErrNoPanes) Error() string {
	return fmt.Sprintf("this run's terminalBackend is %s: it holds no panes to reclaim. Record the batch boundary with `cockpit lead-progress append --project-root %s --run-manifest %s --phase phase-batch-cleanup --field panes=0`",
		e.Run.Manifest.TerminalBackend, e.Run.Root.Dir(), e.Run.Manifest.Display)
}

// ReclaimOptions select reclaim's variant.
type ReclaimOptions struct {
	Gate   bool // before a user gate: print phase-gate-cleanup, record nothing
	DryRun bool // close nothing; list the panes that would close
}

// Reclaim is `team reclaim`: it closes the panes of finished dispatches
// (terminal status; only recorded pane ids, only panes still open), and an
// in-progress worker keeps its pane whenever it is called. Without Gate it
// records phase-batch-cleanup panes=<n> (n = panes closed); with Gate it
// returns phase-gate-cleanup and records nothing. A cli-wrapper run is
// refused. It reaches the run's cockpit through its control socket
// (RunSocket); ReclaimOn is the same on any PaneHost.
func Reclaim(ctx context.Context, run *state.Run, o ReclaimOptions) (*ReclaimResult, error) {
	host := &RunSocket{Run: run, Client: "team reclaim"}
	defer host.Close()
	return ReclaimOn(ctx, host, run, o)
}

// ReclaimOn is Reclaim with the panes in host.
func ReclaimOn(ctx context.Context, host PaneHost, run *state.Run, o ReclaimOptions) (*ReclaimResult, error) {
	if !run.Manifest.IsPaneBackend() {
		return nil, &ErrNoPanes{Run: run}
	}
	ts, _, err := Settle(run)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, d := range ts.WorkerDispatches {
		if d.Terminal() && d.PaneID != "" && !slices.Contains(ids, d.PaneID) {
			ids = append(ids, d.PaneID)
		}
	}
	closed, err := closeRecorded(ctx, host, ids, o.DryRun, "reclaim: worker finished")
	if err != nil {
		return nil, err
	}
	res := &ReclaimResult{Panes: closed}
	if o.DryRun {
		return res, nil
	}
	phase := "phase-batch-cleanup"
	rec := NewRecorder(run, SourceTeamReclaim, run.Manifest.IsPaneBackend() && !o.Gate)
	if o.Gate {
		phase = "phase-gate-cleanup"
		rec.PrintOnly()
	}
	if err := rec.Record(phase, "", [][2]string{{"panes", fmt.Sprint(len(closed))}}, ""); err != nil {
		return nil, err
	}
	res.Lines = rec.Lines()
	return res, nil
}

// closeRecorded closes those of ids that host has open (all of them may
// be gone with a dead cockpit: then nothing is open). With dryRun it only
// lists them.
func closeRecorded(ctx context.Context, host PaneHost, ids []string, dryRun bool, reason string) ([]PaneRef, error) {
	out := []PaneRef{}
	if len(ids) == 0 {
		return out, nil
	}
	open, err := openPanes(ctx, host)
	if err != nil {
		return nil, err
	}
	var candidates []string
	for _, p := range open {
		if slices.Contains(ids, p.PaneID) && !p.Lead {
			candidates = append(candidates, p.PaneID)
		}
	}
	slices.SortFunc(candidates, control.ComparePaneIDs)
	if dryRun {
		for _, id := range candidates {
			out = append(out, PaneRef{PaneID: id, Kind: "worker"})
		}
		return out, nil
	}
	if len(candidates) == 0 {
		return out, nil
	}
	res, err := host.ClosePanes(ctx, control.ClosePanesParams{PaneIDs: candidates, Reason: reason})
	if err != nil {
		return nil, err
	}
	for _, id := range res.Closed {
		out = append(out, PaneRef{PaneID: id, Kind: "worker"})
	}
	return out, nil
}

// Teardown is `team teardown`: the end of the run. After settling what
// already finished, it closes every recorded pane still open, then marks
// every dispatch that is still not terminal `error` with the teardown
// reason — the seed's order: a worker whose pane it closed may settle first
// with its own hang-up reason. A wrapper that outlived its cockpit (it
// ignored the hang-up) is sent SIGTERM, when its pid still runs a cockpit
// worker.
// Teardown returns once every wrapper of the run it found running has
// exited (they write their terminal sidecars and logs on the way out; a
// caller that removes the run afterwards must not race them), waiting at
// most teardownWait, then SIGKILL. It reaches the run's cockpit through
// its control socket (RunSocket); TeardownOn is the same on any PaneHost.
func Teardown(ctx context.Context, run *state.Run, dryRun bool) (*ReclaimResult, error) {
	host := &RunSocket{Run: run, Client: "team teardown"}
	defer host.Close()
	return TeardownOn(ctx, host, run, dryRun)
}

// TeardownOn is Teardown with the panes in host.
func TeardownOn(ctx context.Context, host PaneHost, run *state.Run, dryRun bool) (*ReclaimResult, error) {
	ts, _, err := Settle(run)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, d := range ts.WorkerDispatches {
		if d.PaneID != "" && !slices.Contains(ids, d.PaneID) {
			ids = append(ids, d.PaneID)
		}
	}
	if dryRun {
		panes, err := closeRecorded(ctx, host, ids, true, "")
		return &ReclaimResult{Panes: panes}, err
	}
	// The wrappers still running, whoever started them: a dead cockpit's
	// wrappers finish on their hang-up, writing into the run.
	running := runningWrappers(run, ts)
	defer running.close()
	// What was still running when teardown began: teardown ends it.
	unfinished := map[string]bool{}
	for _, d := range ts.WorkerDispatches {
		if !d.Terminal() {
			unfinished[d.DispatchID] = true
		}
	}
	// The seed's order (okstra team.py _teardown): close the panes, then
	// write off what never finished. While the panes close, the cockpit
	// may settle a closed worker from its hang-up; okstra, which has no
	// engine settling between the two steps, writes the teardown reason on
	// every dispatch that was running, and so does this.
	panes, err := closeRecorded(ctx, host, ids, false, "teardown")
	if err != nil {
		return nil, err
	}
	var orphans []int
	err = run.UpdateTeamState(context.Background(), func(ts *state.TeamState) error {
		orphans = orphans[:0]
		now := state.Timestamp(state.Now())
		for i := range ts.WorkerDispatches {
			d := &ts.WorkerDispatches[i]
			switch {
			case !d.Terminal():
				d.Status, d.Reason, d.SettledAt = state.StatusError, state.TeardownReason, now
				if d.PID > 0 {
					orphans = append(orphans, d.PID)
				}
			case unfinished[d.DispatchID] && d.Status != state.StatusCompleted:
				// Settled while its pane closed: the teardown ended it.
				d.Status, d.Reason = state.StatusError, state.TeardownReason
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A wrapper that outlived its cockpit ignored the hang-up: SIGTERM.
	for _, pid := range orphans {
		running.add(pid)
		if w := running[pid]; w != nil {
			w.orphan = true
		}
	}
	running.end(ctx, teardownWait)
	return &ReclaimResult{Panes: panes}, nil
}

// teardownWait bounds how long teardown waits for the run's wrappers to
// exit: a wrapper told to stop gives its CLI the kill grace (5s by
// default), then writes its sidecar.
var teardownWait = workers.DefaultKillGrace + 5*time.Second

// wrapper is a running worker wrapper of the run, held by its pidfd (so
// a pid reused by another program is never signalled); orphan: its
// dispatch was still running when teardown wrote it off.
type wrapper struct {
	p      *proc.Process
	orphan bool
}

// wrappers are the run's running wrappers by pid.
type wrappers map[int]*wrapper

// runningWrappers are the run's dispatches' wrappers (recorded, or named
// by their sidecars) still running.
func runningWrappers(run *state.Run, ts *state.TeamState) wrappers {
	out := wrappers{}
	for i := range ts.WorkerDispatches {
		d := &ts.WorkerDispatches[i]
		out.add(d.PID)
		if d.StatusPath == "" {
			continue
		}
		if sp, err := run.Root.Resolve(d.StatusPath, "statusPath"); err == nil {
			if sc, _ := state.ReadSidecar(sp, d.StatusPath); sc != nil {
				out.add(sc.PID)
			}
		}
	}
	return out
}

// add holds pid when it runs the cockpit worker wrapper and has not
// exited. The pidfd is opened before the check, so the process checked
// is the one held.
func (ws wrappers) add(pid int) {
	if pid <= 0 || ws[pid] != nil {
		return
	}
	p, err := proc.Open(pid)
	if err != nil {
		return
	}
	if !isWorkerProcess(pid) || p.Wait(context.Background(), 0) {
		p.Close()
		return
	}
	ws[pid] = &wrapper{p: p}
}

// end waits, on their pidfds, until every wrapper exited or limit passed
// (an orphan is sent SIGTERM first); the ones still running then get
// SIGKILL (they ignored SIGHUP and SIGTERM) and a last second. An ended
// ctx ends the wait and kills nothing.
func (ws wrappers) end(ctx context.Context, limit time.Duration) {
	var wg sync.WaitGroup
	for _, w := range ws {
		first := proc.Step{Grace: limit}
		if w.orphan {
			first.Sig = syscall.SIGTERM
		}
		wg.Go(func() { proc.Escalate(ctx, w.p, []proc.Step{first, {Sig: syscall.SIGKILL, Grace: time.Second}}) })
	}
	wg.Wait()
}

func (ws wrappers) close() {
	for _, w := range ws {
		w.p.Close()
	}
}

// isWorkerProcess reports whether pid runs the cockpit worker wrapper, so a
// recorded pid reused by another program is never signalled.
func isWorkerProcess(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "worker" && args[i+1] == "exec" {
			return true
		}
	}
	return false
}
