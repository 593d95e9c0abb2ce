package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/panes"
)

// TestSnapperLate checks the late path: with no budget at all every
// snapshot misses its frame, and still the next frames deliver every
// pane's final screen without any further output to wake them.
func TestSnapperLate(t *testing.T) {
	t.Parallel() // its own panes and screens; it waits on their output
	for _, budget := range []time.Duration{0, 8 * time.Millisecond} {
		t.Run(budget.String(), func(t *testing.T) {
			mgr := panes.NewManager()
			t.Cleanup(func() { _ = mgr.CloseAll() })
			var ids []string
			for _, n := range []string{"2000", "3000"} {
				p, err := mgr.Open(panes.Config{Argv: []string{paneprog(), "history", n}, Cols: 40, Rows: 10, CloseGrace: 300 * time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, p.ID())
				if err := p.Resize(40, 11); err != nil { // the program prints after a resize
					t.Fatal(err)
				}
			}
			s := newSnapper(mgr, 5*time.Millisecond)
			s.sub = subscribeDirty(mgr)
			t.Cleanup(s.sub.close)
			s.budget = budget
			last := map[string]panes.Snapshot{}
			want := map[string]string{ids[0]: "history line 2000", ids[1]: "history line 3000"}
			deadline := time.Now().Add(20 * time.Second)
			for {
				done := true
				for id, w := range want {
					if !strings.Contains(ansi.Strip(strings.Join(last[id].Lines, "\n")), w) {
						done = false
					}
				}
				if done {
					break
				}
				ctx, cancel := context.WithDeadline(context.Background(), deadline)
				snaps, err := s.next(ctx)
				cancel()
				if err != nil {
					t.Fatalf("final screens not delivered: %v", err)
				}
				if len(snaps) == 0 {
					t.Fatal("an empty frame")
				}
				for _, ps := range snaps {
					if prev, ok := last[ps.id]; ok && ps.snap.Seq < prev.Seq {
						t.Fatalf("%s: snapshot %d delivered after %d", ps.id, ps.snap.Seq, prev.Seq)
					}
					last[ps.id] = ps.snap
				}
			}
		})
	}
}
