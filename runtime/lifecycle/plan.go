package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/workers"
)

// Catalog is what dispatch needs of the provider catalog: whether a provider
// and a model execution value are known, and the idle budget of a role
// (workers.Catalog).
type Catalog interface {
	CheckModel(provider, model string) error
	// IdleBudget is the idle limit in seconds (0: none) of a worker of the
	// canonical role whose job names none, and its source
	// (workers.IdleFromCatalog or workers.IdleFromProviders).
	IdleBudget(role string) (seconds int, source string)
}

// Batch is a verified jobs file, ready to launch: nothing is started or
// recorded until every job passed.
type Batch struct {
	Run  *state.Run
	Kind state.DispatchKind
	File string // the jobs file as given
	Jobs []state.ResolvedJob
}

// PlanBatch reads a jobs file and verifies every job before anything starts:
// the file's shape (state.LoadJobs), each job's roster role (state.RosterFor,
// from team-state's workers), every digest the jobs file and the invocation
// metadata carry (state.CheckDigests), each provider and model against the
// catalog, each v2 identity against the run manifest and its invocation
// metadata, and that no job's prompt is still running from an earlier
// dispatch. The first problem is returned as one line naming the job.
//
// Each job gets its idle limit: its own idleTimeoutSeconds when above 0
// (source "jobs-file"), else the catalog's idle budget for its canonical
// role (the job's role, else its role execution's), "catalog" or
// "providers.json". So no worker runs without a limit by omission, and the
// dispatch record says which budget applied.
func PlanBatch(run *state.Run, cat Catalog, jobsFile string, kind state.DispatchKind) (*Batch, error) {
	jf, jobs, err := state.LoadJobs(run, jobsFile, kind)
	if err != nil {
		return nil, err
	}
	ts, err := run.TeamState()
	if err != nil {
		return nil, err
	}
	for i := range jobs {
		applyIdleBudget(run, cat, &jobs[i])
		roster, err := state.RosterFor(run.Manifest, ts, jobs[i].Job)
		if err != nil {
			return nil, &state.Error{File: jobsFile, Field: fmt.Sprintf("jobs[%d]", i), Msg: err.Error()}
		}
		jobs[i].RosterRole = roster
	}
	if err := state.CheckDigests(run, jobsFile, jobs); err != nil {
		return nil, err
	}
	for i, j := range jobs {
		at := fmt.Sprintf("jobs[%d]", i)
		if err := cat.CheckModel(j.Provider, j.ModelExecutionValue); err != nil {
			return nil, &state.Error{File: jobsFile, Field: at, Msg: err.Error()}
		}
		if run.Manifest.IsV2() {
			if err := checkJobIdentity(run, j); err != nil {
				return nil, &state.Error{File: jobsFile, Field: at, Msg: err.Error()}
			}
		}
		// What the wrapper would refuse (a prompt without a Result Path, codex
		// outside a git work tree, …) is refused here, before anything starts.
		if err := workers.Preflight(workers.ExecArgs(run.Root.Dir(), j, "quiet")); err != nil {
			return nil, &state.Error{File: jobsFile, Field: at, Msg: "the worker wrapper would refuse it: " + err.Error()}
		}
		rel := run.Root.Rel(j.Prompt)
		for _, d := range ts.WorkerDispatches {
			if d.PromptPath == rel && !d.Terminal() {
				return nil, &state.Error{File: jobsFile, Field: at + ".promptPath", Msg: fmt.Sprintf("is still running as %s (%s); await it or tear it down before dispatching it again", d.DispatchID, d.Status)}
			}
		}
	}
	return &Batch{Run: run, Kind: jf.DispatchKind, File: jobsFile, Jobs: jobs}, nil
}

// applyIdleBudget sets the job's idle limit and its source.
func applyIdleBudget(run *state.Run, cat Catalog, j *state.ResolvedJob) {
	if j.IdleTimeoutSeconds > 0 {
		j.IdleSource = workers.IdleFromJobsFile
		return
	}
	role := j.Role
	if role == "" {
		if re := run.Manifest.RoleExecution(j.RoleExecutionRef); re != nil {
			role = re.Role
		}
	}
	j.IdleTimeoutSeconds, j.IdleSource = cat.IdleBudget(role)
	if j.IdleTimeoutSeconds < 0 {
		j.IdleTimeoutSeconds = 0
	}
}

