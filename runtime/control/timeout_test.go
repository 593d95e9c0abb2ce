package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/okstra/cockpit/runtime/internal/runtest"
)

// wedged is an engine that takes connections and answers only what
// answer allows (hello, say), never anything else: a wedged engine.
func wedged(t *testing.T, answer func(method string) bool) string {
	t.Helper()
	sock := filepath.Join(runtest.ShortDir(t), "wedged.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			go func() {
				r := bufio.NewReader(c)
				for {
					msg, err := ReadMessage(r)
					if err != nil {
						return
					}
					var req Request
					_ = json.Unmarshal(msg, &req)
					if answer(req.Method) {
						_ = WriteMessage(c, Reply{ID: req.ID, Result: json.RawMessage(`{"version":1}`)})
					}
				}
			}()
		}
	}()
	return sock
}

// shorten sets *d to v for the test.
func shorten(t *testing.T, d *time.Duration, v time.Duration) {
	old := *d
	*d = v
	t.Cleanup(func() { *d = old })
}

// TestClientCallsAreBounded: against a wedged engine, a call fails with
// ErrNoAnswer within its timeout whatever the caller's context allows:
// hello, a pane call, and a gate (which has no timeout: its pings go
// unanswered).
func TestClientCallsAreBounded(t *testing.T) {
	ctx := context.Background() // no deadline: the client's bounds alone
	t.Run("hello", func(t *testing.T) {
		shorten(t, &Hello.Timeout, 200*time.Millisecond)
		sock := wedged(t, func(string) bool { return false })
		start := time.Now()
		_, err := Dial(ctx, sock, "team dispatch")
		if !errors.Is(err, ErrNoAnswer) {
			t.Fatalf("hello to a wedged engine: %v, want ErrNoAnswer", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("hello took %s", d)
		}
	})
	t.Run("open-pane", func(t *testing.T) {
		shorten(t, &OpenPane.Timeout, 200*time.Millisecond)
		sock := wedged(t, func(m string) bool { return m == MethodHello })
		c, err := Dial(ctx, sock, "team dispatch")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := OpenPane.Call(ctx, c, OpenPaneParams{Argv: []string{"true"}}); !errors.Is(err, ErrNoAnswer) {
			t.Fatalf("open-pane on a wedged engine: %v, want ErrNoAnswer", err)
		}
	})
	t.Run("gate", func(t *testing.T) {
		shorten(t, &pingInterval, 50*time.Millisecond)
		shorten(t, &Ping.Timeout, 200*time.Millisecond)
		sock := wedged(t, func(m string) bool { return m == MethodHello })
		c, err := Dial(ctx, sock, "gate ask")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := Gate.Call(ctx, c, GateParams{}); !errors.Is(err, ErrNoAnswer) {
			t.Fatalf("a gate on a wedged engine: %v, want ErrNoAnswer", err)
		}
	})
	t.Run("gate on a live engine", func(t *testing.T) {
		// Pings answered: the gate waits on, until the caller gives up.
		shorten(t, &pingInterval, 20*time.Millisecond)
		shorten(t, &Ping.Timeout, 200*time.Millisecond)
		sock := wedged(t, func(m string) bool { return m == MethodHello || m == MethodPing })
		c, err := Dial(ctx, sock, "gate ask")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		cctx, cancel := context.WithTimeout(ctx, 600*time.Millisecond) // three ping timeouts
		defer cancel()
		if _, err := Gate.Call(cctx, c, GateParams{}); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a gate on an engine that answers pings: %v, want it to wait until the caller's deadline", err)
		}
	})
}
