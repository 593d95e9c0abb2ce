package state

import (
	"encoding/json"
	"fmt"
)

// Next-phase pointer statuses.
const (
	PointerReady    = "ready"
	PointerPending  = "pending"
	PointerBlocked  = "blocked"
	PointerTerminal = "terminal"
)

// NextPhase is a task manifest's workflow.nextRecommendedPhase: where the task
// goes next and whether that phase can be started. Read Status; a non-empty
// Phase says nothing about launchability (prepare lowers a ready pointer to
// pending and keeps its phase).
type NextPhase struct {
	Phase     string `json:"phase"`
	Status    string `json:"status"`
	Rationale string `json:"rationale"`
	// Legacy is set when the manifest held the old bare-string form; such a
	// pointer is read as pending.
	Legacy bool `json:"-"`
}

// Ready reports whether the pointer names a phase that can be started now.
func (p NextPhase) Ready() bool { return p.Status == PointerReady && p.Phase != "" }

// ReadNextPhase reads workflow.nextRecommendedPhase from a task manifest.
// A manifest without a pointer returns (nil, nil).
func ReadNextPhase(path, display string) (*NextPhase, error) {
	var doc struct {
		Workflow *struct {
			Next json.RawMessage `json:"nextRecommendedPhase"`
		} `json:"workflow"`
	}
	if err := readJSON(path, display, &doc); err != nil {
		return nil, err
	}
	if doc.Workflow == nil || len(doc.Workflow.Next) == 0 || string(doc.Workflow.Next) == "null" {
		return nil, nil
	}
	raw := doc.Workflow.Next
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, errf(display, "workflow.nextRecommendedPhase", "is not a string or object")
		}
		return &NextPhase{Phase: s, Status: PointerPending, Legacy: true}, nil
	}
	p := &NextPhase{}
	if err := json.Unmarshal(raw, p); err != nil {
		return nil, errf(display, "workflow.nextRecommendedPhase", "is not an object with phase, status and rationale")
	}
	switch p.Status {
	case PointerReady, PointerPending, PointerBlocked, PointerTerminal:
	default:
		return nil, errf(display, "workflow.nextRecommendedPhase.status", "is %q; expected ready, pending, blocked or terminal", p.Status)
	}
	return p, nil
}

// String renders the pointer for a header.
func (p NextPhase) String() string {
	if p.Phase == "" {
		return fmt.Sprintf("next: (%s) %s", p.Status, p.Rationale)
	}
	return fmt.Sprintf("next: %s (%s) %s", p.Phase, p.Status, p.Rationale)
}
