package tui

import (
	"slices"
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/panes"
)

// A dead pane and the first key (issue 12, part 5): typing stops when the
// focused pane's program exits (its keys would go nowhere); enter on the
// dead lead pane starts the lead's command again (Actions.RespawnLead,
// tmux's respawn-pane) and types into it; a screen made with TypeIntoLead
// starts typing into the lead, so the first key reaches it.

// respawnedMsg says how Actions.RespawnLead went; pid is the new program's.
type respawnedMsg struct {
	id  string
	pid int
	err error
}

// cmdRespawn asks the engine to start the lead's command again in pane id.
func (a *App) cmdRespawn(id string) tea.Cmd {
	respawn, mgr := a.actions.RespawnLead, a.mgr
	a.notice = "starting the lead again…"
	return func() tea.Msg {
		err := respawn()
		pid := 0
		if err == nil && mgr != nil {
			if p, ok := mgr.Get(id); ok {
				pid = p.Pid()
			}
		}
		return respawnedMsg{id: id, pid: pid, err: err}
	}
}

// onRespawned types into the respawned lead if it still has the focus.
// Until a snapshot of the new program arrives, older ones (of the dead
// program, taken before the respawn) are dropped (freshSnap).
func (a *App) onRespawned(m respawnedMsg) {
	if m.err != nil {
		a.notice = "lead: " + m.err.Error()
		return
	}
	pv := a.byID[m.id]
	if pv == nil {
		return
	}
	a.notice = "the lead started again"
	if pv.snap.Pid != m.pid {
		pv.respawnPid = m.pid
	}
	if pv == a.focused() && a.mode == modeNav && !a.readOnly && a.top() == nil {
		a.setMode(modeInput)
	}
}

// freshSnap reports whether snap may replace pv's snapshot: not one of the
// program the screen just respawned away from.
func (a *App) freshSnap(pv *paneView, snap panes.Snapshot) bool {
	if pv.respawnPid == 0 {
		return true
	}
	if snap.Pid != pv.respawnPid {
		return false
	}
	pv.respawnPid = 0
	return true
}

// dead reports whether pv's program has exited (and no respawn is on its
// way).
func (pv *paneView) dead() bool {
	return pv != nil && pv.hasSnap && pv.snap.Exited && pv.respawnPid == 0
}

// leaveDeadPane stops typing into the focused pane once its program
// exited: keys would go nowhere.
func (a *App) leaveDeadPane(pv *paneView) {
	if pv == a.focused() && a.mode == modeInput && pv.dead() {
		a.mode = modeNav // no focus-out report: nobody is there to read it
	}
}

// deadInput is leaveDeadPane for a key typed before the frame that shows
// the exit: the key is dropped and typing stops.
func (a *App) deadInput(pv *paneView) bool {
	if !pv.dead() {
		return false
	}
	a.mode = modeNav
	return true
}

// enterDeadPane is enter on a dead pane: the lead's command starts again
// (when the screen may), any other pane only says it has exited. dead is
// false for a live pane, which enter types into as usual.
func (a *App) enterDeadPane(pv *paneView) (cmd tea.Cmd, dead bool) {
	if !pv.dead() {
		return nil, false
	}
	switch {
	case !pv.lead:
		a.notice = pv.label() + " has exited"
	case a.scriptedLead:
		a.say("the lead's script has ended; q ends the run")
	case a.readOnly:
		a.refuse("cannot restart the lead")
	case a.actions.RespawnLead == nil:
		a.notice = "the lead has exited; this screen cannot start it again"
	default:
		return a.cmdRespawn(pv.id), true
	}
	return nil, true
}

// deadLine is the last row of a dead lead pane: how it ended, and that
// enter starts it again when this screen can. "" for any other pane.
func (a *App) deadLine(pv *paneView) string {
	if !pv.lead || !pv.dead() {
		return ""
	}
	how := "code " + strconv.Itoa(pv.snap.Status.Code)
	if pv.snap.Status.Signaled() {
		how = "signal: " + pv.snap.Status.Signal.String()
	}
	text := " lead exited (" + how + ")"
	if a.actions.RespawnLead != nil && !a.readOnly && !a.scriptedLead {
		text += " — enter restarts"
	}
	w := pv.rect.W
	if ansi.StringWidth(text) > w {
		text = ansi.Truncate(text, w, "…")
	}
	return a.st.Failed.Reverse(true).Render(text + blank(w-ansi.StringWidth(text)))
}

// typeIntoLead starts typing into the lead's pane the first time it shows
// up on a screen made with Config.TypeIntoLead.
func (a *App) typeIntoLead(pv *paneView) {
	if !a.startTyping || !pv.lead {
		return
	}
	a.startTyping = false
	a.focus = max(slices.Index(a.panes, pv), 0)
	if !pv.dead() && a.top() == nil {
		a.setMode(modeInput)
	}
	a.relayout()
}

// keyBeforeLead sends a key typed before the lead's pane reached the screen
// (its announcement is on its way) to the lead, as it will be typing into
// it: the first key reaches the lead. The prefix gives that up.
func (a *App) keyBeforeLead(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if !a.startTyping || a.leadPane == "" || a.byID[a.leadPane] != nil {
		return nil, false
	}
	if key.Matches(msg, a.keys.Prefix) {
		a.startTyping = false
		a.prefixed = true
		return nil, true
	}
	if op, ok := keyOp(a.leadPane, msg.Key()); ok {
		a.queue(op)
	}
	return nil, true
}
