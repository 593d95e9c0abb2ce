package control

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// Event names on the control socket (and in `cockpit events --json`).
const (
	EventPaneOpened     = "pane-opened"
	EventPaneClosed     = "pane-closed"
	EventDispatchStatus = "dispatch-status"
	EventCheckpoint     = "checkpoint"
	EventGateOpened     = "gate-opened"
	EventGateClosed     = "gate-closed"
	EventNotice         = "notice"
	EventUsage          = "usage"
)

// DispatchStatusEvent says a dispatch's status changed (or it appeared).
type DispatchStatusEvent struct {
	DispatchID     string       `json:"dispatchId"`
	PaneID         string       `json:"paneId,omitempty"`
	Role           string       `json:"role"`
	ExecutionLabel string       `json:"executionLabel"`
	Status         state.Status `json:"status"`
	Reason         string       `json:"reason,omitempty"`
	Pending        int          `json:"pending"`
	Done           int          `json:"done"`
}

// CheckpointEvent is one new ledger line.
type CheckpointEvent struct {
	At           string `json:"at"`
	ProgressLine string `json:"progressLine"`
}

// GateEvent says a gate opened or closed.
type GateEvent struct {
	GateID    string         `json:"gateId"`
	Kind      state.GateKind `json:"kind"`
	Statement string         `json:"statement,omitempty"`
}

// UsageEvent says a worker's tokens or cost changed (docs/COST.md), with
// the run's total so far.
type UsageEvent struct {
	DispatchID string `json:"dispatchId"`
	view.Usage
	TotalUSD float64 `json:"totalUsd"`
	Unpriced int     `json:"unpriced,omitempty"` // workers with tokens at no known price
}

func msg(name string, v any) EventMessage {
	data, _ := json.Marshal(v)
	return EventMessage{Event: name, Data: data}
}

// WireEvents turns one engine event into socket events. The first view a
// subscriber sees is its baseline and emits nothing. Every kind of
// view.Event has its case (TestWireHandlesEveryEvent).
func WireEvents(prev *view.RunView, ev view.Event) []EventMessage {
	switch e := ev.(type) {
	case view.PaneOpened:
		return []EventMessage{msg(EventPaneOpened, e)}
	case view.PaneClosed:
		return []EventMessage{msg(EventPaneClosed, e)}
	case view.Notice:
		return []EventMessage{msg(EventNotice, e)}
	case view.ViewUpdated:
		if prev == nil {
			return nil
		}
		return viewDiff(*prev, e.View)
	}
	return nil
}

func viewDiff(a, b view.RunView) []EventMessage {
	var out []EventMessage
	old := map[string]state.Dispatch{}
	for _, d := range a.Dispatches {
		old[d.DispatchID] = d
	}
	for _, d := range b.Dispatches {
		if o, ok := old[d.DispatchID]; ok && o.Status == d.Status {
			continue
		}
		out = append(out, msg(EventDispatchStatus, DispatchStatusEvent{
			DispatchID: d.DispatchID, PaneID: d.PaneID, Role: d.Role, ExecutionLabel: d.ExecutionLabel,
			Status: d.Status, Reason: d.Reason, Pending: b.Batch.Pending, Done: b.Batch.Done,
		}))
	}
	// The checkpoints appended since a: the view keeps only the newest of
	// a long ledger, so they are counted by the ledger's total.
	if added := timelineTotal(b) - timelineTotal(a); added > 0 {
		for _, t := range b.Timeline[len(b.Timeline)-min(added, len(b.Timeline)):] {
			out = append(out, msg(EventCheckpoint, CheckpointEvent{At: state.Timestamp(t.At), ProgressLine: t.Line}))
		}
	}
	out = append(out, usageDiff(a, b)...)
	had := map[string]bool{}
	for _, g := range a.Gates {
		had[g.ID] = true
	}
	has := map[string]bool{}
	for _, g := range b.Gates {
		has[g.ID] = true
		if !had[g.ID] {
			out = append(out, msg(EventGateOpened, GateEvent{GateID: g.ID, Kind: g.Kind, Statement: g.Statement}))
		}
	}
	for _, g := range a.Gates {
		if !has[g.ID] {
			out = append(out, msg(EventGateClosed, GateEvent{GateID: g.ID, Kind: g.Kind}))
		}
	}
	return out
}

// timelineTotal is how many checkpoints v's ledger holds.
func timelineTotal(v view.RunView) int { return max(v.TimelineTotal, len(v.Timeline)) }

// usageDiff is a usage event for each worker whose usage changed, in
// dispatch id order; costs rounded to a millionth of a dollar.
func usageDiff(a, b view.RunView) []EventMessage {
	var ids []string
	for id, u := range b.Usage {
		if a.Usage[id] != u {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	sort.Strings(ids)
	total, unpriced := b.TotalCost()
	round := func(x float64) float64 { return math.Round(x*1e6) / 1e6 }
	out := make([]EventMessage, 0, len(ids))
	for _, id := range ids {
		u := b.Usage[id]
		u.CostUSD, u.ListUSD = round(u.CostUSD), round(u.ListUSD)
		out = append(out, msg(EventUsage, UsageEvent{DispatchID: id, Usage: u, TotalUSD: round(total), Unpriced: unpriced}))
	}
	return out
}

// Wire turns one subscriber's stream of engine events into wire events,
// keeping the last view to tell what changed (WireEvents).
type Wire struct{ prev *view.RunView }

// Next is the wire events of the next engine event.
func (w *Wire) Next(ev view.Event) []EventMessage {
	msgs := WireEvents(w.prev, ev)
	if vu, ok := ev.(view.ViewUpdated); ok {
		v := vu.View
		w.prev = &v
	}
	return msgs
}

// EventLine renders a wire event for people: its name and its fields.
func EventLine(ev EventMessage) string {
	var fields map[string]any
	_ = json.Unmarshal(ev.Data, &fields)
	var b strings.Builder
	b.WriteString(ev.Event)
	for _, k := range []string{"paneId", "dispatchId", "title", "executionLabel", "status", "reason", "pending", "done", "progressLine", "gateId", "statement", "text", "model", "costUsd", "totalUsd"} {
		if v, ok := fields[k]; ok && v != "" && v != nil {
			fmt.Fprintf(&b, " %s=%v", k, v)
		}
	}
	return b.String()
}
