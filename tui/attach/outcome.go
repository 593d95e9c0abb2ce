package attach

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// Reason says why a session ended. Reasons 1 to 4 travel in exit frames;
// ReasonLost is the client's own: no exit frame came.
type Reason uint8

const (
	// ReasonDetached: the screen went, the engine and the run go on.
	ReasonDetached Reason = 1
	// ReasonRunEnded: the run ended (the human chose to end it, or `cockpit
	// stop`); the engine is going away.
	ReasonRunEnded Reason = 2
	// ReasonEngineError: the engine could not go on serving this screen (the
	// screen model panicked, or the engine failed). The run may go on.
	ReasonEngineError Reason = 3
	// ReasonKicked: the engine ended this screen (another screen took its
	// place, it broke the protocol, or it stopped reading).
	ReasonKicked Reason = 4
	// ReasonLost: the client lost the connection without an exit frame (the
	// engine died or was killed). Never sent.
	ReasonLost Reason = 5
)

func (r Reason) valid() bool { return r >= ReasonDetached && r <= ReasonKicked }

func (r Reason) String() string {
	switch r {
	case ReasonDetached:
		return "detached"
	case ReasonRunEnded:
		return "run-ended"
	case ReasonEngineError:
		return "engine-error"
	case ReasonKicked:
		return "kicked"
	case ReasonLost:
		return "lost"
	}
	return fmt.Sprintf("reason(%d)", uint8(r))
}

// OK says whether a client ending with this reason should exit 0: detached
// and run-ended are normal ends; the others are failures.
func (r Reason) OK() bool { return r == ReasonDetached || r == ReasonRunEnded }

// Outcome is how a session ended: a reason and one human line (no newline,
// at most MaxMessage bytes on the wire).
type Outcome struct {
	Reason  Reason
	Message string
}

// Error makes an Outcome usable as a context cancellation cause: cancelling
// Serve's context with context.WithCancelCause(ctx) and an Outcome ends the
// session with that outcome.
func (o Outcome) Error() string {
	if o.Message == "" {
		return o.Reason.String()
	}
	return o.Reason.String() + ": " + o.Message
}

// EndMsg is the message a model sends (through End) to end its session with
// an outcome. Serve sees it before the model does, and the model never gets
// it: the program quits, renders its last frame, restores the client's
// terminal, and the outcome goes to the client in the exit frame.
type EndMsg Outcome

// End returns a command that ends the session with the given reason and
// line. A model that quits with plain tea.Quit ends its session as
// ReasonDetached.
func End(reason Reason, message string) tea.Cmd {
	return func() tea.Msg { return EndMsg{Reason: reason, Message: message} }
}

// Detach is End(ReasonDetached, "detached").
func Detach() tea.Msg { return EndMsg{Reason: ReasonDetached, Message: "detached"} }
