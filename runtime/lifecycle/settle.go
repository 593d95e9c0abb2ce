package lifecycle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/runtime/watch"
	"github.com/okstra/cockpit/state"
)

// CountDispatches counts the dispatches that are still running and those
// that settled. A retried attempt counts once: of the dispatches of one
// invocation (or, without v2 identity, one prompt) only the latest counts,
// so a retry is pending until it settles, whatever its predecessor did.
func CountDispatches(ds []state.Dispatch) view.Counts {
	latest := make(map[string]int, len(ds))
	for i := range ds {
		latest[attemptKey(&ds[i])] = i
	}
	var c view.Counts
	for _, i := range latest {
		if ds[i].Terminal() {
			c.Done++
		} else {
			c.Pending++
		}
	}
	return c
}

// attemptKey names what a dispatch is an attempt of.
func attemptKey(d *state.Dispatch) string {
	if d.InvocationRef != "" {
		return "invocation:" + d.InvocationRef
	}
	return "prompt:" + d.PromptPath
}

// sidecarVerdict reads what a dispatch's sidecar says (see
// SettleVerdict).
func sidecarVerdict(run *state.Run, d *state.Dispatch, w *watch.Watcher) (Verdict, error) {
	path, err := run.Root.Resolve(d.StatusPath, "statusPath")
	if err != nil {
		// A sidecar path that cannot be followed (a planted symlink out of
		// the root) is never read; once the wrapper is gone the dispatch
		// settles with the reason, so one bad path cannot block the run.
		if d.PID > 0 && w.Alive(d.PID) {
			return Verdict{}, nil
		}
		return Verdict{Status: state.StatusError, Reason: capReason(fmt.Sprintf("its status sidecar cannot be read: %v", err))}, nil
	}
	return SettleVerdict(run.Root.Dir(), path, d, w), nil
}

// Verdict is what a sidecar says of its dispatch.
type Verdict struct {
	Status state.Status // terminal, or "" while the worker runs
	Reason string
	Exit   *int
	PID    int // the wrapper pid the sidecar names
	// ResultDigest is the digest of the result a completed dispatch wrote:
	// the link between the result and its dispatch.
	ResultDigest string
}

// SidecarVerdict is SettleVerdict for a caller that has the sidecar's
// absolute path but not the project root: the root is the part of path
// before the dispatch's project-relative statusPath (the result check is
// skipped when path does not end in it). The error is always nil.
func SidecarVerdict(path string, d *state.Dispatch, w *watch.Watcher) (Verdict, error) {
	root := ""
	if rel := filepath.Clean(d.StatusPath); d.StatusPath != "" && !filepath.IsAbs(rel) && strings.HasSuffix(path, string(filepath.Separator)+rel) {
		root = strings.TrimSuffix(path, string(filepath.Separator)+rel)
	}
	return SettleVerdict(root, path, d, w), nil
}

