package engine

import (
	"sync"
	"testing"
	"time"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/view"
)

// counted is an event carrying the publisher's counter after the change.
type counted struct{ n int }

// TestSubscribeLosesNothingPublishedMeanwhile subscribes many times while a
// publisher changes a counter and publishes each new value. Every
// subscriber's snapshot says where the counter stood; from then on it must
// see every later value, in order, once: none published between its
// snapshot and its subscription is lost, and none its snapshot already
// showed comes again.
func TestSubscribeLosesNothingPublishedMeanwhile(t *testing.T) {
	b := newBroker()
	var mu sync.Mutex
	counter := 0
	const total = 20000
	stopPub := make(chan struct{})
	pubDone := make(chan struct{})
	go func() {
		defer close(pubDone)
		for i := 0; i < total; i++ {
			b.update(func() any {
				mu.Lock()
				defer mu.Unlock()
				counter++
				return counted{counter}
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
			events, stop := b.subscribe(func() []any {
				mu.Lock()
				defer mu.Unlock()
				return []any{counted{counter}}
			})
			defer stop()
			snap := (<-events).(counted).n
			want := snap + 1
			deadline := time.After(30 * time.Second)
			for want <= min(snap+200, total) {
				select {
				case ev := <-events:
					if got := ev.(counted).n; got != want {
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
	c, _ := startCockpit(t)
	const panes = 12
	type sub struct {
		events <-chan any
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
		deadline := time.After(10 * time.Second)
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
	b := newBroker()
	snap := []any{counted{1}, counted{2}, counted{3}}
	batches, stop := b.subscribeBatches(func() []any { return snap })
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
				got = append(got, ev.(counted).n)
			}
		case <-time.After(5 * time.Second):
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
	case <-time.After(5 * time.Second):
		t.Fatal("the channel stayed open after the subscription ended")
	}
}
