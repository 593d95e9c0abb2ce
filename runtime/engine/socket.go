package engine

import (
	"sync"

	"github.com/okstra/cockpit/runtime/control"
)

// socketHandler serves the control socket from the engine, turning its
// events into wire events: views become the changes between them.
type socketHandler struct{ *Engine }

// handler is the control-socket view of the engine.
func (c *Engine) handler() control.Handler { return socketHandler{c} }

func (h socketHandler) Subscribe() (<-chan control.EventMessage, func()) {
	in, stopIn := h.Engine.Subscribe()
	out := make(chan control.EventMessage, 64)
	quit := make(chan struct{})
	go func() {
		defer close(out)
		var wire control.Wire
		for ev := range in {
			for _, m := range wire.Next(ev) {
				select {
				case out <- m:
				case <-quit: // the connection is gone; nobody reads out
					return
				}
			}
		}
	}()
	var once sync.Once
	return out, func() {
		once.Do(func() {
			close(quit)
			stopIn()
		})
	}
}
