package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/state"
)

// Stop asks the engine's owner to end the run (the control socket's stop
// method, or a screen's "end the run"): Stopping is closed. It returns at
// once; the owner ends the attached screens and calls Close.
func (c *Engine) Stop() { c.stopOnce.Do(func() { close(c.stopping) }) }

// Stopping is closed once the run was asked to end (Stop).
func (c *Engine) Stopping() <-chan struct{} { return c.stopping }

// Started is when the engine started.
func (c *Engine) Started() time.Time { return c.started }

// Screens counts the attached screens being served.
func (c *Engine) Screens() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.screens
}

// Status describes the engine for `cockpit ls` (the control server fills
// in its pid, run and socket).
func (c *Engine) Status() control.StatusResult {
	v := c.View()
	st := control.StatusResult{
		TaskKey: c.run.Manifest.TaskKey, Started: c.started,
		Panes: len(c.ListPanes().Panes), Pending: v.Batch.Pending, Done: v.Batch.Done,
		Gates: []string{}, Screens: c.Screens(),
	}
	for _, g := range v.Gates {
		st.Gates = append(st.Gates, g.ID)
	}
	st.CostUSD, st.Unpriced = v.TotalCost()
	st.CostUSD = math.Round(st.CostUSD*1e6) / 1e6
	st.CostKnown = len(v.Usage) > 0
	return st
}

// Attach serves the control socket's attach method through Config.Attach.
func (c *Engine) Attach(params json.RawMessage) (control.AttachResult, control.ServeScreen, error) {
	if c.cfg.Attach == nil {
		return control.AttachResult{}, nil, &control.RPCError{Code: control.CodeFailed, Message: "this engine serves no screens"}
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return control.AttachResult{}, nil, &control.RPCError{Code: control.CodeFailed, Message: "the run is ending"}
	}
	select {
	case <-c.stopping:
		c.mu.Unlock()
		return control.AttachResult{}, nil, &control.RPCError{Code: control.CodeFailed, Message: "the run is ending"}
	default:
	}
	c.screenN++
	id := "screen-" + strconv.Itoa(c.screenN)
	c.mu.Unlock()
	// A client that offers its terminal hands it over (tui/attach takes
	// it, DECISIONS 85); the hook must take a terminal when asked to.
	var offer struct {
		TTY bool `json:"tty"`
	}
	_ = json.Unmarshal(params, &offer)
	serve := func(ctx context.Context, conn io.ReadWriteCloser) {
		c.mu.Lock()
		c.screens++
		c.mu.Unlock()
		c.log.Info("screen attached", "screen", id)
		defer func() {
			if r := recover(); r != nil {
				c.log.Error("screen panicked", "screen", id, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				conn.Close()
			}
			c.mu.Lock()
			c.screens--
			c.mu.Unlock()
		}()
		if err := c.cfg.Attach(ctx, conn, params); err != nil {
			c.log.Warn("screen ended", "screen", id, "err", errString(err))
			return
		}
		c.log.Info("screen ended", "screen", id)
	}
	return control.AttachResult{ScreenID: id, TTY: offer.TTY}, serve, nil
}

// Run is the run the engine serves.
func (c *Engine) Run() *state.Run { return c.run }
