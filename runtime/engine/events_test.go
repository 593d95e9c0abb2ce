package engine

import (
	"bufio"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/state"
)

// TestFrozenEventsClientIsDropped: a `cockpit events` client that stops
// reading while 600 checkpoints of 20 KB arrive (12 MB of events) is
// disconnected once a write to it stalls, and holds up nobody: a
// subscriber that reads still gets what comes after. Before, the engine
// queued every event for it.
func TestFrozenEventsClientIsDropped(t *testing.T) {
	// It waits out the write stall, so -short runs it beside the others;
	// the full tier (-race in .ci/run) runs it alone: beside the other
	// engine tests under -race its 12 MB of checkpoints took 133 s and the
	// reader's wait expired (a fresh-clone CI, 2026-12-02).
	if testing.Short() {
		t.Parallel()
	}
	run := runtest.FixtureRun(t, state.BackendCockpitPane)
	sock := filepath.Join(runtest.ShortDir(t), "s", "cockpit.sock")
	lim := control.DefaultLimits
	lim.WriteStall = testenv.Scale(time.Second) // the frozen client goes after it; the reading one (subscribed after, one small event) must not stall so long
	logPath := filepath.Join(t.TempDir(), "engine.log")
	lf, err := OpenLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	c, err := Start(Config{Run: run, Socket: sock, SocketLimits: lim, Log: NewLogger(lf)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	frozen, err := dialRawEngine(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer frozen.Close()
	r := bufio.NewReader(frozen)
	if _, err := frozen.Write([]byte(`{"id":1,"method":"hello","params":{"version":1,"client":"cockpit events"}}` + "\n" + `{"id":2,"method":"subscribe"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := control.ReadMessage(r); err != nil {
			t.Fatal(err)
		}
	}
	waitUntil(t, "the frozen client's subscription", func() bool { return c.broker.count() == 1 })
	var evs []state.Event
	for i := range 600 {
		ev, err := state.NewEvent("test", "phase-5-poll", "", [][2]string{{"n", strings.Repeat("x", 20<<10)}, {"i", itoa(i)}}, "")
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	if err := state.AppendEvents(c.run.LeadEventsPath, evs...); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the frozen client is dropped", func() bool { return c.broker.count() == 0 })
	// A reader subscribed now gets the next change.
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Scale(20*time.Second))
	defer cancel()
	cl, err := control.Dial(ctx, sock, "cockpit events")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.Subscribe(ctx); err != nil {
		t.Fatal(err)
	}
	ev, err := state.NewEvent("test", "phase-5-poll", "", [][2]string{{"after", "yes"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := state.AppendEvents(c.run.LeadEventsPath, ev); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case m, ok := <-cl.Events():
			if !ok {
				data, _ := os.ReadFile(logPath)
				t.Fatalf("the reading subscriber was dropped too; the engine's log:\n%s", data)
			}
			if m.Event == control.EventCheckpoint && strings.Contains(string(m.Data), "after=yes") {
				return
			}
		case <-ctx.Done():
			t.Fatal("the reading subscriber got no checkpoint after the frozen one was dropped")
		}
	}
}

func dialRawEngine(path string) (net.Conn, error) { return net.Dial("unix", path) }
