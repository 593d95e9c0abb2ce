package tui

import (
	"sync"

	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/panes/term"
)

// The Manager's change signal has one consumer: TakeDirty empties the set,
// and Pane.TakeEvents empties a pane's events. Several screens on one
// Manager (attached screens of one engine) would steal each other's frames
// and bells. So the screens of a process never read the Manager's signal
// themselves: one dirtyHub per Manager passes its wake-ups on to every
// screen's dirtySub, and a screen taking its frame takes the Manager's set
// and the changed panes' events for every screen, each getting its copy.
// The set is taken only when a screen takes a frame, as before: a pane
// stays marked (and does not signal again) until then, so a busy pane
// wakes the screens once a frame, not once a write. The hub exists while a
// screen is subscribed; its goroutine ends with the last subscription.

// dirtyHub reads one Manager's change signal for every screen showing it.
type dirtyHub struct {
	mgr  *panes.Manager
	stop chan struct{} // closed when the last subscription ends
	done chan struct{} // closed when run returned

	mu   sync.Mutex
	subs map[*dirtySub]struct{}
	ids  []string // scratch for pull
}

// dirtySub is one screen's share of a Manager's changes: the panes changed
// since it last took them, and their events.
type dirtySub struct {
	hub *dirtyHub
	sig chan struct{} // holds a value while ids is not empty

	mu     sync.Mutex
	ids    []string
	marked map[string]bool
	events map[string][]term.Event
	closed bool
}

// hubs are the live hubs by Manager; stopping are hubs whose goroutine is
// still ending (a new hub for the same Manager waits for it, so two hubs
// never take from one Manager at once).
var hubs struct {
	mu       sync.Mutex
	live     map[*panes.Manager]*dirtyHub
	stopping map[*panes.Manager]*dirtyHub
}

// subscribeDirty returns a new subscription to mgr's changes. The caller
// snapshots what it needs after subscribing: changes before it are not
// delivered. close ends it.
func subscribeDirty(mgr *panes.Manager) *dirtySub {
	for {
		hubs.mu.Lock()
		if old := hubs.stopping[mgr]; old != nil {
			hubs.mu.Unlock()
			<-old.done
			hubs.mu.Lock()
			if hubs.stopping[mgr] == old {
				delete(hubs.stopping, mgr)
			}
			hubs.mu.Unlock()
			continue
		}
		if hubs.live == nil {
			hubs.live = make(map[*panes.Manager]*dirtyHub)
			hubs.stopping = make(map[*panes.Manager]*dirtyHub)
		}
		h := hubs.live[mgr]
		if h == nil {
			h = &dirtyHub{mgr: mgr, stop: make(chan struct{}), done: make(chan struct{}), subs: make(map[*dirtySub]struct{})}
			hubs.live[mgr] = h
			go h.run()
		}
		s := &dirtySub{hub: h, sig: make(chan struct{}, 1), marked: make(map[string]bool), events: make(map[string][]term.Event)}
		h.mu.Lock()
		h.subs[s] = struct{}{}
		h.mu.Unlock()
		hubs.mu.Unlock()
		// Its first take pulls whatever is marked: a screen that ended
		// between a wake-up and its take left panes marked, which do not
		// signal again until taken.
		s.wake()
		return s
	}
}

// close ends the subscription; the last one stops the hub. Safe to call
// more than once.
func (s *dirtySub) close() {
	h := s.hub
	hubs.mu.Lock()
	defer hubs.mu.Unlock()
	s.mu.Lock()
	already := s.closed
	s.closed = true
	s.mu.Unlock()
	if already {
		return
	}
	h.mu.Lock()
	delete(h.subs, s)
	last := len(h.subs) == 0
	h.mu.Unlock()
	if last && hubs.live[h.mgr] == h {
		delete(hubs.live, h.mgr)
		hubs.stopping[h.mgr] = h
		close(h.stop)
	}
}

// run passes the Manager's change signal on to every subscription: the
// Manager calls wakeAll on the goroutine of the pane that changed (no
// goroutine of the hub's own to wake in between), until the last
// subscription ends.
func (h *dirtyHub) run() {
	defer close(h.done)
	h.mgr.OnDirty(h.wakeAll)
	if len(h.mgr.Dirty()) > 0 {
		h.wakeAll() // a change signalled before the hook was in place
	}
	<-h.stop
	h.mgr.OnDirty(nil)
}

func (h *dirtyHub) wakeAll() {
	h.mu.Lock()
	for s := range h.subs {
		s.wake()
	}
	h.mu.Unlock()
}

// pull takes the Manager's changed panes and their events and hands them
// to every subscription; the others are signalled, not by.
func (h *dirtyHub) pull(by *dirtySub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ids = h.mgr.TakeDirty(h.ids[:0])
	if len(h.ids) == 0 {
		return
	}
	var evs map[string][]term.Event
	for _, id := range h.ids {
		if p, ok := h.mgr.Get(id); ok {
			if e := p.TakeEvents(nil); len(e) > 0 {
				if evs == nil {
					evs = make(map[string][]term.Event)
				}
				evs[id] = e
			}
		}
	}
	for s := range h.subs {
		s.add(h.ids, evs)
		if s != by {
			s.wake()
		}
	}
}

func (s *dirtySub) wake() {
	select {
	case s.sig <- struct{}{}:
	default:
	}
}

// add records changed panes and their events.
func (s *dirtySub) add(ids []string, evs map[string][]term.Event) {
	s.mu.Lock()
	for _, id := range ids {
		if !s.marked[id] {
			s.marked[id] = true
			s.ids = append(s.ids, id)
		}
		if e := evs[id]; len(e) > 0 {
			s.events[id] = append(s.events[id], e...)
		}
	}
	s.mu.Unlock()
}

// signal holds a value when panes may have changed since the last take (it
// may hold one after they were taken: take then returns none).
func (s *dirtySub) signal() <-chan struct{} { return s.sig }

// take appends the panes changed since the previous take, in pane order
// per frame, and empties the set.
func (s *dirtySub) take(dst []string) []string {
	// Drained first: a change after the pull below signals again.
	select {
	case <-s.sig:
	default:
	}
	s.hub.pull(s)
	s.mu.Lock()
	defer s.mu.Unlock()
	dst = append(dst, s.ids...)
	s.ids = s.ids[:0]
	clear(s.marked)
	return dst
}

// takeEvents returns and forgets pane id's events (bells, notifications)
// not taken yet.
func (s *dirtySub) takeEvents(id string) []term.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.events[id]
	delete(s.events, id)
	return e
}
