package engine

import (
	"context"
	"io"

	"github.com/okstra/cockpit/runtime/control"
)

// socketHandler serves the control socket from the engine, turning its
// events into wire events: views become the changes between them.
type socketHandler struct{ *Engine }

// handler is the control-socket view of the engine.
func (c *Engine) handler() control.Handler { return socketHandler{c} }

// SubscriberLimit is how many events may wait for one `cockpit events`
// connection (views do not add up: a newer one replaces one waiting);
// past it the connection is dropped as lagging (docs/DECISIONS.md).
const SubscriberLimit = 4096

// Subscribe serves the socket's subscribe: a batch subscription of the
// broker, limited to SubscriberLimit events, turned into wire events only
// when the connection takes them.
func (h socketHandler) Subscribe() (func(context.Context) ([]control.EventMessage, error), func()) {
	sub := h.broker.subscribeBatches(h.subscribeSnapshot, SubscriberLimit)
	var wire control.Wire
	next := func(ctx context.Context) ([]control.EventMessage, error) {
		for {
			select {
			case batch, ok := <-sub.C:
				if !ok {
					if sub.Lagged() {
						return nil, control.ErrLagging
					}
					return nil, io.EOF
				}
				var msgs []control.EventMessage
				for _, ev := range batch {
					msgs = append(msgs, wire.Next(ev)...)
				}
				if len(msgs) > 0 {
					return msgs, nil
				}
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	return next, sub.Stop
}
