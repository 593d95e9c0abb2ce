package engine

import (
	"sync"

	"github.com/okstra/cockpit/runtime/view"
)

// broker fans engine events out to subscribers (the screen, `cockpit
// events` connections). Rules: events are delivered in order and never
// dropped, except that a ViewUpdated still waiting in a subscriber's queue is
// replaced by a newer one — a view is a whole state, so only the latest
// matters — which bounds a slow subscriber's queue by the number of pane and
// gate events, not by how often files change.
type broker struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
}

type subscriber struct {
	mu      sync.Mutex
	queue   []any
	signal  chan struct{}
	out     chan any
	batches chan []any // instead of out: the whole queue at once
	done    chan struct{}
	once    sync.Once
}

func newBroker() *broker { return &broker{subs: map[*subscriber]struct{}{}} }

// subscribe returns a channel of events and a function that ends the
// subscription (and closes the channel). The channel starts with what
// snapshot returns, taken under the broker's lock: every event published
// after the snapshot reaches the subscriber, and none it already shows.
// snapshot must not publish.
func (b *broker) subscribe(snapshot func() []any) (<-chan any, func()) {
	s := &subscriber{signal: make(chan struct{}, 1), out: make(chan any), done: make(chan struct{})}
	return s.out, b.add(s, snapshot)
}

// subscribeBatches is subscribe, but each receive takes every event queued
// so far, in order (never an empty batch).
func (b *broker) subscribeBatches(snapshot func() []any) (<-chan []any, func()) {
	s := &subscriber{signal: make(chan struct{}, 1), batches: make(chan []any), done: make(chan struct{})}
	return s.batches, b.add(s, snapshot)
}

// add registers s, its queue starting with snapshot, and starts its pump.
func (b *broker) add(s *subscriber, snapshot func() []any) func() {
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
		s.once.Do(func() { close(s.done) })
	}
}

// publish sends ev to every subscriber.
func (b *broker) publish(ev any) { b.update(func() any { return ev }) }

// update makes a change and publishes the event it returns (none when
// nil) as one step: a subscriber's snapshot shows either neither or both.
// change must not publish.
func (b *broker) update(change func() any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ev := change()
	if ev == nil {
		return
	}
	for s := range b.subs {
		s.push(ev)
	}
}

func (s *subscriber) push(ev any) {
	s.mu.Lock()
	if _, ok := ev.(view.ViewUpdated); ok {
		for i := len(s.queue) - 1; i >= 0; i-- {
			if _, old := s.queue[i].(view.ViewUpdated); old {
				s.queue = append(s.queue[:i], s.queue[i+1:]...)
				break
			}
		}
	}
	s.queue = append(s.queue, ev)
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

func (s *subscriber) pump() {
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
func (b *broker) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}