// checkJobIdentity verifies a v2 job against the run manifest and against
// the invocation metadata beside its prompt.
func checkJobIdentity(run *state.Run, j state.ResolvedJob) error {
	id := state.Identity{
		Provider: j.Provider, Model: j.ModelExecutionValue, Role: j.Role,
		RoleExecutionRef: j.RoleExecutionRef, ParticipantRef: j.ParticipantRef,
		InvocationRef: j.InvocationRef, ExecutionLabel: j.ExecutionLabel,
	}
	if err := run.Manifest.CheckIdentity(id); err != nil {
		return err
	}
	md, err := state.ReadInvocationMetadata(j.Metadata, j.MetadataPath)
	if err != nil {
		return err
	}
	if md.InvocationRef != j.InvocationRef || md.RoleExecutionRef != j.RoleExecutionRef {
		return fmt.Errorf("invocation metadata %s is for %s/%s, not %s/%s", j.MetadataPath, md.InvocationRef, md.RoleExecutionRef, j.InvocationRef, j.RoleExecutionRef)
	}
	if md.ModelAssignment.Provider != j.Provider || md.ModelAssignment.ModelExecutionValue != j.ModelExecutionValue {
		return fmt.Errorf("invocation metadata %s assigns %s/%s, not %s/%s", j.MetadataPath, md.ModelAssignment.Provider, md.ModelAssignment.ModelExecutionValue, j.Provider, j.ModelExecutionValue)
	}
	if !md.PromptMatches(run.Root, j.Prompt) {
		return fmt.Errorf("invocation metadata %s names prompt %s, not %s", j.MetadataPath, md.Prompt.Path, j.PromptPath)
	}
	return md.IdentityMatches(run.Manifest, j.Role)
}

// WorkerArgv is the command line that runs one job through the worker
// wrapper: `cockpit worker exec` with the okstra provider-exec arguments,
// the job's idle limit (applied by PlanBatch) among them.
func WorkerArgv(self string, run *state.Run, j state.ResolvedJob, presentation string) []string {
	return append([]string{self, "worker", "exec"}, workers.ExecArgs(run.Root.Dir(), j, presentation)...)
}

// Launched is what a backend reports for one started job.
type Launched struct {
	PaneID string
	PID    int
	Err    error // the job could not be started
}

// Recorded is one dispatch a batch recorded.
type Recorded struct {
	Dispatch state.Dispatch
	Job      state.ResolvedJob
}

// Recording is a batch recorded in team-state, whose checkpoints wait for
// the start: only what started is checkpointed (Checkpoints).
type Recording struct {
	Recs              []Recorded
	kind              state.DispatchKind
	wroteMarker       bool // this batch wrote the implicit-team marker
	firstReportWriter bool // the run's first report-writer dispatch
}

