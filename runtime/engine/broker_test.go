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
