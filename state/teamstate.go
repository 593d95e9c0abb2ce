package state

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"
)

// TeamState is the run's team record. Members the cockpit does not name here
// survive every rewrite in place (see teamstate_codec.go and package rawjson).
type TeamState struct {
	TeamName         string      `json:"teamName"`
	TeamCreate       *TeamCreate `json:"teamCreate,omitempty"`
	Workers          []Worker    `json:"workers"`
	WorkerDispatches []Dispatch  `json:"workerDispatches"`
}

// TeamCreate is the team-creation marker: {attempted:false,status:"implicit"}
// written by the first dispatch, or the lead's own skipped marker.
type TeamCreate struct {
	Attempted bool   `json:"attempted"`
	Status    string `json:"status"`
	Reason    string `json:"reason,omitempty"`
}

// Worker is a roster entry.
type Worker struct {
	Role     string `json:"role"`
	WorkerID string `json:"workerId"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// Dispatch is one worker attempt of a batch.
type Dispatch struct {
	DispatchID       string       `json:"dispatchId"`
	DispatchKind     DispatchKind `json:"dispatchKind,omitempty"`
	InvocationRef    string       `json:"invocationRef,omitempty"`
	RoleExecutionRef string       `json:"roleExecutionRef,omitempty"`
	Role             string       `json:"role,omitempty"`
	WorkerID         string       `json:"workerId,omitempty"`
	Provider         string       `json:"provider,omitempty"`
	Model            string       `json:"model,omitempty"`
	ExecutionLabel   string       `json:"executionLabel,omitempty"`
	PromptPath       string       `json:"promptPath,omitempty"`
	ResultPath       string       `json:"resultPath,omitempty"`
	StatusPath       string       `json:"statusPath,omitempty"`
	LogPath          string       `json:"logPath,omitempty"`
	MetadataPath     string       `json:"metadataPath,omitempty"`
	Backend          string       `json:"backend,omitempty"`
	PaneID           string       `json:"paneId,omitempty"`
	Attempt          int          `json:"attempt,omitempty"`
	Status           Status       `json:"status"`
	Reason           string       `json:"reason"`
	ExitCode         *int         `json:"exitCode,omitempty"`
	PID              int          `json:"pid,omitempty"`
	// IdleTimeoutSeconds is the idle limit the worker runs under (0: none),
	// and IdleTimeoutSource says where it came from: "jobs-file" (the job's
	// idleTimeoutSeconds), "catalog" (the role's default idle budget) or
	// "providers.json" (the user's override of that budget).
	IdleTimeoutSeconds int    `json:"idleTimeoutSeconds,omitempty"`
	IdleTimeoutSource  string `json:"idleTimeoutSource,omitempty"`
	DispatchedAt       string `json:"dispatchedAt,omitempty"`
	SettledAt          string `json:"settledAt,omitempty"`
	// CollectedAt is when a phase-5-collect checkpoint was recorded for this
	// dispatch, so no command records it twice.
	CollectedAt string `json:"collectedAt,omitempty"`
	// ResultDigest links the result to its dispatch (the seed: "the result
	// is linked to its dispatch"): the digest of the Result Path's bytes
	// when the dispatch settled completed.
	ResultDigest string `json:"resultDigest,omitempty"`
}

// MarshalJSON writes the dispatch as its fields say, except that an idle
// limit of 0 whose source is known is written ("idleTimeoutSeconds": 0,
// before idleTimeoutSource): "no limit" is then on the record, and a
// rewrite merged over an earlier limit replaces it instead of keeping it.
func (d Dispatch) MarshalJSON() ([]byte, error) {
	type plain Dispatch
	b, err := json.Marshal(plain(d))
	if err != nil || d.IdleTimeoutSeconds != 0 || d.IdleTimeoutSource == "" {
		return b, err
	}
	// Keys are fixed and a quote inside a string value is escaped, so this
	// is the member's own key.
	const key = `,"idleTimeoutSource":`
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return b, nil
	}
	out := make([]byte, 0, len(b)+24)
	out = append(out, b[:i]...)
	out = append(out, `,"idleTimeoutSeconds":0`...)
	return append(out, b[i:]...), nil
}

// TeardownReason is the reason written on a dispatch that was still running
// when the run was torn down.
const TeardownReason = "torn down before reaching a terminal status (team teardown)"

// Terminal reports whether the dispatch has settled.
func (d *Dispatch) Terminal() bool { return IsTerminal(d.Status) }

// ReadTeamState reads team-state; a missing file is an empty team-state.
func ReadTeamState(path, display string) (*TeamState, error) {
	data, err := ReadRegular(path, display)
	if errors.Is(err, fs.ErrNotExist) {
		return &TeamState{}, nil
	}
	if err != nil {
		return nil, readErr(display, err)
	}
	if ts := cachePeek(path, data); ts != nil {
		return ts, nil
	}
	ts, _, err := decodeTeamState(data, display)
	if err != nil {
		return nil, err
	}
	return ts, nil
}

// UpdateTeamState runs fn on team-state under its lock and writes the result
// atomically, keeping members it does not know in place. A missing file
// starts empty with teamName set to defaultName. Nothing is written when fn
// fails or changes nothing.
func UpdateTeamState(path, display, defaultName string, fn func(*TeamState) error) error {
	return UpdateTeamStateContext(context.Background(), path, display, defaultName, fn)
}

// UpdateTeamStateContext is UpdateTeamState giving up its wait for the
// lock when ctx ends.
func UpdateTeamStateContext(ctx context.Context, path, display, defaultName string, fn func(*TeamState) error) error {
	return WithLockContext(ctx, path, func() error {
		data, err := ReadRegular(path, display)
		var ts *TeamState
		var doc *teamStateDoc
		switch {
		case errors.Is(err, fs.ErrNotExist):
			ts = &TeamState{TeamName: defaultName}
		case err != nil:
			return readErr(display, err)
		default:
			if ts, doc = cacheTake(path, data); ts == nil {
				if ts, doc, err = decodeTeamState(data, display); err != nil {
					return err
				}
			}
		}
		if err := fn(ts); err != nil {
			return err
		}
		ids, runs, err := validateUpdate(ts, doc, display)
		if err != nil {
			return err
		}
		out, ndoc, err := encodeTeamState(ts, doc, ids, runs)
		if err != nil {
			return fmt.Errorf("encode %s: %w", display, err)
		}
		if bytes.Equal(out, data) {
			return nil
		}
		if err := WriteFileAtomic(path, out, 0o644); err != nil {
			return err
		}
		// ts and ndoc are not touched after this; the next writer may take them.
		cachePut(path, ts, ndoc)
		return nil
	})
}

func (ts *TeamState) validate(file string) error {
	ids := make(map[string]struct{}, len(ts.WorkerDispatches))
	for i := range ts.WorkerDispatches {
		id := ts.WorkerDispatches[i].DispatchID
		if id == "" {
			return errf(file, fmt.Sprintf("workerDispatches[%d].dispatchId", i), "is missing")
		}
		if _, dup := ids[id]; dup {
			return errf(file, fmt.Sprintf("workerDispatches[%d].dispatchId", i), "%q appears twice", id)
		}
		ids[id] = struct{}{}
	}
	return nil
}

// Dispatch returns the dispatch with id, or nil.
func (ts *TeamState) Dispatch(id string) *Dispatch {
	for i := range ts.WorkerDispatches {
		if ts.WorkerDispatches[i].DispatchID == id {
			return &ts.WorkerDispatches[i]
		}
	}
	return nil
}

// NextDispatchID returns the next free "dispatch-NNN" id.
func (ts *TeamState) NextDispatchID() string {
	max := 0
	for _, d := range ts.WorkerDispatches {
		var n int
		if _, err := fmt.Sscanf(d.DispatchID, "dispatch-%d", &n); err == nil && n > max {
			max = n
		}
	}
	return fmt.Sprintf("dispatch-%03d", max+1)
}

// HasReportWriterDispatch reports whether any report-writer dispatch was
// recorded before.
func (ts *TeamState) HasReportWriterDispatch() bool {
	for _, d := range ts.WorkerDispatches {
		if d.DispatchKind == DispatchReportWriter {
			return true
		}
	}
	return false
}

// AddWorker records a roster entry unless one with that role exists.
func (ts *TeamState) AddWorker(w Worker) {
	for _, x := range ts.Workers {
		if x.Role == w.Role {
			return
		}
	}
	ts.Workers = append(ts.Workers, w)
}

// AttemptFor returns the attempt number for a new dispatch of invocation or
// prompt: one more than the dispatches recorded for it.
func (ts *TeamState) AttemptFor(invocationRef, promptPath string) int {
	n := 1
	for _, d := range ts.WorkerDispatches {
		if (invocationRef != "" && d.InvocationRef == invocationRef) || d.PromptPath == promptPath {
			n++
		}
	}
	return n
}

// Now is the clock used for timestamps; tests may replace it.
var Now = func() time.Time { return time.Now().UTC() }

// Timestamp formats t as the files do (RFC 3339, UTC, seconds).
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// RosterRoleFromWorker turns a worker id or a hyphenated roster role into
// the roster role spelling: "claude-worker" and "claude" → "Claude worker",
// "report-writer-worker" → "Report writer worker".
func RosterRoleFromWorker(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	words := strings.Fields(strings.ReplaceAll(s, "-", " "))
	if len(words) == 0 {
		return ""
	}
	for i := range words {
		words[i] = strings.ToLower(words[i])
	}
	if words[len(words)-1] != "worker" {
		words = append(words, "worker")
	}
	words[0] = strings.ToUpper(words[0][:1]) + words[0][1:]
	return strings.Join(words, " ")
}