// SettleVerdict reads what the sidecar at path says of dispatch d (root is
// the project root its resultPath is relative to; "" skips the result
// check): a terminal status and reason, or no status while it still runs.
//
//   - A sidecar stuck at "started" whose wrapper is gone is dead, and so is
//     a dispatch with no sidecar whose recorded wrapper pid is gone.
//   - "completed" is the result verification (the seed: "the settlement is
//     the result verification: the required artifact exists"): with no
//     regular file at the dispatch's Result Path it settles error, saying
//     so.
//   - A sidecar that cannot be read (malformed, not a regular file, no
//     permission) settles error with the reason once its wrapper is gone;
//     while the wrapper runs it is read again on its next write.
//
// w, when not nil, is the caller's watcher: a pid it saw exit is gone,
// whatever a probe says.
func SettleVerdict(root, path string, d *state.Dispatch, w *watch.Watcher) Verdict {
	sc, err := state.ReadSidecar(path, d.StatusPath)
	if err != nil {
		if d.PID > 0 && w.Alive(d.PID) {
			return Verdict{}
		}
		who := "its worker wrapper is gone"
		if d.PID > 0 {
			who = fmt.Sprintf("its worker wrapper (pid %d) is gone", d.PID)
		}
		return Verdict{Status: state.StatusError, Reason: capReason(fmt.Sprintf("the status sidecar %s cannot be read (%v) and %s", d.StatusPath, err, who))}
	}
	switch {
	case sc == nil:
		if d.PID > 0 && !w.Alive(d.PID) {
			return Verdict{Status: state.StatusError, Reason: fmt.Sprintf("worker wrapper (pid %d) exited before writing its status sidecar", d.PID)}
		}
		return Verdict{}
	case sc.Status == state.StatusCompleted && root != "" && d.ResultPath != "" && !resultExists(root, d.ResultPath):
		return Verdict{Status: state.StatusError, Reason: fmt.Sprintf("the worker reported completed but wrote no result at %s", d.ResultPath), Exit: sc.ExitCode, PID: sc.PID}
	case state.IsTerminal(sc.Status):
		v := Verdict{Status: sc.Status, Reason: capReason(sc.Reason), Exit: sc.ExitCode, PID: sc.PID}
		if sc.Status == state.StatusCompleted && root != "" && d.ResultPath != "" {
			v.ResultDigest = resultDigest(root, d.ResultPath)
		}
		return v
	case !w.Alive(sc.PID):
		return Verdict{Status: state.StatusError, Reason: fmt.Sprintf("worker wrapper (pid %d) is gone but its sidecar still says %q (killed with SIGKILL or crashed)", sc.PID, sc.Status), PID: sc.PID}
	}
	return Verdict{PID: sc.PID}
}

// resultDigest is the digest of the result at the project-relative path
// under root, "" when it cannot be read.
func resultDigest(root, rel string) string {
	r, err := state.OpenRoot(root)
	if err != nil {
		return ""
	}
	p, err := r.Resolve(rel, "resultPath")
	if err != nil {
		return ""
	}
	d, err := state.FileDigest(p, rel)
	if err != nil {
		return ""
	}
	return d
}

