package engine

import (
	"sync"
	"sync/atomic"

	"github.com/okstra/cockpit/runtime/view"
)

// broker fans engine events out to subscribers: the engine's one fan-out
// (attached screens, `cockpit serve`, the demo and `cockpit events`
// connections all subscribe here, and each subscriber's queue is the only
// one between the engine and it). Rules: events are delivered in order and
// never dropped, except that a whole-state event (a ViewUpdated) still
// waiting in a subscriber's queue is replaced by a newer one — only the
// latest matters — which bounds a slow subscriber's queue by the number of
// pane and notice events, not by how often files change; and a subscriber
// with a limit whose queue passes it is dropped whole (its channel closes,
// Lagged says why), as tmux drops a control client too far behind.
type broker[E any] struct {
	mu    sync.Mutex
	subs  map[*subscriber[E]]struct{}
	whole func(E) bool // a whole-state event, which a newer one replaces
}

type subscriber[E any] struct {
	mu      sync.Mutex
	queue   []E
	limit   int          // most events queued; 0: no limit
	whole   func(E) bool // the broker's
	lagged  atomic.Bool
	signal  chan struct{}
	out     chan E
	batches chan []E // instead of out: the whole queue at once
	done    chan struct{}
	once    sync.Once
}

// newBroker is the engine's broker of view.Events.
func newBroker() *broker[view.Event] {
	return newBrokerOf(func(ev view.Event) bool {
		_, ok := ev.(view.ViewUpdated)
		return ok
	})
}

func newBrokerOf[E any](whole func(E) bool) *broker[E] {
	return &broker[E]{subs: map[*subscriber[E]]struct{}{}, whole: whole}
}

// subscribe returns a channel of events and a function that ends the
// subscription (and closes the channel). The channel starts with what
// snapshot returns, taken under the broker's lock: every event published
// after the snapshot reaches the subscriber, and none it already shows.
// snapshot must not publish.
func (b *broker[E]) subscribe(snapshot func() []E) (<-chan E, func()) {
	s := &subscriber[E]{signal: make(chan struct{}, 1), out: make(chan E), done: make(chan struct{})}
	return s.out, b.add(s, snapshot)
}

// subscription is a batch subscriber's end: C delivers every event queued
// since the last receive, in order (never an empty batch), and is closed
// when Stop is called or the subscriber was dropped (Lagged).
type subscription[E any] struct {
	C    <-chan []E
	Stop func()
	s    *subscriber[E]
}

// Lagged reports whether the subscriber was dropped for falling more than
// its limit behind.
func (s subscription[E]) Lagged() bool { return s.s.lagged.Load() }

// subscribeBatches is subscribe in batches; a limit > 0 drops the
// subscriber once that many events wait for it.
func (b *broker[E]) subscribeBatches(snapshot func() []E, limit int) subscription[E] {
	s := &subscriber[E]{signal: make(chan struct{}, 1), batches: make(chan []E), done: make(chan struct{}), limit: limit}
	return subscription[E]{C: s.batches, Stop: b.add(s, snapshot), s: s}
}

// add registers s, its queue starting with snapshot, and starts its pump.
func (b *broker[E]) add(s *subscriber[E], snapshot func() []E) func() {
	s.whole = b.whole
	b.mu.Lock()
	if snapshot != nil {
		s.queue = append(s.queue, snapshot()...)
	}
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	go s.pump() // it looks at the queue before it waits for a signal
	return func() {
		b.mu.Lock()
		delete(b.subs, s)
		b.mu.Unlock()
		s.end()
	}
}

func (s *subscriber[E]) end() { s.once.Do(func() { close(s.done) }) }

// publish sends ev to every subscriber.
func (b *broker[E]) publish(ev E) { b.update(func() (E, bool) { return ev, true }) }

// update makes a change and publishes the event it returns (none when ok
// is false) as one step: a subscriber's snapshot shows either neither or
// both. change must not publish.
func (b *broker[E]) update(change func() (ev E, ok bool)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ev, ok := change()
	if !ok {
		return
	}
	for s := range b.subs {
		if !s.push(ev) {
			delete(b.subs, s) // lagged: dropped
		}
	}
}

// push queues ev; false when that took the queue past the limit, and the
// subscriber is dropped.
func (s *subscriber[E]) push(ev E) bool {
	s.mu.Lock()
	if s.whole(ev) {
		for i := len(s.queue) - 1; i >= 0; i-- {
			if s.whole(s.queue[i]) {
				s.queue = append(s.queue[:i], s.queue[i+1:]...)
				break
			}
		}
	}
	if s.limit > 0 && len(s.queue) >= s.limit {
		s.queue = nil
		s.mu.Unlock()
		s.lagged.Store(true)
		s.end()
		return false
	}
	s.queue = append(s.queue, ev)
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
	return true
}

func (s *subscriber[E]) pump() {
	if s.batches != nil {
		defer close(s.batches)
	} else {
		defer close(s.out)
	}
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.mu.Unlock()
			select {
			case <-s.signal:
				continue
			case <-s.done:
				return
			}
		}
		if s.batches != nil {
			batch := s.queue
			s.queue = nil
			s.mu.Unlock()
			select {
			case s.batches <- batch:
			case <-s.done:
				return
			}
			continue
		}
		ev := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		select {
		case s.out <- ev:
		case <-s.done:
			return
		}
	}
}

// count is how many subscribers there are.
func (b *broker[E]) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}
