package tui

import (
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/panes/term"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// paneView is what the screen keeps of one pane: its identity, its latest
// snapshot, where it is drawn, and the rows fitted to that place.
type paneView struct {
	id         string
	title      string // executionLabel, "lead", or the pane id
	dispatchID string
	lead       bool

	snap    panes.Snapshot
	hasSnap bool

	// From the run view: the pane's dispatch.
	status     state.Status // the dispatch status, empty without a dispatch
	dispID     string       // the dispatch shown (the last one with this pane, or the log's)
	model      string
	reason     string
	dispatched time.Time
	settled    time.Time
	hasDisp    bool

	cost      float64
	costKnown bool
	attention bool // a bell or notification arrived while it was not focused
	// log is set on a finished worker's log replayed from <prompt>.log
	// (logpane.go): a pane of this screen only, with no program.
	log *logPane
	// respawnPid is the pid of the program the screen respawned in the
	// pane, until a snapshot of it arrives: older ones are dropped.
	respawnPid int

	rect rect // where it is drawn; empty when hidden
	// sizedCols and sizedRows are the size last asked of the pane, so a
	// layout that does not change it asks nothing.
	sizedCols, sizedRows int

	// fit holds the content rows fitted to fitW columns; fitSrc the snapshot
	// rows they came from, so only rows that changed are fitted again.
	fit     []string
	fitSrc  []string
	fitW    int
	fitCols int // the columns of the pane's own cells in fit (paneCols)

	// titleKey is the plain text the cached title bar titleStr was drawn
	// from.
	titleKey, titleStr string
}

// label is the pane's name in titles, tabs and notices.
func (pv *paneView) label() string {
	if pv.title != "" {
		return pv.title
	}
	return pv.id
}

// paneState is what the status glyph shows.
type paneState uint8

const (
	stateRunning paneState = iota
	stateDone
	stateFailed
	stateTimedOut
	stateNotRun
)

// state derives the pane's state: its dispatch status when it has one,
// else how its program ended.
func (pv *paneView) state() paneState {
	if pv.hasDisp {
		if s := statusState(pv.status); s != stateRunning {
			return s
		}
	}
	if !pv.snap.Exited {
		return stateRunning
	}
	if pv.snap.Status.Code == 0 && !pv.snap.Status.Signaled() {
		return stateDone
	}
	return stateFailed
}

// elapsed is how long the pane's dispatch ran: to its settle time, or to
// now while it runs. ok is false without a dispatch time.
func (pv *paneView) elapsed(now time.Time) (time.Duration, bool) {
	if !pv.hasDisp || pv.dispatched.IsZero() || pv.status == state.StatusNotRun {
		// A dispatch that never ran has no time worth showing.
		return 0, false
	}
	end := now
	if !pv.settled.IsZero() {
		end = pv.settled
	}
	return max(end.Sub(pv.dispatched), 0), true
}

// setSnap keeps a new snapshot.
func (pv *paneView) setSnap(s panes.Snapshot) {
	pv.snap = s
	pv.hasSnap = true
}

// paneSnap is one pane's part of a frame: its snapshot and the events it
// signalled since the previous frame.
type paneSnap struct {
	id     string
	snap   panes.Snapshot
	events []term.Event
}

// onFrames takes the snapshots of a frame and asks for the next one.
func (a *App) onFrames(msg framesMsg) tea.Cmd {
	scrolled := false
	for _, ps := range msg.snaps {
		if a.closed[ps.id] {
			continue
		}
		pv := a.byID[ps.id]
		if pv == nil {
			// A pane the engine has not announced (opened before the
			// program started): show it under its id until it is.
			pv = a.addPane(ps.id)
		}
		if !a.freshSnap(pv, ps.snap) {
			continue
		}
		prev := pv.snap
		pv.setSnap(ps.snap)
		a.onEvents(pv, ps.events)
		a.leaveDeadPane(pv)
		if a.mode == modeScroll && a.scroll.id == pv.id {
			a.followScroll(pv, prev)
			scrolled = true
		}
	}
	if msg.initial && a.restore != nil && a.byID[a.restore.Focus] == nil {
		// The pane focused when the previous screen left is gone.
		a.restore = nil
	}
	var cmds []tea.Cmd
	if msg.loop {
		if !a.manual {
			cmds = append(cmds, a.cmdWaitFrame())
		}
	}
	if scrolled {
		cmds = append(cmds, a.cmdFetchScroll())
	}
	return tea.Batch(cmds...)
}

// onEvents flags a pane that rang or notified while the human was not
// typing into it, and shows notifications on the status line.
func (a *App) onEvents(pv *paneView, evs []term.Event) {
	// One alert per pane and frame: its last notification, else its bell.
	text := ""
	for _, ev := range evs {
		switch ev.Kind {
		case term.EventBell:
			if text == "" {
				text = "bell"
			}
		case term.EventNotify:
			text = ev.Body
			if ev.Title != "" {
				text = ev.Title + ": " + ev.Body
			}
		}
	}
	if text != "" {
		a.raise(AlertPane, pv, pv.label()+": "+text)
	}
}

// addPane adds a pane to the display order (the lead first) and returns it.
func (a *App) addPane(id string) *paneView {
	pv := &paneView{id: id, lead: id == a.leadPane}
	if pv.lead {
		pv.title = "lead"
	}
	a.addPaneView(pv)
	return pv
}

// addPaneView adds pv to the display order (the lead first).
func (a *App) addPaneView(pv *paneView) {
	a.byID[pv.id] = pv
	var cur *paneView
	if f := a.focused(); f != nil {
		cur = f
	}
	if pv.lead {
		a.panes = slices.Insert(a.panes, 0, pv)
	} else {
		a.panes = slices.Insert(a.panes, a.displayIndex(pv.id), pv)
	}
	a.applyDispatch(pv)
	if cur != nil {
		a.focus = slices.Index(a.panes, cur)
	} else {
		a.focus = slices.Index(a.panes, pv)
	}
	a.relayout()
	a.applyRestore(pv)
	a.typeIntoLead(pv)
}

// displayIndex is where a new pane goes in the display order: the
// engine's panes in the order it opened them (pane-N by N, as tmux numbers
// windows), whichever order the screen heard of them in (a frame's
// snapshots, for panes opened before the screen, come in no order); any
// other pane (a replayed log) after them all.
func (a *App) displayIndex(id string) int {
	n, ok := control.PaneNumber(id)
	if !ok {
		return len(a.panes)
	}
	for i, pv := range a.panes {
		if pv.lead {
			continue
		}
		if m, ok := control.PaneNumber(pv.id); !ok || m > n {
			return i
		}
	}
	return len(a.panes)
}

// onPaneOpened names a pane the engine opened (adding it if no frame
// brought it yet).
func (a *App) onPaneOpened(m view.PaneOpened) {
	if a.closed[m.PaneID] {
		return
	}
	if m.Lead {
		a.leadPane = m.PaneID
	}
	pv := a.byID[m.PaneID]
	if pv == nil {
		pv = a.addPane(m.PaneID)
	}
	pv.title = m.Title
	pv.dispatchID = m.DispatchID
	if m.Lead && !pv.lead {
		// Move it to the front, keeping the focus on the same pane.
		cur := a.focused()
		pv.lead = true
		i := slices.Index(a.panes, pv)
		a.panes = slices.Insert(slices.Delete(a.panes, i, i+1), 0, pv)
		a.focus = max(slices.Index(a.panes, cur), 0)
	}
	if pv.title == "" && pv.lead {
		pv.title = "lead"
	}
	a.applyDispatch(pv)
	a.relayout()
	a.typeIntoLead(pv)
}

// onPaneClosed forgets a pane for good; the focus moves to its neighbour.
func (a *App) onPaneClosed(id, reason string) {
	a.closed[id] = true
	pv := a.byID[id]
	if pv == nil {
		return
	}
	cur := a.focused()
	i := slices.Index(a.panes, pv)
	a.panes = slices.Delete(a.panes, i, i+1)
	delete(a.byID, id)
	a.keepLastScreen(pv)
	if cur == pv {
		a.focus = min(i, len(a.panes)-1)
		if a.mode != modeNav {
			a.mode = modeNav
		}
		a.zoom = false
	} else {
		a.focus = max(slices.Index(a.panes, cur), 0)
	}
	if c := overlayOf[*confirmOverlay](a); c != nil && c.paneID == id {
		a.remove(c)
	}
	if a.scroll.id == id {
		a.scroll = scrollState{}
	}
	a.ops = slices.DeleteFunc(a.ops, func(op paneOp) bool { return op.id == id })
	if reason != "" {
		a.notice = pv.label() + " closed: " + reason
	} else {
		a.notice = pv.label() + " closed"
	}
	a.relayout()
}

// onRunView keeps a new run view and refreshes every pane's dispatch.
func (a *App) onRunView(v view.RunView) tea.Cmd {
	prev, first := a.run, !a.haveRun
	a.run = v
	defer a.watchRun(prev, first, v)
	a.haveRun = true
	for _, pv := range a.panes {
		a.applyDispatch(pv)
	}
	// A gate the engine withdrew closes its dialog.
	return tea.Batch(a.toOverlays(envChanged{}), a.syncGates())
}

// applyDispatch copies the pane's dispatch from the run view: the last
// dispatch recorded with its pane id (a retry is a later dispatch).
func (a *App) applyDispatch(pv *paneView) {
	var d *state.Dispatch
	for i := range a.run.Dispatches {
		if a.run.Dispatches[i].PaneID == pv.id || (pv.log != nil && a.run.Dispatches[i].DispatchID == pv.dispatchID) {
			d = &a.run.Dispatches[i]
		}
	}
	if d == nil {
		pv.hasDisp, pv.dispID, pv.model = false, "", ""
		return
	}
	pv.hasDisp = true
	pv.status, pv.reason = d.Status, d.Reason
	pv.dispID, pv.model = d.DispatchID, d.Model
	pv.dispatched = parseTime(d.DispatchedAt)
	pv.settled = parseTime(d.SettledAt)
	if pv.title == "" || pv.title == pv.id {
		pv.title = d.ExecutionLabel
	}
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// runningWorkers counts the worker panes whose program still runs.
func (a *App) runningWorkers() int {
	n := 0
	for _, pv := range a.panes {
		if !pv.lead && !pv.snap.Exited {
			n++
		}
	}
	return n
}
