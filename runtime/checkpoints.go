package runtime

import (
	"fmt"
	"strings"

	"github.com/okstra/cockpit/state"
)

// Sources of ledger lines, one per command that records checkpoints.
const (
	SourceLeadProgress   = "lead-progress append"
	SourceTeamDispatch   = "team dispatch"
	SourceWorkerDispatch = "worker-dispatch"
	SourceTeamAwait      = "team await"
	SourceTeamReclaim    = "team reclaim"
	SourceCockpit        = "cockpit"
)

// Recorder collects the checkpoints one command records and prints. On a
// run whose team commands must not record (a non-pane backend), Record only
// collects the line for printing.
type Recorder struct {
	run     *state.Run
	source  string
	write   bool
	lines   []string
	printed map[string]bool // dispatches whose collect line a non-writing recorder printed
}

func (r *Recorder) markPrinted(id string) {
	if r.printed == nil {
		r.printed = map[string]bool{}
	}
	r.printed[id] = true
}

// NewRecorder returns a recorder for source; write says whether its
// checkpoints go into the ledger.
func NewRecorder(run *state.Run, source string, write bool) *Recorder {
	return &Recorder{run: run, source: source, write: write}
}

// Record builds one checkpoint, appends it to the ledger when recording,
// and remembers its PROGRESS line.
func (r *Recorder) Record(phase, worker string, fields [][2]string, detail string) error {
	ev, err := state.NewEvent(r.source, phase, worker, fields, detail)
	if err != nil {
		return err
	}
	if r.write {
		if err := state.AppendEvents(r.run.LeadEventsPath, ev); err != nil {
			return fmt.Errorf("record %s: %w", phase, err)
		}
	}
	r.lines = append(r.lines, ev.ProgressLine)
	return nil
}

// Lines are the PROGRESS lines recorded so far, in order.
func (r *Recorder) Lines() []string { return append([]string(nil), r.lines...) }

// AppendProgress is `lead-progress append`: it normalises --worker to the
// run's roster role, records the checkpoint and returns its PROGRESS line.
func AppendProgress(run *state.Run, phase, worker string, fields [][2]string, detail string) (string, error) {
	if err := state.CheckPhase(phase); err != nil {
		return "", &state.Error{Field: "--phase", Msg: err.Error()}
	}
	if worker != "" {
		w, err := RosterRole(run, worker)
		if err != nil {
			return "", err
		}
		worker = w
	}
	rec := NewRecorder(run, SourceLeadProgress, true)
	if err := rec.Record(phase, worker, fields, detail); err != nil {
		return "", err
	}
	return rec.lines[0], nil
}

// RosterRole resolves a --worker value to the roster role the run records:
// exact, or with "claude-worker"-style hyphenation, matched against the run
// manifest's roster and team-state's workers. When the run lists no roster
// at all the value is kept as given (hyphenation undone).
func RosterRole(run *state.Run, worker string) (string, error) {
	known := run.Manifest.RosterRoles()
	if ts, err := state.ReadTeamState(run.TeamStatePath, run.Manifest.TeamStatePath); err == nil {
		for _, w := range ts.Workers {
			known = append(known, w.Role)
		}
	}
	norm := func(s string) string {
		return strings.Join(strings.Fields(strings.ToLower(strings.ReplaceAll(s, "-", " "))), " ")
	}
	for _, k := range known {
		if k == worker || norm(k) == norm(worker) {
			return k, nil
		}
	}
	if len(known) == 0 {
		if strings.Contains(worker, "-") {
			return state.RosterRoleFromWorker(worker), nil
		}
		return worker, nil
	}
	return "", &state.Error{Field: "--worker", Msg: fmt.Sprintf("%q is not a roster role of this run (known: %s); pass the roster role, e.g. %q", worker, strings.Join(dedupe(known), ", "), known[0])}
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
