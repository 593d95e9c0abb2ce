package tui

import (
	"errors"
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/runtime/view"
)

// PaneCost tells the screen what a pane's worker has cost so far, in USD.
// Cost is usually unknown; the title bar shows it once a PaneCost arrives.
type PaneCost struct {
	PaneID string
	USD    float64
}

// framesMsg carries the snapshots of the panes that changed. loop is set
// when it comes from the frame loop, which then waits for the next frame.
type framesMsg struct {
	snaps   []paneSnap
	loop    bool
	initial bool // the first snapshot of every pane the Manager held (cmdSyncPanes)
}

// frameStoppedMsg says the frame loop ended (the screen is quitting).
type frameStoppedMsg struct{}

// opsDoneMsg says the queued pane operations ran; err joins the failures
// worth showing.
type opsDoneMsg struct{ err error }

// closeFailedMsg says a pane the human closed could not be closed.
type closeFailedMsg struct{ err error }

// tickMsg redraws elapsed times once a second while a dispatch runs.
type tickMsg struct{}

// cmdWaitFrame waits for the next frame with changed panes and returns
// their snapshots: one message per frame, whatever the volume of output.
// Snapshots are taken here, off the event loop, by the snapper (see
// snapshots.go), because a pane's lock may be held by its reader while the
// emulator digests a large chunk.
func (a *App) cmdWaitFrame() tea.Cmd {
	if a.snaps == nil {
		return nil
	}
	snaps, ctx := a.snaps, a.ctx
	return func() tea.Msg {
		got, err := snaps.nextFrame(ctx)
		if err != nil {
			return frameStoppedMsg{}
		}
		return framesMsg{snaps: got, loop: true}
	}
}

// cmdSyncPanes snapshots every pane the Manager holds, so panes opened
// before the program started are drawn at once.
func (a *App) cmdSyncPanes() tea.Cmd {
	if a.mgr == nil {
		return nil
	}
	mgr, sub := a.mgr, a.sub
	return func() tea.Msg {
		var ids []string
		for _, p := range mgr.List() {
			ids = append(ids, p.ID())
		}
		return framesMsg{snaps: takeSnaps(mgr, sub, ids), initial: true}
	}
}

// takeSnaps snapshots the panes ids and takes their events from sub; ids
// of panes closed meanwhile are skipped.
func takeSnaps(mgr *panes.Manager, sub *dirtySub, ids []string) []paneSnap {
	out := make([]paneSnap, 0, len(ids))
	for _, id := range ids {
		p, ok := mgr.Get(id)
		if !ok {
			continue
		}
		out = append(out, paneSnap{id: id, snap: p.Snapshot(), events: sub.takeEvents(id)})
	}
	return out
}

// opKind is what a paneOp does.
type opKind uint8

const (
	opResize opKind = iota + 1
	opKey
	opPaste
	opMouse
	opFocus
	opText
)

// paneOp is one piece of pane I/O decided by Update and performed by
// cmdApplyOps. Ops run one batch at a time, in the order queued, so keys
// reach the program in the order they were typed and a resize lands before
// the keys that follow it.
type paneOp struct {
	kind       opKind
	id         string
	key        panes.Key
	text       string
	mouse      panes.Mouse
	cols, rows int
	in         bool
}

// queue appends an op for the next cmdApplyOps. A resize replaces a
// pending resize of the same pane: when panes are announced one by one,
// every announcement changes every size, and only the last one matters.
func (a *App) queue(op paneOp) {
	if op.kind == opResize {
		a.ops = slices.DeleteFunc(a.ops, func(o paneOp) bool { return o.kind == opResize && o.id == op.id })
	}
	a.ops = append(a.ops, op)
}

