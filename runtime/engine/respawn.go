package engine

import (
	"errors"
	"fmt"

	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/runtime/view"
)

// ErrLeadRunning is RespawnLead's refusal while the lead's program runs.
var ErrLeadRunning = errors.New("the lead is still running")

// RespawnLead starts the lead's command again in the lead pane once it has
// exited (tmux's respawn-pane): the same argv, environment and working
// directory as at start, at the pane's current size, in the same pane (its
// id and place kept, a fresh screen). Every screen sees the pane come back;
// a notice says so. It refuses while the lead runs (ErrLeadRunning), and
// when there is no lead pane or the run is closing.
func (c *Engine) RespawnLead() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errors.New("the cockpit is closing")
	}
	id := ""
	for pid, info := range c.info {
		if info.Lead {
			id = pid
		}
	}
	cfg := c.leadCfg
	c.mu.Unlock()
	if id == "" || len(cfg.Argv) == 0 {
		return errors.New("this run has no lead pane")
	}
	old, ok := c.mgr.Get(id)
	if !ok {
		return fmt.Errorf("%s: %w", id, panes.ErrNoPane)
	}
	if !old.Exited() {
		return ErrLeadRunning
	}
	cfg.Cols, cfg.Rows = old.Size()
	if c.cfg.CloseGrace > 0 {
		cfg.CloseGrace = c.cfg.CloseGrace
	}
	c.opening.Add(1) // Close waits for it, so no pane escapes CloseAll
	defer c.opening.Done()
	p, err := c.mgr.Respawn(id, cfg)
	if errors.Is(err, panes.ErrRunning) {
		return ErrLeadRunning
	}
	if err != nil {
		return err
	}
	c.mu.Lock()
	info, ok := c.info[id]
	if ok {
		info.PID = p.Pid()
		c.info[id] = info
	}
	c.mu.Unlock()
	c.log.Info("lead respawned", "pane", id, "pid", p.Pid())
	c.watchExit(p, info)
	c.broker.publish(view.Notice{Text: "the lead's command was started again", PaneID: id})
	return nil
}
