package runtime

import (
	"encoding/json"
	"sync"

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
)

// DispatchStatusEvent says a dispatch's status changed (or it appeared).
type DispatchStatusEvent struct {
	DispatchID     string `json:"dispatchId"`
	PaneID         string `json:"paneId,omitempty"`
	Role           string `json:"role"`
	ExecutionLabel string `json:"executionLabel"`
	Status         string `json:"status"`
	Reason         string `json:"reason,omitempty"`
	Pending        int    `json:"pending"`
	Done           int    `json:"done"`
}

// CheckpointEvent is one new ledger line.
type CheckpointEvent struct {
	At           string `json:"at"`
	ProgressLine string `json:"progressLine"`
}

// GateEvent says a gate opened or closed.
type GateEvent struct {
	GateID    string `json:"gateId"`
	Kind      string `json:"kind"`
	Statement string `json:"statement,omitempty"`
}

// socketHandler serves the control socket from the cockpit, turning its
// events into wire events: views become the changes between them.
type socketHandler struct{ *Cockpit }

// Handler returns the control-socket view of the cockpit.
func (c *Cockpit) handler() Handler { return socketHandler{c} }

func (h socketHandler) Subscribe() (<-chan EventMessage, func()) {
	in, stopIn := h.Cockpit.Subscribe()
	out := make(chan EventMessage, 64)
	quit := make(chan struct{})
	go func() {
		defer close(out)
		var prev *RunView
		for ev := range in {
			for _, m := range WireEvents(prev, ev) {
				select {
				case out <- m:
				case <-quit: // the connection is gone; nobody reads out
					return
				}
			}
			if vu, ok := ev.(ViewUpdated); ok {
				v := vu.View
				prev = &v
			}
		}
	}()
	var once sync.Once
	return out, func() {
		once.Do(func() {
			close(quit)
			stopIn()
		})
	}
}

func msg(name string, v any) EventMessage {
	data, _ := json.Marshal(v)
	return EventMessage{Event: name, Data: data}
}

// WireEvents turns one engine event into socket events. The first view a
// subscriber sees is its baseline and emits nothing.
func WireEvents(prev *RunView, ev any) []EventMessage {
	switch e := ev.(type) {
	case PaneOpened:
		return []EventMessage{msg(EventPaneOpened, e)}
	case PaneClosed:
		return []EventMessage{msg(EventPaneClosed, e)}
	case Notice:
		return []EventMessage{msg(EventNotice, e)}
	case ViewUpdated:
		if prev == nil {
			return nil
		}
		return viewDiff(*prev, e.View)
	}
	return nil
}

func viewDiff(a, b RunView) []EventMessage {
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
	if len(b.Timeline) > len(a.Timeline) {
		for _, t := range b.Timeline[len(a.Timeline):] {
			out = append(out, msg(EventCheckpoint, CheckpointEvent{At: state.Timestamp(t.At), ProgressLine: t.Line}))
		}
	}
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