// typeInto sends a key or a paste (op) to its pane from Update itself when
// nothing is queued or running ahead of it, else queues it behind the rest.
// A pane's input never blocks its caller (the pane writes what the PTY takes
// at once and queues the rest for its writer goroutine, and encodes keys
// without the lock its reader holds), so a typed key reaches the program
// without the hop through a command goroutine and the opsDoneMsg that
// followed it (docs/PERFORMANCE.md, "Keystroke echo against tmux").
func (a *App) typeInto(op paneOp) {
	if a.snaps != nil {
		a.snaps.keyed.Store(true)
	}
	if a.mgr == nil || a.opsBusy || len(a.ops) > 0 {
		a.queue(op)
		return
	}
	p, ok := a.mgr.Get(op.id)
	if !ok {
		return
	}
	if err := op.apply(p); err != nil && !errors.Is(err, panes.ErrExited) && !errors.Is(err, panes.ErrClosed) {
		a.notice = fmt.Sprintf("%s: %v", op.id, err)
	}
	a.typed = true
}

// cmdApplyOps performs the queued ops unless a batch is still running; the
// next batch starts when opsDoneMsg arrives.
func (a *App) cmdApplyOps() tea.Cmd {
	if a.opsBusy || len(a.ops) == 0 || a.mgr == nil {
		return nil
	}
	ops := a.ops
	a.ops = nil
	a.opsBusy = true
	mgr := a.mgr
	return func() tea.Msg {
		var errs []error
		for _, op := range ops {
			p, ok := mgr.Get(op.id)
			if !ok {
				continue
			}
			if err := op.apply(p); err != nil && !errors.Is(err, panes.ErrExited) && !errors.Is(err, panes.ErrClosed) {
				errs = append(errs, fmt.Errorf("%s: %w", op.id, err))
			}
		}
		return opsDoneMsg{err: errors.Join(errs...)}
	}
}

func (op paneOp) apply(p *panes.Pane) error {
	switch op.kind {
	case opResize:
		return p.Resize(op.cols, op.rows)
	case opKey:
		return p.SendKey(op.key)
	case opPaste:
		return p.Paste(op.text)
	case opMouse:
		_, err := p.SendMouse(op.mouse)
		return err
	case opFocus:
		return p.Focus(op.in)
	case opText:
		_, err := p.Write([]byte(op.text))
		return err
	}
	return nil
}

// cmdClosePane asks the engine to close pane id; without an engine action
// it closes the pane through the Manager and reports it closed.
func (a *App) cmdClosePane(id string) tea.Cmd {
	closePane, mgr := a.actions.ClosePane, a.mgr
	return func() tea.Msg {
		if closePane != nil {
			closePane(id)
			return nil
		}
		if mgr == nil {
			return closeFailedMsg{err: fmt.Errorf("close %s: no pane manager", id)}
		}
		if err := mgr.Close(id); err != nil && !errors.Is(err, panes.ErrNoPane) {
			return closeFailedMsg{err: err}
		}
		return view.PaneClosed{PaneID: id, Reason: "closed from the screen"}
	}
}

// cmdQuit tells the engine the human quit, ends the frame loop and ends the
// program.
func (a *App) cmdQuit() tea.Cmd {
	quit, cancel := a.actions.Quit, a.cancel
	return func() tea.Msg {
		if quit != nil {
			quit()
		}
		cancel()
		return tea.QuitMsg{}
	}
}

// cmdTickIfNeeded keeps one tick in flight while a visible pane's elapsed
// time is running, so the clock in its title advances; an idle screen has
// no timer at all.
func (a *App) cmdTickIfNeeded() tea.Cmd {
	if a.ticking || a.manual || !a.clockRunning() {
		return nil
	}
	a.ticking = true
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{} })
}

// clockRunning reports whether a shown pane has a running elapsed time.
func (a *App) clockRunning() bool {
	if a.batchRunning() {
		return true
	}
	for _, pv := range a.panes {
		if !pv.rect.Empty() && pv.hasDisp && pv.settled.IsZero() && !pv.dispatched.IsZero() {
			return true
		}
	}
	return false
}