// resultExists reports whether the project-relative result path names a
// regular file under root.
func resultExists(root, rel string) bool {
	r, err := state.OpenRoot(root)
	if err != nil {
		return true // cannot judge: leave the sidecar's word
	}
	p, err := r.Resolve(rel, "resultPath")
	if err != nil {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// MaxReason caps the reason copied from a sidecar into team-state: a
// worker can write any size there, and team-state is rewritten and
// fsynced on every update (a 50 MB reason made a 52 MB team-state).
const MaxReason = 4096

// capReason cuts a reason to MaxReason bytes at a rune boundary, saying
// how much was cut, and strips control characters.
func capReason(s string) string {
	s = state.OneLine(s)
	if len(s) <= MaxReason {
		return s
	}
	cut := MaxReason
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes in the sidecar)", s[:cut], len(s)-cut)
}

// Apply settles d as the verdict says, at now.
func (v Verdict) Apply(d *state.Dispatch, now string) {
	d.Status, d.Reason, d.ExitCode, d.SettledAt = v.Status, v.Reason, v.Exit, now
	if v.ResultDigest != "" {
		d.ResultDigest = v.ResultDigest
	}
}

// Settle brings every non-terminal dispatch of the run up to date with its
// sidecar, under the team-state lock, and returns the team-state as written
// and the ids of the dispatches it settled, in team-state order.
func Settle(run *state.Run) (*state.TeamState, []string, error) {
	return SettleContext(context.Background(), run, nil)
}

// SettleContext is Settle for a caller holding a watcher: the exits it saw
// count (see watch.Watcher.Exited). ctx bounds the wait for the lock.
func SettleContext(ctx context.Context, run *state.Run, w *watch.Watcher) (*state.TeamState, []string, error) {
	// Look first without the lock: most wake-ups settle nothing, and those
	// should not take the lock or touch the file.
	ts, err := run.TeamState()
	if err != nil {
		return nil, nil, err
	}
	need := false
	for i := range ts.WorkerDispatches {
		d := &ts.WorkerDispatches[i]
		if d.Terminal() || d.StatusPath == "" {
			continue
		}
		v, err := sidecarVerdict(run, d, w)
		if err != nil {
			return nil, nil, err
		}
		if v.Status != "" {
			need = true
			break
		}
	}
	if !need {
		return ts, nil, nil
	}
	return settleLocked(ctx, run, func(d *state.Dispatch) (Verdict, error) { return sidecarVerdict(run, d, w) })
}

// RecordVerdicts settles, under the team-state lock, the dispatches of
// verdicts (by dispatch id) that are not terminal yet, and returns
// team-state as written and the ids it settled, in team-state order: for
// the engine, which reads only the sidecars its events name.
func RecordVerdicts(ctx context.Context, run *state.Run, verdicts map[string]Verdict) (*state.TeamState, []string, error) {
	return settleLocked(ctx, run, func(d *state.Dispatch) (Verdict, error) { return verdicts[d.DispatchID], nil })
}

// settleLocked is the one place dispatches are settled: under the
// team-state lock, each non-terminal dispatch with a sidecar gets the
// verdict verdict gives it, when terminal.
func settleLocked(ctx context.Context, run *state.Run, verdict func(*state.Dispatch) (Verdict, error)) (*state.TeamState, []string, error) {
	var settled []string
	var snapshot *state.TeamState
	err := run.UpdateTeamState(ctx, func(ts *state.TeamState) error {
		settled = settled[:0]
		now := state.Timestamp(state.Now())
		for i := range ts.WorkerDispatches {
			d := &ts.WorkerDispatches[i]
			if d.Terminal() || d.StatusPath == "" {
				continue
			}
			v, err := verdict(d)
			if err != nil {
				return err
			}
			if v.Status == "" {
				continue
			}
			v.Apply(d, now)
			settled = append(settled, d.DispatchID)
		}
		snapshot = &state.TeamState{WorkerDispatches: append([]state.Dispatch(nil), ts.WorkerDispatches...), Workers: append([]state.Worker(nil), ts.Workers...), TeamName: ts.TeamName}
		return nil
	})
	return snapshot, settled, err
}

// Collect records phase-5-collect for every settled initial dispatch that
// has not been collected yet, marking it collected in team-state so that no
// later command records it again. The ledger lines are appended inside the
// team-state update, so a failed append leaves the dispatches uncollected
// (always team-state's lock, then the ledger's: no other order is taken). A
// recorder that does not write (a non-pane run) prints each dispatch's line
// once per command.
//
// A dispatch whose phase-5-collect is in the ledger already (a run taken
// over from another tool, which recorded the line but not collectedAt; or
// the lead's own lead-progress append) is not recorded again: the ledger's
// collect lines of each worker and status that no collected dispatch
// accounts for are matched to the uncollected dispatches of that worker and
// status, in team-state order, and those are marked collected silently.
func Collect(run *state.Run, rec *Recorder) error {
	ts, err := run.TeamState()
	if err != nil {
		return err
	}
	if !rec.write {
		recorded := recordedCollects(run, ts)
		for i := range ts.WorkerDispatches {
			d := &ts.WorkerDispatches[i]
			if d.DispatchKind != state.DispatchInitial || !d.Terminal() || d.CollectedAt != "" || rec.printed[d.DispatchID] {
				continue
			}
			if k := collectKey(d.Role, d.Status); recorded[k] > 0 {
				recorded[k]--
				rec.markPrinted(d.DispatchID)
				continue
			}
			if err := rec.Record("phase-5-collect", d.Role, [][2]string{{"status", string(d.Status)}}, ""); err != nil {
				return err
			}
			rec.markPrinted(d.DispatchID)
		}
		return nil
	}
	if !hasUncollected(ts) {
		return nil
	}
	var lines []string
	err = run.UpdateTeamState(rec.context(), func(ts *state.TeamState) error {
		lines = lines[:0]
		var events []state.Event
		now := state.Timestamp(state.Now())
		recorded := recordedCollects(run, ts)
		for i := range ts.WorkerDispatches {
			d := &ts.WorkerDispatches[i]
			if d.DispatchKind != state.DispatchInitial || !d.Terminal() || d.CollectedAt != "" {
				continue
			}
			if k := collectKey(d.Role, d.Status); recorded[k] > 0 {
				recorded[k]--
				d.CollectedAt = now // its line is in the ledger already
				continue
			}
			ev, err := state.NewEvent(rec.source, "phase-5-collect", d.Role, [][2]string{{"status", string(d.Status)}}, "")
			if err != nil {
				return err
			}
			events = append(events, ev)
			d.CollectedAt = now
		}
		if err := state.AppendEventsContext(rec.context(), run.LeadEventsPath, events...); err != nil {
			return fmt.Errorf("record phase-5-collect: %w", err)
		}
		for _, ev := range events {
			lines = append(lines, ev.ProgressLine)
		}
		return nil
	})
	if err != nil {
		return err
	}
	rec.lines = append(rec.lines, lines...)
	return nil
}

func hasUncollected(ts *state.TeamState) bool {
	for i := range ts.WorkerDispatches {
		d := &ts.WorkerDispatches[i]
		if d.DispatchKind == state.DispatchInitial && d.Terminal() && d.CollectedAt == "" {
			return true
		}
	}
	return false
}

func collectKey(worker string, status state.Status) string { return worker + "\x00" + string(status) }

// recordedCollects counts, per worker and status, the ledger's
// phase-5-collect lines that no collected dispatch of ts accounts for. A
// ledger that cannot be read counts none.
func recordedCollects(run *state.Run, ts *state.TeamState) map[string]int {
	events, err := state.ReadEvents(run.LeadEventsPath, run.Manifest.LeadEventsPath)
	if err != nil {
		return nil
	}
	out := map[string]int{}
	for _, e := range events {
		phase, worker, fields := e.Phase, e.Worker, e.Fields
		if phase == "" {
			phase, worker, fields = ParseProgressLine(e.ProgressLine)
		}
		if phase == "phase-5-collect" {
			out[collectKey(worker, state.Status(Field(fields, "status")))]++
		}
	}
	for i := range ts.WorkerDispatches {
		d := &ts.WorkerDispatches[i]
		if d.DispatchKind == state.DispatchInitial && d.CollectedAt != "" {
			if k := collectKey(d.Role, d.Status); out[k] > 0 {
				out[k]--
			}
		}
	}
	return out
}

// Field is the value of the named field of a checkpoint.
func Field(fields [][2]string, name string) string {
	for _, f := range fields {
		if f[0] == name {
			return f[1]
		}
	}
	return ""
}

// ParseProgressLine reads a PROGRESS line written by another tool into its
// phase, worker and key=value fields ("PROGRESS: phase-5-collect
// worker=Codex worker status=completed"). A worker value runs up to the
// next " name=" token, since roster roles contain spaces.
func ParseProgressLine(line string) (phase, worker string, fields [][2]string) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "PROGRESS: ")
	if !ok {
		return "", "", nil
	}
	phase, rest, _ = strings.Cut(rest, " ")
	toks := strings.Fields(rest)
	for i := 0; i < len(toks); i++ {
		name, val, ok := strings.Cut(toks[i], "=")
		if !ok {
			continue
		}
		if name == "worker" {
			for i+1 < len(toks) && !strings.Contains(toks[i+1], "=") {
				i++
				val += " " + toks[i]
			}
			worker = val
			continue
		}
		fields = append(fields, [2]string{name, val})
	}
	return phase, worker, fields
}
