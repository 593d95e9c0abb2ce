package host

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/panes/vt"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/engine"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/tui/attach"
)

// client is one attached screen read as a terminal would show it.
type client struct {
	t    *testing.T
	conn io.ReadWriteCloser

	mu   sync.Mutex
	term *vt.Emulator
	exit *attach.Outcome
	done chan struct{}
}

func attachTo(t *testing.T, sock string, cols, rows int, readOnly bool) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	nc, r, _, _, err := control.DialAttach(ctx, sock, "test", control.AttachParams{Cols: cols, Rows: rows, Env: []string{"TERM=xterm-256color"}, ReadOnly: readOnly})
	if err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, conn: attach.Buffered(nc, r), term: vt.New(cols, rows), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		dec := attach.NewDecoder(c.conn)
		for {
			f, err := dec.Next()
			if err != nil {
				return
			}
			c.mu.Lock()
			switch f.Type {
			case attach.FrameOutput:
				_, _ = c.term.Write(bytes.ReplaceAll(f.Payload, []byte("\n"), []byte("\r\n")))
			case attach.FrameExit:
				o := f.Outcome()
				c.exit = &o
			}
			c.mu.Unlock()
		}
	}()
	t.Cleanup(func() { c.conn.Close() })
	return c
}

func (c *client) screen() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, rows := c.term.Size()
	var b []byte
	for y := range rows {
		b = append(c.term.AppendLine(b, y, false), '\n')
	}
	return string(b)
}

func (c *client) waitFor(want string) {
	c.t.Helper()
	deadline := time.Now().Add(testenv.Scale(15 * time.Second))
	for !strings.Contains(c.screen(), want) {
		if time.Now().After(deadline) {
			c.t.Fatalf("the screen never showed %q:\n%s", want, c.screen())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (c *client) typeBytes(s string) {
	c.t.Helper()
	if _, err := c.conn.Write(attach.AppendFrame(nil, attach.FrameInput, []byte(s))); err != nil {
		c.t.Fatal(err)
	}
}

// ended waits for the exit frame and the end of the connection.
func (c *client) ended() attach.Outcome {
	c.t.Helper()
	select {
	case <-c.done:
	case <-time.After(15 * time.Second):
		c.t.Fatalf("the session did not end:\n%s", c.screen())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exit == nil {
		c.t.Fatal("the connection ended without an exit frame")
	}
	return *c.exit
}

// TestHostServesScreens runs a real engine with a host over its real
// socket: a screen shows the run, detaching leaves its view for the next
// screen, ending the run from a screen closes Stopping, and EndAll ends
// every other screen as run-ended.
func TestHostServesScreens(t *testing.T) {
	h, eng, sock := startHost(t)

	a := attachTo(t, sock, 120, 40, false)
	a.waitFor("lead-is-here")
	a.waitFor("● 1 lead")
	// A new screen types into the lead: the first key reaches it (cat
	// echoes the line back, the terminal echoes it as typed).
	a.typeBytes("first-key\r")
	deadline := time.Now().Add(testenv.Scale(15 * time.Second))
	for strings.Count(a.screen(), "first-key") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the first key did not reach the lead:\n%s", a.screen())
		}
		time.Sleep(10 * time.Millisecond)
	}
	a.typeBytes("\x02t") // hide the timeline: a view state to come back
	a.typeBytes("\x02d")
	if o := a.ended(); o.Reason != attach.ReasonDetached {
		t.Fatalf("ctrl+b d ended the screen with %+v", o)
	}
	waitNoScreens(t, h) // the host keeps the view state before it lets the screen go
	h.mu.Lock()
	last := h.last
	h.mu.Unlock()
	if last == nil || !last.HideTimeline {
		t.Fatalf("the detached screen left %+v", last)
	}

	b := attachTo(t, sock, 100, 30, false)
	c := attachTo(t, sock, 80, 24, true)
	b.waitFor("lead-is-here")
	c.waitFor("read-only")
	b.typeBytes("\x02q") // the last screen detached typing: b types too
	b.waitFor("Detach, or end the run?")
	b.typeBytes("e")
	if o := b.ended(); o.Reason != attach.ReasonRunEnded {
		t.Fatalf("q e ended the screen with %+v", o)
	}
	select {
	case <-eng.Stopping():
	case <-time.After(5 * time.Second):
		t.Fatal("ending the run from a screen did not stop the engine")
	}
	h.EndAll(attach.Outcome{Reason: attach.ReasonRunEnded, Message: "the run was ended"}, 5*time.Second)
	if o := c.ended(); o.Reason != attach.ReasonRunEnded || o.Message != "the run was ended" {
		t.Fatalf("the other screen ended with %+v", o)
	}
	waitNoScreens(t, h)
}

// startHost starts a real engine on a fixture run, with a host as its
// attach hook, listening on a real socket; the engine is closed when the
// test ends.
func startHost(t *testing.T) (*Host, *engine.Engine, string) {
	t.Helper()
	return startHostLead(t, []string{"/bin/sh", "-c", "echo lead-is-here; exec cat"})
}

// startHostLead is startHost with lead as the lead's argv.
func startHostLead(t *testing.T, lead []string) (*Host, *engine.Engine, string) {
	t.Helper()
	root := fixture.Copy(t)
	fixture.SetTerminalBackend(t, root, state.BackendCockpitPane)
	run, err := state.LoadRun(root, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	dir := testenv.ShortDir(t)
	sock := filepath.Join(dir, "s", "cockpit.sock")
	h := New("")
	eng, err := engine.Start(engine.Config{Run: run, Socket: sock, Attach: h.Attach, CloseGrace: 200 * time.Millisecond,
		Lead: lead})
	if err != nil {
		t.Fatal(err)
	}
	h.SetEngine(eng)
	t.Cleanup(func() { eng.Close() })
	return h, eng, sock
}

func waitNoScreens(t *testing.T, h *Host) {
	t.Helper()
	deadline := time.Now().Add(testenv.Scale(10 * time.Second))
	for h.Screens() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d screens still served", h.Screens())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestReattachRightAfterDetach: the view state a detached screen leaves is
// kept before its client hears that it is detached, so a screen attaching
// the moment the last one's client has gone comes back as it was left.
// Each round toggles the timeline, detaches, and attaches again at once.
func TestReattachRightAfterDetach(t *testing.T) {
	h, _, sock := startHost(t)
	hidden := false
	for round := range 4 {
		a := attachTo(t, sock, 120, 40, false)
		a.waitFor("lead-is-here")
		if got := strings.Contains(a.screen(), "─ timeline"); got == hidden {
			t.Fatalf("round %d: the screen came back with the timeline shown=%v, the last screen left it hidden=%v:\n%s", round, got, hidden, a.screen())
		}
		a.typeBytes("\x02t") // the prefix: a new screen types into the lead
		hidden = !hidden
		a.typeBytes("\x02d")
		if o := a.ended(); o.Reason != attach.ReasonDetached {
			t.Fatalf("round %d: ctrl+b d ended the screen with %+v", round, o)
		}
		// No wait for the host: the client has its exit frame, so the
		// view it leaves must be kept already.
		h.mu.Lock()
		last := h.last
		h.mu.Unlock()
		if last == nil || last.HideTimeline != hidden {
			t.Fatalf("round %d: when the client heard it was detached the host kept %+v, want HideTimeline=%v", round, last, hidden)
		}
	}
}
