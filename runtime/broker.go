package runtime

import "sync"

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
	mu     sync.Mutex
	queue  []any
	signal chan struct{}
	out    chan any
	done   chan struct{}
	once   sync.Once
}

func newBroker() *broker { return &broker{subs: map[*subscriber]struct{}{}} }

// subscribe returns a channel of events and a function that ends the
// subscription (and closes the channel).
func (b *broker) subscribe(initial ...any) (<-chan any, func()) {
	s := &subscriber{signal: make(chan struct{}, 1), out: make(chan any), done: make(chan struct{})}
	s.queue = append(s.queue, initial...)
	if len(initial) > 0 {
		s.signal <- struct{}{}
	}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	go s.pump()
	return s.out, func() {
		b.mu.Lock()
		delete(b.subs, s)
		b.mu.Unlock()
		s.once.Do(func() { close(s.done) })
	}
}

func (b *broker) publish(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		s.push(ev)
	}
}

func (s *subscriber) push(ev any) {
	s.mu.Lock()
	if _, ok := ev.(ViewUpdated); ok {
		for i := len(s.queue) - 1; i >= 0; i-- {
			if _, old := s.queue[i].(ViewUpdated); old {
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
	defer close(s.out)
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
