package control

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// lagGrace is how long a write under way may still take once its
// subscriber is known to have fallen behind.
const lagGrace = time.Second

// stream writes a subscriber's events until the connection or the
// subscription ends. The engine never waits on the client: a goroutine
// takes every event at once into a queue here, and this loop writes the
// queue out. A client that stops reading is disconnected either way: when
// one write waits past the write-stall limit, or when its queue passes the
// event backlog limit (then it is told it fell behind, if it still reads),
// as tmux drops a control client that is too far behind.
func (s *Server) stream(c *conn, events <-chan EventMessage) {
	var (
		mu     sync.Mutex
		queue  [][]byte
		queued int
		over   bool
		ended  bool
		wake   = make(chan struct{}, 1)
	)
	signal := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	go func() {
		defer func() {
			mu.Lock()
			ended = true
			mu.Unlock()
			signal()
		}()
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					return
				}
				data, err := json.Marshal(ev)
				if err != nil {
					continue
				}
				data = append(data, '\n')
				mu.Lock()
				if over {
					// Dropped: keep taking them, so the engine never waits,
					// until the writer has hung up.
					mu.Unlock()
					continue
				}
				if queued+len(data) > s.lim.EventBacklog && s.lim.EventBacklog > 0 {
					over, queue, queued = true, nil, 0
					mu.Unlock()
					// A write under way to a client that stopped reading
					// gets a second more, not the whole write-stall limit.
					_ = c.c.SetWriteDeadline(time.Now().Add(lagGrace))
					signal()
					continue
				}
				queue = append(queue, data)
				queued += len(data)
				mu.Unlock()
				signal()
			case <-c.ctx.Done():
				return
			}
		}
	}()
	for {
		select {
		case <-wake:
		case <-c.ctx.Done():
			return
		}
		mu.Lock()
		batch, lagged, done := queue, over, ended
		queue, queued = nil, 0
		mu.Unlock()
		for _, line := range batch {
			if err := c.write(line); err != nil {
				s.log.Warn("subscriber disconnected", "conn", c.n, "client", c.client, "err", err)
				return
			}
			mu.Lock()
			lagged = over
			mu.Unlock()
			if lagged {
				break
			}
		}
		if lagged {
			s.log.Warn("subscriber disconnected: fell behind", "conn", c.n, "client", c.client, "backlog", s.lim.EventBacklog)
			_ = c.send(Reply{Error: &RPCError{Code: CodeLagging, Message: fmt.Sprintf("disconnected: this client fell more than %d bytes of events behind; subscribe again", s.lim.EventBacklog)}})
			c.c.Close()
			return
		}
		if done {
			return
		}
	}
}
