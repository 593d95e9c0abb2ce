// Package view holds what the engine shows of a run and tells its screens:
// the RunView (a value rebuilt from the run's files), the gates waiting for
// the human, and the engine's events. Plain data: no I/O, no processes; the
// engine builds it, the screen and the control socket read it.
package view

import (
	"time"

	"github.com/okstra/cockpit/state"
)

// RunView is what the screen shows of a run, rebuilt from the run's files
// whenever the watcher reports a change. It is a value: the engine never
// changes a RunView it handed out.
type RunView struct {
	// Title names the run: "dev-10860 feature-analysis 002".
	Title   string
	Backend string
	// Dispatches are team-state's dispatches, in order.
	Dispatches []state.Dispatch
	// Batch counts the current batch: the dispatches of the most recent
	// dispatch command (same dispatchKind and dispatchedAt as the last one).
	Batch     Counts
	BatchKind state.DispatchKind
	// Timeline holds the ledger's PROGRESS lines, oldest first: the newest
	// of them when the ledger holds more than the engine keeps.
	Timeline []TimelineEntry
	// TimelineTotal is how many checkpoints the ledger holds (0: as many
	// as Timeline).
	TimelineTotal int
	// Next is the task's next-phase pointer, when the run names a task
	// manifest that has one.
	Next *state.NextPhase
	// Gates are the questions waiting for the human, oldest first.
	Gates []Gate
	// Usage is each worker's tokens and cost so far, by dispatch id, for
	// the workers whose CLI has left evidence of them (stream-json events
	// in the pane log, claude's session transcript, codex's rollout,
	// gemini's chat recording, kimi's wire file). Followed with fsnotify
	// while the worker runs. docs/COST.md.
	Usage map[string]Usage
	// Err is the last problem reading the run's files (shown, not fatal).
	Err string
}

// Usage is one worker's token use and what it cost (docs/COST.md).
type Usage struct {
	Input  int64 `json:"input"`  // input tokens not read from a cache, cache writes included
	Cached int64 `json:"cached"` // input tokens read from a cache
	Output int64 `json:"output"` // output tokens, reasoning included
	// CacheWrite is how many of Input were written to a cache (claude,
	// kimi), priced at the model's cache-write price when it has one.
	CacheWrite int64 `json:"cacheWrite,omitempty"`
	// Model is the model the evidence names (may differ from the
	// dispatch's when the CLI says so).
	Model string `json:"model,omitempty"`
	// CostUSD is the cost to show, when Priced: the CLI's own figure when
	// CostSource is CostCLI, else the catalog's price of the tokens.
	CostUSD float64 `json:"costUsd,omitempty"`
	// Priced is false when the cost is not known (no CLI figure, and no
	// price for a model that used tokens): the screen shows "?", never a
	// made-up figure.
	Priced bool `json:"priced"`
	// CostSource says where CostUSD comes from: CostCLI (the CLI reported
	// it: claude's total_cost_usd; a screen may mark it as the CLI's) or
	// CostCatalog (list prices); "" when unpriced.
	CostSource string `json:"costSource,omitempty"`
	// ListUSD is the tokens at the catalog's list prices, when ListPriced;
	// equal to CostUSD when CostSource is CostCatalog.
	ListUSD    float64 `json:"listUsd,omitempty"`
	ListPriced bool    `json:"listPriced,omitempty"`
	// Source names the evidence read ("claude session", "codex rollout",
	// "stream-json", "gemini chat", "kimi wire"); docs/COST.md.
	Source string `json:"source,omitempty"`
}

// Where a Usage's cost comes from (Usage.CostSource).
const (
	CostCatalog = "catalog" // the tokens at the catalog's list prices
	CostCLI     = "cli"     // the CLI's own report of what the run cost
)

// CLICost says whether the cost shown is the CLI's own figure.
func (u Usage) CLICost() bool { return u.CostSource == CostCLI }

// TotalCost sums the priced workers' cost; unpriced is how many workers
// used tokens at no known price (the total is then a lower bound, shown
// with a "?").
func (v RunView) TotalCost() (usd float64, unpriced int) {
	for _, u := range v.Usage {
		if u.Priced {
			usd += u.CostUSD
		} else if u.Input+u.Cached+u.Output > 0 {
			unpriced++
		}
	}
	return usd, unpriced
}

// TimelineEntry is one checkpoint of the ledger.
type TimelineEntry struct {
	At   time.Time
	Line string
}

// Gate is a question the lead asked the human through `cockpit gate ask`.
type Gate struct {
	ID              string // the gate's id (the clarification id, e.g. C-003, or "report-authoring")
	Kind            state.GateKind
	ClarificationID string
	Statement       string
	ExpectedForm    string
	Options         []GateOption // recommended first
	ReasonHint      string       // report-authoring: why the lead asks
	OpenedAt        time.Time
}

// GateOption is one answer the human may pick, with everything needed to
// choose: never folded into one line.
type GateOption struct {
	Role            string // "recommended" or "alternative"
	Answer          string
	Rationale       string
	Reach           string // in-repo or cross-repo
	ScopeEffects    []string
	AddedWork       string
	DirectionChange string
	Disposition     string
}

// GateAnswer is the human's answer to a gate.
type GateAnswer struct {
	GateID string
	Option int    // index into Gate.Options; -1 for report-authoring
	Status string // report-authoring: approved or denied
	Note   string // free text; the Reason for report-authoring
}

// Counts are the phase-5-poll numbers of a set of dispatches.
type Counts struct {
	Pending, Done int
}

// Engine events, sent to the screen (as bubbletea messages) and to
// `cockpit events` subscribers.

// Event is an engine event: ViewUpdated, PaneOpened, PaneClosed or Notice.
// It is sealed (only this package's types are events), so a switch over
// events has a known, short list of cases (Events) that a test can hold
// every switch to.
type Event interface{ engineEvent() }

func (ViewUpdated) engineEvent() {}
func (PaneOpened) engineEvent()  {}
func (PaneClosed) engineEvent()  {}
func (Notice) engineEvent()      {}

// Events is one value of each kind of Event, for tests that every switch
// over events handles every kind.
func Events() []Event {
	return []Event{ViewUpdated{}, PaneOpened{PaneID: "pane-1"}, PaneClosed{PaneID: "pane-1"}, Notice{Text: "notice"}}
}

// ViewUpdated carries a new RunView.
type ViewUpdated struct{ View RunView }

// PaneOpened says the engine opened a pane.
type PaneOpened struct {
	PaneID     string `json:"paneId"`
	Title      string `json:"title"`                // the dispatch's executionLabel, or "lead"
	DispatchID string `json:"dispatchId,omitempty"` // empty for the lead
	Lead       bool   `json:"lead,omitempty"`
}

// PaneClosed says the engine closed a pane (reclaim, teardown, exit).
type PaneClosed struct {
	PaneID string `json:"paneId"`
	Reason string `json:"reason"`
}

// Notice is a one-line message for the status line (a bell, an OSC 9
// notification from a pane, an engine warning).
type Notice struct {
	Text   string `json:"text"`
	PaneID string `json:"paneId,omitempty"`
}