// RecordBatch records the batch in team-state under its lock — the
// implicit-team marker when no teamCreate exists, the roster entries, one
// in-progress dispatch per job — in one write: the batch is one unit. Its
// checkpoints come once the jobs were started (Recording.Checkpoints), so
// the ledger names only workers that run. Stale sidecars of the prompts
// are removed first, so that no earlier attempt's status is read as this
// one's.
func RecordBatch(b *Batch, backend string) (*Recording, error) {
	run := b.Run
	// Stale sidecars go before the dispatches are recorded: a watcher that
	// sees the new in-progress dispatch must not find the previous attempt's
	// terminal sidecar and settle the new one with it. (PlanBatch refused any
	// prompt whose earlier dispatch still runs, so no live sidecar is removed.)
	for _, j := range b.Jobs {
		if err := os.Remove(state.SidecarPath(j.Prompt)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("remove stale sidecar of %s: %w", j.PromptPath, err)
		}
	}
	rg := &Recording{kind: b.Kind}
	now := state.Timestamp(state.Now())
	err := run.UpdateTeamState(context.Background(), func(ts *state.TeamState) error {
		rg.Recs = rg.Recs[:0]
		rg.wroteMarker = ts.TeamCreate == nil
		if rg.wroteMarker {
			ts.TeamCreate = &state.TeamCreate{Attempted: false, Status: "implicit"}
		}
		rg.firstReportWriter = b.Kind == state.DispatchReportWriter && !ts.HasReportWriterDispatch()
		for _, j := range b.Jobs {
			role := j.RosterRoleOf()
			ts.AddWorker(state.Worker{Role: role, WorkerID: workerID(j), Provider: j.Provider, Model: j.ModelExecutionValue})
			prompt := run.Root.Rel(j.Prompt)
			attempt := ts.AttemptFor(j.InvocationRef, prompt)
			if inv := run.Manifest.Invocation(j.InvocationRef); inv != nil && inv.Attempt > 0 {
				attempt = inv.Attempt
			}
			d := state.Dispatch{
				DispatchID:         ts.NextDispatchID(),
				DispatchKind:       b.Kind,
				InvocationRef:      j.InvocationRef,
				RoleExecutionRef:   j.RoleExecutionRef,
				Role:               role,
				WorkerID:           workerID(j),
				Provider:           j.Provider,
				Model:              j.ModelExecutionValue,
				ExecutionLabel:     j.ExecutionLabel,
				PromptPath:         prompt,
				ResultPath:         run.Root.Rel(j.Result),
				StatusPath:         run.Root.Rel(state.SidecarPath(j.Prompt)),
				LogPath:            run.Root.Rel(state.LogPath(j.Prompt)),
				MetadataPath:       j.MetadataPath,
				Backend:            backend,
				Attempt:            attempt,
				IdleTimeoutSeconds: j.IdleTimeoutSeconds,
				IdleTimeoutSource:  j.IdleSource,
				Status:             state.StatusInProgress,
				DispatchedAt:       now,
			}
			ts.WorkerDispatches = append(ts.WorkerDispatches, d)
			rg.Recs = append(rg.Recs, Recorded{Dispatch: d, Job: j})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rg, nil
}

// Checkpoints records the checkpoints of the seed for the dispatches that
// started (launched[i].Err == nil): phase-3-team-create when the batch
// wrote the marker, phase-4-dispatch per started initial job,
// phase-6-synthesis on the run's first report-writer dispatch — all in one
// append. A failed append leaves the dispatches running and recorded (no
// phantom: they settle from their sidecars) and says which lines are
// missing.
func (rg *Recording) Checkpoints(rec *Recorder, launched []Launched) error {
	started := 0
	for i := range rg.Recs {
		if i < len(launched) && launched[i].Err == nil {
			started++
		}
	}
	if started == 0 {
		return nil
	}
	var evs []pendingEvent
	if rg.wroteMarker {
		evs = append(evs, pendingEvent{phase: "phase-3-team-create", detail: "using implicit team"})
	}
	if rg.kind == state.DispatchInitial {
		for i, r := range rg.Recs {
			if i < len(launched) && launched[i].Err == nil {
				evs = append(evs, pendingEvent{phase: "phase-4-dispatch", worker: r.Dispatch.Role, fields: [][2]string{{"model", r.Dispatch.Model}}})
			}
		}
	}
	if rg.firstReportWriter {
		evs = append(evs, pendingEvent{phase: "phase-6-synthesis", detail: "dispatching report-writer-worker"})
	}
	return rec.recordAll(evs)
}

// NotStartedError names the jobs of a batch that did not start (the
// cockpit went away mid-batch, a start failed): they are recorded error
// with the reason, the others run.
type NotStartedError struct {
	IDs []string // "dispatch-004 (Claude worker)"
	Err error    // the first job's error
}

func (e *NotStartedError) Error() string {
	return fmt.Sprintf("%d job(s) of the batch did not start: %s (%v); they are recorded as error and the others run — await those, then dispatch the ones that did not start again", len(e.IDs), strings.Join(e.IDs, ", "), e.Err)
}

func (e *NotStartedError) Unwrap() error { return e.Err }

// NotStarted is the NotStartedError of launched, or nil when every job
// started.
func NotStarted(recs []Recorded, launched []Launched) error {
	var e *NotStartedError
	for i, r := range recs {
		if i < len(launched) && launched[i].Err != nil {
			if e == nil {
				e = &NotStartedError{Err: launched[i].Err}
			}
			e.IDs = append(e.IDs, r.Dispatch.DispatchID+" ("+r.Dispatch.Role+")")
		}
	}
	if e == nil {
		return nil
	}
	return e
}

// MarkLaunched records where each dispatch runs (pane id, wrapper pid), or
// that it could not start.
func MarkLaunched(run *state.Run, recs []Recorded, launched []Launched) error {
	return run.UpdateTeamState(context.Background(), func(ts *state.TeamState) error {
		for i, r := range recs {
			d := ts.Dispatch(r.Dispatch.DispatchID)
			if d == nil || i >= len(launched) {
				continue
			}
			l := launched[i]
			d.PaneID = l.PaneID
			d.PID = l.PID
			if l.Err != nil && !d.Terminal() {
				d.Status = state.StatusError
				d.Reason = "could not start the worker: " + l.Err.Error()
				d.SettledAt = state.Timestamp(state.Now())
			}
		}
		return nil
	})
}

func workerID(j state.ResolvedJob) string {
	if j.WorkerID != "" {
		return j.WorkerID
	}
	return j.Provider
}

// BatchDispatches picks the batch's dispatches out of team-state, in batch
// order.
func BatchDispatches(ts *state.TeamState, recs []Recorded) []state.Dispatch {
	out := make([]state.Dispatch, 0, len(recs))
	for _, r := range recs {
		if d := ts.Dispatch(r.Dispatch.DispatchID); d != nil {
			out = append(out, *d)
		}
	}
	return out
}
