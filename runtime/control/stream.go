package control

import (
	"context"
	"errors"
	"time"
)

// lagGrace is how long the lagging notice may take to write.
const lagGrace = time.Second

// stream writes a subscriber's events until the connection or the
// subscription ends. It takes events from the handler only as fast as the
// client reads them (the handler's queue is the only one), so a client
// that stops reading is disconnected either way: when one write waits
// past the write-stall limit, or when the handler drops it for falling
// behind (then it is told why, if it still reads), as tmux drops a
// control client that is too far behind.
func (s *Server) stream(c *conn, next func(context.Context) ([]EventMessage, error)) {
	for {
		msgs, err := next(c.ctx)
		if errors.Is(err, ErrLagging) {
			s.log.Warn("subscriber disconnected: fell behind", "conn", c.n, "client", c.client)
			c.wmu.Lock()
			c.stall = lagGrace
			c.wmu.Unlock()
			_ = c.send(Reply{Error: &RPCError{Code: CodeLagging, Message: "disconnected: " + err.Error() + "; subscribe again"}})
			c.c.Close()
			return
		}
		if err != nil {
			return
		}
		for _, m := range msgs {
			if err := c.send(m); err != nil {
				s.log.Warn("subscriber disconnected", "conn", c.n, "client", c.client, "err", err)
				return
			}
		}
	}
}
