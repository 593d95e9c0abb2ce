package tui

import (
	"slices"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/tui/attach"
)

// SizeArbiter decides which of several screens showing the same panes
// sizes them: the screen active last, as tmux's window-size latest. A
// screen becomes the latest on any key, mouse, paste or resize event; only
// the latest one resizes the panes and tells the engine its size
// (Actions.Screen), and when a screen becomes the latest it applies its
// layout's sizes again, whatever it asked before, since another screen may
// have resized the panes meanwhile. The others draw each pane at the size
// it has, cut or padded to their own layout. When the latest screen ends
// (its context is done: detach, quit, Stop), the most recently active
// screen left takes over at once.
//
// Give the same *SizeArbiter to every App on one Manager (Config.Sizes).
// The zero value is ready to use; it is safe for concurrent use.
type SizeArbiter struct {
	mu      sync.Mutex
	seq     uint64
	screens map[*App]*arbiterEntry
	latest  *App
}

type arbiterEntry struct {
	active uint64        // seq of its last activity; 0 never active
	wake   chan struct{} // holds a value when it was made the latest by another screen leaving
}

func (s *SizeArbiter) join(a *App) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.screens == nil {
		s.screens = make(map[*App]*arbiterEntry)
	}
	s.screens[a] = &arbiterEntry{wake: make(chan struct{}, 1)}
}

// leave forgets a; if it was the latest, the screen active most recently
// among those left becomes the latest and is woken to size the panes.
func (s *SizeArbiter) leave(a *App) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.screens, a)
	if s.latest != a {
		return
	}
	s.latest = nil
	var next *arbiterEntry
	for o, e := range s.screens {
		if next == nil || e.active > next.active {
			s.latest, next = o, e
		}
	}
	if next != nil {
		s.seq++
		next.active = s.seq
		select {
		case next.wake <- struct{}{}:
		default:
		}
	}
}

// touch makes a the latest and reports whether it was not already.
func (s *SizeArbiter) touch(a *App) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.screens[a]
	if e == nil {
		return false // it left
	}
	s.seq++
	e.active = s.seq
	was := s.latest == a
	s.latest = a
	return !was
}

func (s *SizeArbiter) isLatest(a *App) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latest == a
}

func (s *SizeArbiter) wake(a *App) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.screens[a]; e != nil {
		return e.wake
	}
	return nil
}

// latestMsg says another screen left and this one is now the latest.
type latestMsg struct{}

// sizesPanes reports whether this screen resizes the panes: it has no
// arbiter, or it is the screen active last.
func (a *App) sizesPanes() bool { return a.sizes == nil || a.sizes.isLatest(a) }

// active records input or a resize on this screen; a screen that becomes
// the latest takes the panes to its sizes.
func (a *App) active() {
	if a.sizes != nil && a.sizes.touch(a) {
		a.takeSizes()
	}
}

// takeSizes forgets the sizes this screen asked of the panes and what it
// told the engine, so both are asked again for the current layout
// (debounced like any relayout).
func (a *App) takeSizes() {
	for _, pv := range a.panes {
		pv.sizedCols, pv.sizedRows = 0, 0
	}
	a.toldScreen = ScreenSize{}
	a.layoutGen++
	if a.resizeDelay <= 0 {
		a.resizePanes()
	}
}

// cmdWatchLatest waits until another screen's end makes this one the
// latest.
func (a *App) cmdWatchLatest() tea.Cmd {
	if a.sizes == nil {
		return nil
	}
	ch, ctx := a.sizes.wake(a), a.ctx
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		select {
		case <-ch:
			return latestMsg{}
		case <-ctx.Done():
			return nil
		}
	}
}

func (a *App) onLatest() tea.Cmd {
	if a.sizes.isLatest(a) {
		a.takeSizes()
	}
	if a.manual {
		return nil
	}
	return a.cmdWatchLatest()
}

// ViewState is what a screen leaves for the next one to come back as it
// was: the engine keeps the last detached screen's (App.ViewState) and
// gives it to the next attached screen (Config.Restore). Scroll mode is
// not kept: the pane comes back at its live screen.
type ViewState struct {
	Focus        string // the focused pane's id
	Zoom         bool   // the focused pane fills the pane area
	HideTimeline bool   // the timeline panel is hidden
	Input        bool   // typing into the focused pane (not on a read-only screen)
}

// ViewState returns the screen's view as of its last Update (or the
// restored one it has not applied yet). Safe from any goroutine, e.g. the
// engine's once the session ended.
func (a *App) ViewState() ViewState {
	if v := a.published.Load(); v != nil {
		return *v
	}
	return a.viewState()
}

func (a *App) viewState() ViewState {
	if a.restore != nil {
		// Its pane has not shown up yet: what was asked still stands.
		v := *a.restore
		v.HideTimeline = !a.showTimeline
		return v
	}
	v := ViewState{HideTimeline: !a.showTimeline}
	if pv := a.focused(); pv != nil {
		v.Focus = pv.id
		v.Zoom = a.zoom
		v.Input = a.mode == modeInput || a.detachTyping
	}
	return v
}

// publish makes the current view state what ViewState returns.
func (a *App) publish() {
	v := a.viewState()
	if old := a.published.Load(); old == nil || *old != v {
		a.published.Store(&v)
	}
}

// applyRestore gives the restored pane the focus, zoom and input mode it
// had, once it is shown; gone (not among the Manager's panes at the first
// sync) the rest of the restore is dropped.
func (a *App) applyRestore(pv *paneView) {
	r := a.restore
	if r == nil || pv.id != r.Focus {
		return
	}
	a.restore = nil
	a.focus = max(slices.Index(a.panes, pv), 0)
	a.zoom = r.Zoom
	if r.Input && !a.readOnly {
		a.setMode(modeInput)
	}
	a.relayout()
}

// refuse says a read-only screen does not do what was asked.
func (a *App) refuse(what string) {
	a.say("read-only screen: " + what)
}

// detach ends this attached screen, leaving the engine and every pane as
// they are; a standalone screen has nothing to detach from.
func (a *App) detach() tea.Cmd {
	if !a.attached {
		a.notice = "not attached to an engine: nothing to detach from (q quits)"
		return nil
	}
	cancel := a.cancel
	return func() tea.Msg {
		cancel() // the frame loop ends; another screen may size the panes
		return attach.Detach()
	}
}

// endRun asks the engine to end the run (Actions.EndRun), then ends the
// session as run-ended.
func (a *App) endRun() tea.Cmd {
	switch {
	case a.readOnly:
		a.refuse("cannot end the run")
		return nil
	case a.actions.EndRun == nil:
		a.notice = "this screen cannot end the run: use cockpit stop"
		return nil
	case a.ending:
		return nil
	}
	a.ending = true
	a.notice = "ending the run…"
	end, cancel := a.actions.EndRun, a.cancel
	return func() tea.Msg {
		end()
		cancel()
		return attach.EndMsg{Reason: attach.ReasonRunEnded, Message: "the run was ended from this screen"}
	}
}
