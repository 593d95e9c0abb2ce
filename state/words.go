package state

import (
	"fmt"
	"strings"
)

// The words of the run's files that the cockpit acts on are named types:
// a status, a dispatch kind or a gate kind is never a bare string literal.
// To add one: a constant here, then the switch of its check (IsTerminal,
// CheckDispatchKind) when it changes what the word means.

// Status is a worker dispatch's status in team-state, or a sidecar's.
type Status string

// Statuses. A dispatch is in progress until it settles to a terminal one;
// a sidecar starts at started.
const (
	StatusInProgress Status = "in-progress"
	StatusStarted    Status = "started" // a sidecar's first status
	StatusCompleted  Status = "completed"
	StatusTimeout    Status = "timeout"
	StatusError      Status = "error"
	StatusNotRun     Status = "not-run"
)

// Terminal reports whether s is a terminal worker status: completed,
// timeout, error or not-run, after which nothing changes.
func (s Status) Terminal() bool { return IsTerminal(s) }

// DispatchKind is what a batch of dispatches is for (a jobs file's
// dispatchKind): initial, reverify-r<N>, critic, report-writer or
// translator.
type DispatchKind string

// Dispatch kinds; reverify rounds are ReverifyKind(n).
const (
	DispatchInitial      DispatchKind = "initial"
	DispatchCritic       DispatchKind = "critic"
	DispatchReportWriter DispatchKind = "report-writer"
	DispatchTranslator   DispatchKind = "translator"
)

// ReverifyKind is the dispatch kind of reverification round n (from 1).
func ReverifyKind(n int) DispatchKind { return DispatchKind(fmt.Sprintf("reverify-r%d", n)) }

// IsReverify reports whether k is a reverification round.
func (k DispatchKind) IsReverify() bool { return strings.HasPrefix(string(k), "reverify-r") }

// GateKind is the kind of question a lead asks the human through the
// cockpit.
type GateKind string

// Gate kinds.
const (
	// GateDecision picks one of a clarification's options.
	GateDecision GateKind = "decision"
	// GateReportAuthoring approves or denies writing the final report,
	// with a reason.
	GateReportAuthoring GateKind = "report-authoring"
)
