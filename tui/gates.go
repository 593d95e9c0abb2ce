package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/runtime/view"
)

// The root's side of gates: which gate's dialog opens when, and what an
// answer the engine took or refused does to the run view. The dialog
// itself is gatedialog.go.

// syncGates follows the run view's gates: a gate not seen before opens its
// dialog while the human is navigating with nothing else open (never
// while typing into a pane: the status line says it is waiting, and the
// prefix then g opens it).
func (a *App) syncGates() tea.Cmd {
	var cmd tea.Cmd
	for _, g := range a.run.Gates {
		if a.gatesSeen[g.ID] {
			continue
		}
		a.gatesSeen[g.ID] = true
		var lead *paneView
		if a.leadPane != "" {
			lead = a.byID[a.leadPane]
		}
		notice := a.notice
		a.raise(AlertGate, lead, "gate "+g.ID+" is waiting for your answer")
		if a.top() == nil && a.mode == modeNav {
			a.notice = notice // the dialog says it
			cmd = a.openGate(g.ID)
		}
	}
	return cmd
}

// openGate opens the dialog on gate id (the oldest waiting one if empty).
func (a *App) openGate(id string) tea.Cmd {
	if id == "" {
		if len(a.run.Gates) == 0 {
			a.notice = "no gate is waiting"
			return nil
		}
		id = a.run.Gates[0].ID
	}
	if d := overlayOf[*gateDialog](a); d != nil && d.id == id {
		return nil
	}
	return a.push(newGateDialog(&a.screenEnv, id))
}

// cmdAnswerGate delivers an answer through Actions.AnswerGate. The screen
// says "answered" only when it returns nil: the engine has the answer
// recorded (see docs/SCREEN.md, "Gate dialog").
func (a *App) cmdAnswerGate(ans view.GateAnswer) tea.Cmd {
	answer := a.actions.AnswerGate
	return func() tea.Msg {
		if answer == nil {
			return gateAnsweredMsg{ans: ans, err: fmt.Errorf("this screen has no engine to answer gates; use cockpit user-response write")}
		}
		return gateAnsweredMsg{ans: ans, err: answer(ans)}
	}
}

// onGateAnswered: an answer the engine took drops its gate from this
// screen's view (until the engine's next view says so, it is not shown
// again); one it refused leaves the gate waiting, and says why when its
// dialog is not open to say it.
func (a *App) onGateAnswered(m gateAnsweredMsg) {
	id := m.ans.GateID
	d := overlayOf[*gateDialog](a)
	if m.err != nil {
		if d == nil || d.id != id {
			a.notice = "gate " + id + ": not recorded: " + m.err.Error() + "; " + a.gateKey() + " to answer again"
		}
		return
	}
	what := "option " + fmt.Sprint(m.ans.Option+1)
	if m.ans.Status != "" {
		what = map[string]string{"approved": "approve", "denied": "deny"}[m.ans.Status]
	}
	a.notice = "gate " + id + " answered: " + what
	a.gatesSeen[id] = true
	var left []view.Gate
	for _, g := range a.run.Gates {
		if g.ID != id {
			left = append(left, g)
		}
	}
	a.run.Gates = left
}
