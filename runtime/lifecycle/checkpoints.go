package lifecycle

import (
	"context"
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
// run whose team commands must not record (a non-pane backend), Record
// keeps the line apart, in Unrecorded: it is never printed as a PROGRESS
// line, since the lead emits only lines a command recorded (the seed: "a
// run that dispatches with okstra team dispatch … there appends the team
// commands' checkpoints itself"). A print-only recorder (PrintOnly: reclaim
// --gate's phase-gate-cleanup) prints what it records nowhere.
type Recorder struct {
	run        *state.Run
	source     string
	write      bool
	printOnly  bool
	lines      []string
	unrecorded []string
	printed    map[string]bool // dispatches whose collect line a non-writing recorder produced
	ctx        context.Context // bounds the waits for the ledger's and team-state's locks
}

// WithContext bounds r's waits for locks by ctx (a command's --timeout).
func (r *Recorder) WithContext(ctx context.Context) *Recorder {
	r.ctx = ctx
	return r
}

func (r *Recorder) context() context.Context {
	if r.ctx == nil {
		return context.Background()
	}
	return r.ctx
}

// PrintOnly makes r print its lines without recording them.
func (r *Recorder) PrintOnly() *Recorder {
	r.printOnly = true
	return r
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
	switch {
	case r.write:
		if err := state.AppendEventsContext(r.context(), r.run.LeadEventsPath, ev); err != nil {
			return fmt.Errorf("record %s: %w", phase, err)
		}
	case !r.printOnly:
		r.unrecorded = append(r.unrecorded, ev.ProgressLine)
		return nil
	}
	r.lines = append(r.lines, ev.ProgressLine)
	return nil
}

// pendingEvent is a checkpoint to record with others in one append.
type pendingEvent struct {
	phase, worker string
	fields        [][2]string
	detail        string
}

// recordAll records evs in one append (all or none), as Record would one
// by one.
func (r *Recorder) recordAll(evs []pendingEvent) error {
	var out []state.Event
	for _, e := range evs {
		ev, err := state.NewEvent(r.source, e.phase, e.worker, e.fields, e.detail)
		if err != nil {
			return err
		}
		out = append(out, ev)
	}
	if len(out) == 0 {
		return nil
	}
	switch {
	case r.write:
		if err := state.AppendEventsContext(r.context(), r.run.LeadEventsPath, out...); err != nil {
			var lines []string
			for _, ev := range out {
				lines = append(lines, ev.ProgressLine)
			}
			return fmt.Errorf("the dispatches run and are in team-state, but their checkpoints could not be recorded (%w); record them with lead-progress append: %s", err, strings.Join(lines, " | "))
		}
	case !r.printOnly:
		for _, ev := range out {
			r.unrecorded = append(r.unrecorded, ev.ProgressLine)
		}
		return nil
	}
	for _, ev := range out {
		r.lines = append(r.lines, ev.ProgressLine)
	}
	return nil
}

// Lines are the PROGRESS lines recorded so far (or, print-only, printed),
// in order: the lines the lead emits.
func (r *Recorder) Lines() []string { return append([]string(nil), r.lines...) }

// Unrecorded are the checkpoints a command records on a pane run and did
// not record here (another backend): the lead's to append, if it wants
// them, with lead-progress append.
func (r *Recorder) Unrecorded() []string { return append([]string(nil), r.unrecorded...) }
