package team

import (
	"context"
	"errors"
	"fmt"
	"github.com/okstra/cockpit/runtime/lifecycle"
	"time"

	"github.com/okstra/cockpit/runtime/watch"
	"github.com/okstra/cockpit/state"
)

// Liveness values.
const (
	Alive = "alive"
	Done  = "done"
	Dead  = "dead"
)

// LivenessReport answers `worker-liveness`.
type LivenessReport struct {
	DispatchID string       `json:"dispatchId"`
	Liveness   string       `json:"liveness"`
	Status     state.Status `json:"status"`
	Reason     string       `json:"reason"`
	PID        int          `json:"pid,omitempty"`
}

// Liveness reports whether a dispatch's worker is alive, done (a terminal
// status) or dead (a sidecar stuck at "started", or a recorded wrapper pid,
// whose process is gone). With wait it blocks until the worker is done or
// dead, woken by file events and the process exit.
func Liveness(ctx context.Context, root state.Root, teamStatePath, display, dispatchID string, wait bool, timeout time.Duration) (*LivenessReport, error) {
	var w *watch.Watcher
	if wait {
		var err error
		if w, err = watch.NewWatcher(); err != nil {
			return nil, err
		}
		defer w.Close()
		if err := w.Watch(teamStatePath, watch.EvTeamState); err != nil {
			return nil, err
		}
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
	}
	for {
		rep, sidecar, err := livenessOnce(root, teamStatePath, display, dispatchID, w)
		if err != nil {
			return nil, err
		}
		if !wait || rep.Liveness != Alive {
			return rep, nil
		}
		if err := w.Watch(sidecar, watch.EvSidecar); err != nil {
			return nil, err
		}
		if rep.PID > 0 {
			w.WatchPID(rep.PID)
		}
		select {
		case <-w.Events():
		case <-w.Errors():
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return rep, ErrAwaitTimeout
			}
			return rep, ctx.Err()
		}
	}
}

// livenessOnce looks once; w (nil without --wait) is the wait's watcher,
// whose seen exits win over the process probe.
func livenessOnce(root state.Root, teamStatePath, display, id string, w *watch.Watcher) (*LivenessReport, string, error) {
	ts, err := state.ReadTeamState(teamStatePath, display)
	if err != nil {
		return nil, "", err
	}
	d := ts.Dispatch(id)
	if d == nil {
		return nil, "", &state.Error{Field: "--dispatch-id", Msg: fmt.Sprintf("%q is not a dispatch of %s", id, display)}
	}
	rep := &LivenessReport{DispatchID: id, Status: d.Status, Reason: d.Reason, PID: d.PID}
	sp, err := root.Resolve(d.StatusPath, "statusPath")
	if err != nil {
		return nil, "", err
	}
	if d.Terminal() {
		rep.Liveness = Done
		return rep, sp, nil
	}
	sc, err := state.ReadSidecar(sp, d.StatusPath)
	if err != nil {
		// An unreadable sidecar (malformed, not a regular file, no
		// permission) is no reason to fail the probe: the worker is alive
		// while its wrapper runs, and dead once it is gone.
		if d.PID > 0 && w.Alive(d.PID) {
			rep.Liveness = Alive
			return rep, sp, nil
		}
		v := lifecycle.SettleVerdict(root.Dir(), sp, d, w)
		rep.Liveness, rep.Reason = Dead, v.Reason
		return rep, sp, nil
	}
	switch {
	case sc != nil && state.IsTerminal(sc.Status):
		// The settlement is the result verification: "completed" with no
		// result reads as the error it settles as.
		v := lifecycle.SettleVerdict(root.Dir(), sp, d, w)
		rep.Liveness, rep.Status, rep.Reason, rep.PID = Done, v.Status, v.Reason, sc.PID
	case sc != nil:
		rep.PID = sc.PID
		rep.Status = sc.Status
		if w.Alive(sc.PID) {
			rep.Liveness = Alive
		} else {
			rep.Liveness = Dead
			rep.Reason = fmt.Sprintf("sidecar says %q but the wrapper (pid %d) is gone", sc.Status, sc.PID)
		}
	case d.PID > 0 && !w.Alive(d.PID):
		rep.Liveness = Dead
		rep.Reason = fmt.Sprintf("the wrapper (pid %d) exited before writing its sidecar", d.PID)
	default:
		rep.Liveness = Alive
	}
	return rep, sp, nil
}
