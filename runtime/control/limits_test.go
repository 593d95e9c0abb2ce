package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/internal/runtest"
)

// waitUntil polls cond every 10 ms for up to d (scaled to the machine).
func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	d = testenv.Scale(d)
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func listenTest(t *testing.T, h Handler, lim Limits) (*Server, string) {
	t.Helper()
	sock := filepath.Join(runtest.ShortDir(t), "s", "cockpit.sock")
	s, err := ListenWith(sock, h, HelloResult{}, Options{Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, sock
}

// TestSilentConnectionIsClosed: a connection that never says hello is
// hung up on after the handshake limit, and the server serves on.
func TestSilentConnectionIsClosed(t *testing.T) {
	lim := DefaultLimits
	lim.Handshake = 300 * time.Millisecond
	_, sock := listenTest(t, &countingHandler{}, lim)
	nc, err := dialRaw(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetReadDeadline(time.Now().Add(testenv.Scale(20 * time.Second)))
	if _, err := io.ReadAll(nc); err != nil {
		t.Fatalf("the silent connection was not closed: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Scale(10*time.Second))
	defer cancel()
	c, err := Dial(ctx, sock, "test")
	if err != nil {
		t.Fatalf("the server stopped serving: %v", err)
	}
	c.Close()
}

// TestConnectionCap: past MaxConns a new connection is told busy and
// closed; once one goes, a new one is served.
func TestConnectionCap(t *testing.T) {
	lim := DefaultLimits
	lim.MaxConns = 3
	s, sock := listenTest(t, &countingHandler{}, lim)
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Scale(10*time.Second))
	defer cancel()
	var open []*Client
	for range 3 {
		c, err := Dial(ctx, sock, "test")
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, c)
	}
	_, err := Dial(ctx, sock, "test")
	var re *RPCError
	if !errors.As(err, &re) || re.Code != CodeBusy || !strings.Contains(re.Message, "3 connections") {
		t.Fatalf("a connection past the cap: %v, want a busy refusal", err)
	}
	open[0].Close()
	waitUntil(t, 10*time.Second, "a connection slot is free", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.conns) < 3
	})
	c, err := Dial(ctx, sock, "test")
	if err != nil {
		t.Fatalf("after a connection went: %v", err)
	}
	c.Close()
	for _, c := range open[1:] {
		c.Close()
	}
}

// streamHandler serves a subscription whose next gives 20 KB events for
// ever (lag: says the subscriber lagged at once).
type streamHandler struct {
	countingHandler
	lag     bool
	taken   atomic.Int32 // events next handed out
	stopped atomic.Bool
}

func (h *streamHandler) Subscribe() (func(context.Context) ([]EventMessage, error), func()) {
	data, _ := json.Marshal(map[string]string{"text": strings.Repeat("x", 20<<10)})
	return func(ctx context.Context) ([]EventMessage, error) {
			if h.lag {
				return nil, ErrLagging
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			h.taken.Add(1)
			return []EventMessage{{Event: EventNotice, Data: data}}, nil
		}, func() {
			h.stopped.Store(true)
		}
}

// subscribeRaw says hello and subscribes on a raw connection, reading the
// two replies.
func subscribeRaw(t *testing.T, sock string) (net.Conn, *bufio.Reader) {
	t.Helper()
	nc, err := dialRaw(sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	r := bufio.NewReader(nc)
	if _, err := nc.Write([]byte(`{"id":1,"method":"hello","params":{"version":1,"client":"cockpit events"}}` + "\n" + `{"id":2,"method":"subscribe"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := ReadMessage(r); err != nil {
			t.Fatal(err)
		}
	}
	return nc, r
}

// TestFrozenSubscriberIsDisconnected: a `cockpit events` client that stops
// reading is disconnected once a write waits past the write-stall limit,
// and the server took from the engine only what the socket could hold
// (the engine's queue is the only one, and it drops laggards).
func TestFrozenSubscriberIsDisconnected(t *testing.T) {
	lim := DefaultLimits
	lim.WriteStall = 300 * time.Millisecond
	h := &streamHandler{}
	_, sock := listenTest(t, h, lim)
	subscribeRaw(t, sock) // and read nothing more
	waitUntil(t, 20*time.Second, "the frozen subscriber is disconnected", h.stopped.Load)
	if n := h.taken.Load(); n >= 600 {
		t.Fatalf("the server took %d events of 20 KB for a client that reads nothing", n)
	}
}

// TestLaggingSubscriberIsTold: a subscriber the engine dropped for falling
// behind gets a lagging error, then the connection closes.
func TestLaggingSubscriberIsTold(t *testing.T) {
	h := &streamHandler{lag: true}
	_, sock := listenTest(t, h, DefaultLimits)
	nc, r := subscribeRaw(t, sock)
	_ = nc.SetReadDeadline(time.Now().Add(testenv.Scale(20 * time.Second)))
	msg, err := ReadMessage(r)
	if err != nil {
		t.Fatal(err)
	}
	var rep Reply
	if json.Unmarshal(msg, &rep) != nil || rep.Error == nil || rep.Error.Code != CodeLagging || !strings.Contains(rep.Error.Message, "subscribe again") {
		t.Fatalf("the dropped subscriber got %s", msg)
	}
	if _, err := ReadMessage(r); !errors.Is(err, io.EOF) {
		t.Fatalf("after the lagging notice: %v, want the end", err)
	}
}

// TestPlantedLockFileIsRefused: a lock file planted as a symlink (to a
// file outside the run) or as a FIFO is refused with one line naming it;
// the link's target is not written, and a FIFO is not waited on.
func TestPlantedLockFileIsRefused(t *testing.T) {
	dir := runtest.ShortDir(t)
	sock := filepath.Join(dir, "s", "cockpit.sock")
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(dir, "outside.txt")
	if err := os.WriteFile(outside, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, sock+".lock"); err != nil {
		t.Fatal(err)
	}
	_, err := Listen(sock, &countingHandler{}, HelloResult{})
	if err == nil || !strings.Contains(err.Error(), sock+".lock is a symlink") {
		t.Fatalf("a symlinked lock file: %v, want a refusal naming it", err)
	}
	if data, _ := os.ReadFile(outside); string(data) != "precious\n" {
		t.Fatalf("the symlink's target was written: %q", data)
	}
	os.Remove(sock + ".lock")
	if err := unix.Mkfifo(sock+".lock", 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		s, err := Listen(sock, &countingHandler{}, HelloResult{})
		if err == nil {
			s.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "is not a regular file (a FIFO)") {
			t.Fatalf("a FIFO lock file: %v, want a refusal naming it", err)
		}
	case <-time.After(testenv.Scale(10 * time.Second)):
		t.Fatal("Listen hangs on a FIFO lock file")
	}
}
