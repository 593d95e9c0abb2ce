package engine

import (
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/view"
)

// counted is an event carrying the publisher's counter after the change.
type counted struct{ n int }

// newCountedBroker is a broker of counted events, none whole-state.
func newCountedBroker() *broker[counted] { return newBrokerOf(func(counted) bool { return false }) }

// TestSubscribeLosesNothingPublishedMeanwhile subscribes many times while a
// publisher changes a counter and publishes each new value. Every
// subscriber's snapshot says where the counter stood; from then on it must
// see every later value, in order, once: none published between its
// snapshot and its subscription is lost, and none its snapshot already
// showed comes again.
func TestSubscribeLosesNothingPublishedMeanwhile(t *testing.T) {
	b := newCountedBroker()
	var mu sync.Mutex
	counter := 0
	const total = 20000
	stopPub := make(chan struct{})
	pubDone := make(chan struct{})
	go func() {
		defer close(pubDone)
		for i := 0; i < total; i++ {
			b.update(func() (counted, bool) {
				mu.Lock()
				defer mu.Unlock()
				counter++
				return counted{counter}, true
			})
			select {
			case <-stopPub:
				return
			default:
			}
		}
	}()
	type result struct {
		first, last int
		err         string
	}
	results := make(chan result, 64)
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			events, stop := b.subscribe(func() []counted {
				mu.Lock()
				defer mu.Unlock()
				return []counted{{counter}}
			})
			defer stop()
			snap := (<-events).n
			want := snap + 1
			deadline := time.After(testenv.Scale(30 * time.Second))
			for want <= min(snap+200, total) {
				select {
				case ev := <-events:
					if got := ev.n; got != want {
						results <- result{snap, got, "after the snapshot at " + itoa(snap) + " came " + itoa(got) + ", want " + itoa(want)}
						return
					}
					want++
				case <-deadline:
					results <- result{snap, want - 1, "stalled"}
					return
				}
			}
			results <- result{snap, want - 1, ""}
		}()
	}
	wg.Wait()
	close(stopPub)
	<-pubDone
	close(results)
	for r := range results {
		if r.err != "" {
			t.Error(r.err)
		}
	}
}

// TestSubscribeAnnouncesEveryPaneOnce opens panes while subscribers come:
// each subscriber hears of every pane exactly once, from its snapshot or
// from the event, never both and never neither.
func TestSubscribeAnnouncesEveryPaneOnce(t *testing.T) {
	t.Parallel() // beside TestFrozenEventsClientIsDropped's wait
	c, _ := startCockpit(t)
	const panes = 12
	type sub struct {
		events <-chan view.Event
		stop   func()
	}
	subs := make(chan sub, panes)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range panes {
			ev, stop := c.Subscribe()
			subs <- sub{ev, stop}
		}
		close(subs)
	}()
	for i := range panes {
		if _, err := c.OpenPane(control.OpenPaneParams{Argv: []string{"sleep", "30"}, Title: "p" + itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	for s := range subs {
		seen := map[string]int{}
		deadline := time.After(testenv.Scale(10 * time.Second))
		for len(seen) < panes {
			select {
			case ev := <-s.events:
				if po, ok := ev.(view.PaneOpened); ok {
					seen[po.PaneID]++
					if seen[po.PaneID] > 1 {
						t.Fatalf("%s announced twice", po.PaneID)
					}
				}
			case <-deadline:
				t.Fatalf("a subscriber heard of %d panes of %d: %v", len(seen), panes, seen)
			}
		}
		s.stop()
	}
}

// TestSubscribeBatchesDeliversInOrder: a batch subscriber gets its whole
// snapshot in its first receive, then the events published meanwhile,
// every one once and in order, never an empty batch; the channel closes
// when the subscription ends.
func TestSubscribeBatchesDeliversInOrder(t *testing.T) {
	b := newCountedBroker()
	snap := []counted{{1}, {2}, {3}}
	sub := b.subscribeBatches(func() []counted { return snap }, 0)
	batches, stop := sub.C, sub.Stop
	for n := 4; n <= 50; n++ {
		b.publish(counted{n})
	}
	var got []int
	first := true
	for len(got) < 50 {
		select {
		case batch := <-batches:
			if len(batch) == 0 {
				t.Fatal("an empty batch")
			}
			if first && len(batch) < len(snap) {
				t.Fatalf("the first batch %v does not hold the whole snapshot", batch)
			}
			first = false
			for _, ev := range batch {
				got = append(got, ev.n)
			}
		case <-time.After(testenv.Scale(5 * time.Second)):
			t.Fatalf("got %v, then nothing", got)
		}
	}
	for i, n := range got {
		if n != i+1 {
			t.Fatalf("events out of order or repeated: %v", got)
		}
	}
	stop()
	select {
	case _, ok := <-batches:
		if ok {
			t.Fatal("a batch after the subscription ended")
		}
	case <-time.After(testenv.Scale(5 * time.Second)):
		t.Fatal("the channel stayed open after the subscription ended")
	}
}

// TestBurstOfEveryEventKind: a burst of every kind of engine event
// published while a batch subscriber is busy arrives whole, in order, in
// its next batch — a view replaced by the newer one, nothing else dropped
// (control's TestWireHandlesEveryEvent holds every kind to the wire).
func TestBurstOfEveryEventKind(t *testing.T) {
	b := newBroker()
	sub := b.subscribeBatches(nil, 0)
	defer sub.Stop()
	kinds := view.Events()
	b.publish(view.Notice{Text: "first"})
	first := <-sub.C // the subscriber is now "busy" with it: nothing is taken
	if len(first) != 1 {
		t.Fatalf("first batch %v", first)
	}
	var burst []view.Event
	for range 3 {
		burst = append(burst, kinds...)
	}
	for _, ev := range burst {
		b.publish(ev)
	}
	var got []view.Event
	deadline := time.After(testenv.Scale(10 * time.Second))
	for len(got) < len(burst)-2 {
		select {
		case batch := <-sub.C:
			got = append(got, batch...)
		case <-deadline:
			t.Fatalf("got %d events of the burst, then nothing: %v", len(got), got)
		}
	}
	// Every event but the two older views, in the order published.
	var want []view.Event
	views := 0
	for _, ev := range burst {
		if _, ok := ev.(view.ViewUpdated); ok {
			views++
			if views < 3 {
				continue
			}
		}
		want = append(want, ev)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the burst came as %v, want %v", got, want)
	}
}

// TestLaggingSubscriberIsDropped: a subscriber with a limit whose queue
// passes it is dropped whole (its channel closes, Lagged), and the others
// keep every event; views never count toward the limit.
func TestLaggingSubscriberIsDropped(t *testing.T) {
	b := newBroker()
	slow := b.subscribeBatches(nil, 10)
	defer slow.Stop()
	other := b.subscribeBatches(nil, 0)
	defer other.Stop()
	for range 100 {
		b.publish(view.ViewUpdated{}) // coalesced: never past the limit
	}
	if b.count() != 2 {
		t.Fatal("views took a subscriber past its limit")
	}
	for range 20 {
		b.publish(view.Notice{Text: "n"})
	}
	waitUntil(t, "the lagging subscriber is dropped", func() bool { return b.count() == 1 })
	for range slow.C { // drain until closed
	}
	if !slow.Lagged() {
		t.Fatal("the dropped subscriber does not say it lagged")
	}
	n := 0
	for n < 21 {
		select {
		case batch := <-other.C:
			n += len(batch)
		case <-time.After(testenv.Scale(10 * time.Second)):
			t.Fatalf("the other subscriber got %d events of 21", n)
		}
	}
}
