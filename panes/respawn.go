package panes

import (
	"errors"
	"fmt"
	"slices"
)

// ErrRunning is returned by Respawn for a pane whose program still runs.
var ErrRunning = errors.New("pane program still running")

// Respawn starts cfg in the pane id once its program has exited, as tmux's
// respawn-pane does: the pane keeps its id and its place in List, and gets
// a new program, PTY and emulator (a fresh screen; the old history goes
// with the old program). A screen that reads the pane by id sees the new
// one at its next snapshot (Snapshot.Pid tells them apart). The old pane is
// closed. It refuses a pane whose program still runs (ErrRunning) and an
// unknown id (ErrNoPane).
func (m *Manager) Respawn(id string, cfg Config) (*Pane, error) {
	m.mu.Lock()
	old, ok := m.panes[id]
	m.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("respawn %s: %w", id, ErrNoPane)
	}
	if !old.Exited() {
		return nil, fmt.Errorf("respawn %s: %w", id, ErrRunning)
	}
	colors, gen := m.paneColors()
	p, err := start(id, old.num, cfg, m.paneDirty, colors, gen)
	if err != nil {
		return nil, fmt.Errorf("respawn %s: %w", id, err)
	}
	m.mu.Lock()
	if m.panes[id] != old {
		// Closed (or respawned) meanwhile: the newcomer has no place.
		m.mu.Unlock()
		_ = p.Close()
		return nil, fmt.Errorf("respawn %s: %w", id, ErrNoPane)
	}
	m.panes[id] = p
	m.order[slices.Index(m.order, old)] = p
	delete(m.dirty, old)
	m.mu.Unlock()
	m.catchUpColors(p, gen)
	p.markDirty()
	_ = old.Close()
	return p, nil
}
