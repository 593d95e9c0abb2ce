package state

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// PhaseIDs are the checkpoint ids the lead-events ledger accepts.
var PhaseIDs = []string{
	"phase-1-intake", "phase-2-prompts", "phase-3-team-create",
	"phase-4-dispatch", "phase-5-poll", "phase-5-collect", "phase-5-stage",
	"phase-5-stage-complete", "phase-5.5-convergence", "phase-5.6-critic",
	"phase-batch-cleanup", "phase-gate-cleanup", "phase-6-synthesis",
	"phase-5.5.9-plan-verify", "user-confirm", "phase-7-persist",
	"phase-7-teardown", "complete",
}

// defaultDetail is the fixed prose of checkpoints that have one, used when
// lead-progress append is given neither fields nor a detail.
var defaultDetail = map[string]string{
	"phase-6-synthesis": "dispatching report-writer-worker",
	"phase-7-persist":   "updating manifests",
	"phase-7-teardown":  "shutting-down-workers",
}

// CheckPhase reports whether id is a known checkpoint id.
func CheckPhase(id string) error {
	for _, p := range PhaseIDs {
		if p == id {
			return nil
		}
	}
	return fmt.Errorf("unknown phase id %q; known: %s", id, strings.Join(PhaseIDs, ", "))
}

// Event is one checkpoint of the lead-events ledger.
type Event struct {
	At           string      `json:"at"`
	Phase        string      `json:"phase"`
	Worker       string      `json:"worker,omitempty"`
	Fields       [][2]string `json:"fields,omitempty"`
	Detail       string      `json:"detail,omitempty"`
	Source       string      `json:"source"`
	ProgressLine string      `json:"progressLine"`
}

// NewEvent builds a checkpoint and its PROGRESS line. fields are name/value
// pairs in the order the line carries them.
func NewEvent(source, phase, worker string, fields [][2]string, detail string) (Event, error) {
	if err := CheckPhase(phase); err != nil {
		return Event{}, err
	}
	if worker == "" && len(fields) == 0 && detail == "" {
		detail = defaultDetail[phase]
	}
	for _, f := range fields {
		if f[0] == "" || strings.ContainsAny(f[0], "= \t\n") {
			return Event{}, fmt.Errorf("field name %q must be non-empty with no '=' or spaces", f[0])
		}
		if strings.ContainsAny(f[1], "\n\r") {
			return Event{}, fmt.Errorf("field %s: value must be one line", f[0])
		}
	}
	if strings.ContainsAny(detail, "\n\r") || strings.ContainsAny(worker, "\n\r") {
		return Event{}, errors.New("worker and detail must be one line")
	}
	e := Event{At: Timestamp(Now()), Phase: phase, Worker: worker, Fields: fields, Detail: detail, Source: source}
	e.ProgressLine = e.Line()
	return e, nil
}

// Line renders the PROGRESS line of e.
func (e Event) Line() string {
	var b strings.Builder
	b.WriteString("PROGRESS: ")
	b.WriteString(e.Phase)
	if e.Worker != "" {
		b.WriteString(" worker=")
		b.WriteString(e.Worker)
	}
	for _, f := range e.Fields {
		b.WriteByte(' ')
		b.WriteString(f[0])
		b.WriteByte('=')
		b.WriteString(f[1])
	}
	if e.Detail != "" {
		b.WriteByte(' ')
		b.WriteString(e.Detail)
	}
	return b.String()
}

// Field returns the value of the named field.
func (e Event) Field(name string) string {
	for _, f := range e.Fields {
		if f[0] == name {
			return f[1]
		}
	}
	return ""
}

// AppendEvents appends events to the JSON-lines ledger at path, under its
// lock, atomically: the old bytes are copied into a temp file with the new
// lines after them and renamed over the ledger, so lines written by others
// (and members of them the cockpit does not know) stay byte for byte.
func AppendEvents(path string, events ...Event) error {
	if len(events) == 0 {
		return nil
	}
	var add bytes.Buffer
	for _, e := range events {
		line, err := json.Marshal(e)
		if err != nil {
			return err
		}
		add.Write(line)
		add.WriteByte('\n')
	}
	return WithLock(path, func() error {
		old, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("read ledger %s: %w", path, err)
		}
		buf := make([]byte, 0, len(old)+add.Len()+1)
		buf = append(buf, old...)
		if len(buf) > 0 && buf[len(buf)-1] != '\n' {
			buf = append(buf, '\n')
		}
		buf = append(buf, add.Bytes()...)
		return WriteFileAtomic(path, buf, 0o644)
	})
}

// ReadEvents reads the ledger. A missing ledger has no events. A line that
// is not a JSON object is an error naming its line number.
func ReadEvents(path, display string) ([]Event, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read ledger %s: %w", display, err)
	}
	var out []Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, &Error{File: display, Field: fmt.Sprintf("line %d", n), Msg: "is not a checkpoint JSON object: " + err.Error(), Err: err}
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read ledger %s: %w", display, err)
	}
	return out, nil
}
