package tui

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/okstra/cockpit/panes"
)

// snapper takes the snapshots of a frame. Snapshot takes the pane's lock,
// which the pane's reader holds while the emulator digests a chunk of
// output; a slow emulator under a flood can hold it for a long time. So
// a dirty pane whose lock is free is snapshotted at once (TrySnapshot),
// and every other one in its own goroutine; the frame takes
// what is ready within a budget, and a snapshot that finishes later goes
// into the next frame: one busy pane never holds back the others.
type snapper struct {
	mgr    *panes.Manager
	sub    *dirtySub // this screen's share of the Manager's changes; set before the first frame
	frame  time.Duration
	budget time.Duration

	// The producer prepares the next frame while the screen draws the
	// current one (see run): ready holds a prepared frame, readySig holds a
	// value while it does, takenSig tells the producer it was taken.
	once     sync.Once
	ready    []paneSnap
	readySig chan struct{}
	takenSig chan struct{}

	// keyed is set when the screen typed into a pane: the next frame that
	// would wait for the frame clock (the key's echo, usually) does not, one
	// frame a key, so output still coalesces.
	keyed atomic.Bool

	mu    sync.Mutex
	busy  map[string]bool // a Snapshot call for the pane is running
	again map[string]bool // the pane changed while busy: snapshot it once more
	cur   *[]paneSnap     // the collecting frame's results, nil between frames
	late  []paneSnap      // finished after their frame's budget
	wake  chan struct{}   // holds a value when late is not empty
	last  time.Time       // when the previous frame started
}

func newSnapper(mgr *panes.Manager, frame time.Duration) *snapper {
	return &snapper{
		mgr:    mgr,
		frame:  frame,
		budget: frame / 2,
		busy:   make(map[string]bool),
		again:  make(map[string]bool),
		wake:   make(chan struct{}, 1),

		readySig: make(chan struct{}, 1),
		takenSig: make(chan struct{}, 1),
	}
}

// nextFrame returns the next frame: the one prepared meanwhile if there is
// one, else the first one ready. The first call starts the producer, which
// ends with ctx.
func (s *snapper) nextFrame(ctx context.Context) ([]paneSnap, error) {
	s.once.Do(func() { go s.run(ctx) })
	select {
	case <-s.readySig:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	s.mu.Lock()
	got := s.ready
	s.ready = nil
	s.mu.Unlock()
	select {
	case s.takenSig <- struct{}{}:
	default:
	}
	return got, nil
}

// run is the producer. It prepares frame n+1 (waits for changes, takes
// the snapshots) while the screen draws frame n, and hands it over once
// frame n was taken. So the time a frame spends going through bubbletea
// (command goroutine, message queue, Update, View) overlaps the wait for
// the next one instead of adding to the frame interval, and at most one
// frame waits, so a slow screen costs no extra snapshots.
func (s *snapper) run(ctx context.Context) {
	snaps, err := s.next(ctx)
	for err == nil {
		s.mu.Lock()
		s.ready = snaps
		s.mu.Unlock()
		s.readySig <- struct{}{}
		snaps, err = s.next(ctx)
		if err != nil {
			return
		}
		select {
		case <-s.takenSig:
		case <-ctx.Done():
			return
		}
	}
}

// next blocks until some pane changed (or a late snapshot is ready) and at
// least a frame passed since the previous call returned (or a key was typed
// since: its echo goes at once, as a key's does in bubbletea's renderer), then returns the
// snapshots of the changed panes: Manager.WaitDirty's rules (on this
// screen's subscription, see dirty.go), plus the late
// delivery. It never returns an empty frame.
func (s *snapper) next(ctx context.Context) ([]paneSnap, error) {
	for {
		select {
		case <-s.sub.signal():
		case <-s.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		// A key lets the next frame through early, once: the flag is
		// spent by this frame whether or not the frame interval is over.
		keyed := s.keyed.Swap(false)
		if wait := time.Until(s.last.Add(s.frame)); wait > 0 && !keyed {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
		}
		// The frame clock runs from the start of a frame, so the time the
		// screen spends drawing one overlaps the wait for the next.
		start := time.Now()
		snaps := s.take(s.sub.take(nil))
		if len(snaps) > 0 {
			s.last = start
			return snaps, nil
		}
	}
}

// inlineSnaps is how many changed panes a frame may have for the producer
// to snapshot those whose lock is free itself; more are snapshotted
// concurrently, as a busy screen's many panes go faster side by side.
const inlineSnaps = 2

// take snapshots ids concurrently and returns those done within the
// budget, after the late ones of earlier frames.
func (s *snapper) take(ids []string) []paneSnap {
	var got []paneSnap
	done := make(chan struct{}, len(ids))
	started := 0
	s.mu.Lock()
	s.cur = &got
	for _, id := range ids {
		if s.busy[id] {
			s.again[id] = true
			continue
		}
		p, ok := s.mgr.Get(id)
		if !ok {
			continue
		}
		if len(ids) <= inlineSnaps {
			if snap, ok := p.TrySnapshot(); ok {
				// The pane's lock was free: snapshotted here, with no
				// goroutine to wake (a key's echo is one such pane).
				got = appendSnap(got, paneSnap{id: id, snap: snap, events: s.sub.takeEvents(id)})
				continue
			}
		}
		s.busy[id] = true
		started++
		go s.snap(p, done)
	}
	s.mu.Unlock()

	if started > 0 {
		t := time.NewTimer(s.budget)
	wait:
		for range started {
			select {
			case <-done:
			case <-t.C:
				break wait
			}
		}
		t.Stop()
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur = nil
	out := append(s.late, got...)
	s.late = nil
	select {
	case <-s.wake:
	default:
	}
	return out
}

// snap snapshots p and hands the result to the collecting frame, or to
// the next one when the budget is over; when the pane changed while it
// was busy, it snapshots once more, so no change is left undrawn.
func (s *snapper) snap(p *panes.Pane, done chan<- struct{}) {
	id := p.ID()
	signalled := false
	for {
		ps := paneSnap{id: id, snap: p.Snapshot(), events: s.sub.takeEvents(id)}
		s.mu.Lock()
		if s.cur != nil {
			*s.cur = appendSnap(*s.cur, ps)
		} else {
			s.late = appendSnap(s.late, ps)
			select {
			case s.wake <- struct{}{}:
			default:
			}
		}
		again := s.again[id]
		delete(s.again, id)
		if !again {
			s.busy[id] = false
		}
		s.mu.Unlock()
		if !signalled {
			// The frame that started this waits for the first result only.
			done <- struct{}{}
			signalled = true
		}
		if !again {
			return
		}
	}
}

// appendSnap adds ps to a frame's snapshots, replacing an older snapshot of the same pane
// but keeping its events.
func appendSnap(late []paneSnap, ps paneSnap) []paneSnap {
	for i := range late {
		if late[i].id == ps.id {
			ps.events = append(late[i].events, ps.events...)
			late[i] = ps
			return late
		}
	}
	return append(late, ps)
}
