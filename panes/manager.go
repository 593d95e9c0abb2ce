package panes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/okstra/cockpit/panes/term"
)

// ErrNoPane is returned for an id the manager does not know.
var ErrNoPane = errors.New("no such pane")

// Manager owns the panes of a cockpit: it hands out ids, opens, lists and
// closes panes, and tells the UI which panes changed. It is safe for
// concurrent use.
//
// The change signal coalesces: a pane that changes is put in the dirty set
// once, however many writes arrive, until the UI takes the set; Dirty has
// room for one pending signal, so a busy pane never queues more than one
// wake-up. The UI waits on Dirty (or WaitDirty), then calls TakeDirty at most
// once a frame and snapshots only the panes it returns.
type Manager struct {
	mu        sync.Mutex
	scratch   []*Pane
	next      int
	panes     map[string]*Pane
	order     []*Pane
	dirty     map[*Pane]struct{}
	sig       chan struct{}
	lastFrame time.Time
	colors    term.Colors // what the panes answer colour queries with
	colorsGen uint64      // counts SetColors calls

	onDirty atomic.Pointer[func()] // OnDirty's hook
}

// NewManager returns a manager with no panes.
func NewManager() *Manager {
	return &Manager{
		panes:  make(map[string]*Pane),
		dirty:  make(map[*Pane]struct{}),
		sig:    make(chan struct{}, 1),
		colors: term.DefaultColors(),
	}
}

// SetColors sets the colours every pane, open or opened later, answers
// colour queries (OSC 10, 11, 12, 4) with: the outer terminal's, as an
// attached screen reported them (docs/PANES.md, "Colour queries").
func (m *Manager) SetColors(c term.Colors) {
	m.mu.Lock()
	m.colors = c
	m.colorsGen++
	gen := m.colorsGen
	ps := slices.Clone(m.order)
	m.mu.Unlock()
	for _, p := range ps {
		p.setColors(c, gen)
	}
}

// paneColors are the colours a pane starting now gets, and their
// generation.
func (m *Manager) paneColors() (term.Colors, uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.colors, m.colorsGen
}

// catchUpColors gives p the current colours if a SetColors came between
// paneColors and p's joining order (which SetColors reads).
func (m *Manager) catchUpColors(p *Pane, gen uint64) {
	m.mu.Lock()
	c, now := m.colors, m.colorsGen
	m.mu.Unlock()
	if now != gen {
		p.setColors(c, now)
	}
}

// Colors returns the colours the panes answer colour queries with.
func (m *Manager) Colors() term.Colors {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.colors
}

// ReserveIDs makes the next pane id at least pane-(n+1). A cockpit that
// reopens a run reserves the ids an earlier cockpit recorded, so that a
// recorded pane id never names a different pane.
func (m *Manager) ReserveIDs(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next = max(m.next, n)
}

// Open starts a pane and returns it. Ids are "pane-1", "pane-2", … in order
// of Open calls and are never reused by this manager, even when Open fails.
func (m *Manager) Open(cfg Config) (*Pane, error) {
	m.mu.Lock()
	m.next++
	num := m.next
	m.mu.Unlock()
	id := "pane-" + strconv.Itoa(num)
	colors, gen := m.paneColors()
	p, err := start(id, num, cfg, m.paneDirty, colors, gen)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", id, err)
	}
	m.mu.Lock()
	m.panes[id] = p
	m.order = append(m.order, p)
	m.mu.Unlock()
	m.catchUpColors(p, gen)
	// A new pane needs a first frame even if its program is silent.
	p.markDirty()
	return p, nil
}

// Get returns the pane with id.
func (m *Manager) Get(id string) (*Pane, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.panes[id]
	return p, ok
}

// List returns the open panes in the order they were opened.
func (m *Manager) List() []*Pane {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.order)
}

// Close closes the pane with id (see Pane.Close) and forgets it. The pane
// leaves List at once; Close returns when it is fully closed, which may take
// the close grace periods, so a UI calls it off its event loop.
func (m *Manager) Close(id string) error {
	m.mu.Lock()
	p, ok := m.panes[id]
	if ok {
		delete(m.panes, id)
		m.order = slices.DeleteFunc(m.order, func(q *Pane) bool { return q == p })
	}
	m.mu.Unlock()
	if !ok {
		return fmt.Errorf("close %s: %w", id, ErrNoPane)
	}
	err := p.Close()
	m.mu.Lock()
	delete(m.dirty, p)
	if len(m.dirty) == 0 {
		// Keep the signal meaning "the set is not empty".
		select {
		case <-m.sig:
		default:
		}
	}
	m.mu.Unlock()
	return err
}

// CloseAll closes every pane concurrently and returns when all are closed.
func (m *Manager) CloseAll() error {
	var (
		wg   sync.WaitGroup
		errs = make([]error, 0)
		emu  sync.Mutex
	)
	for _, p := range m.List() {
		wg.Go(func() {
			if err := m.Close(p.ID()); err != nil && !errors.Is(err, ErrNoPane) {
				emu.Lock()
				errs = append(errs, err)
				emu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// paneDirty is the panes' notify hook: it adds p to the dirty set and leaves
// a signal unless one is already pending.
func (m *Manager) paneDirty(p *Pane) {
	m.mu.Lock()
	m.dirty[p] = struct{}{}
	signalled := false
	select {
	case m.sig <- struct{}{}:
		signalled = true
	default:
	}
	m.mu.Unlock()
	if f := m.onDirty.Load(); signalled && f != nil {
		(*f)()
	}
}

// OnDirty has f called whenever Dirty gets its signal (the dirty set was
// empty), on the goroutine of the pane that changed, so a UI can be woken
// without a goroutine of its own in between; f must not block. nil removes
// the hook.
func (m *Manager) OnDirty(f func()) {
	if f == nil {
		m.onDirty.Store(nil)
		return
	}
	m.onDirty.Store(&f)
}

// Dirty returns the coalescing change signal: it holds a value whenever the
// dirty set is not empty.
func (m *Manager) Dirty() <-chan struct{} { return m.sig }

// TakeDirty appends to dst the ids of panes changed since the previous call,
// in pane order, and empties the set. A pane that changes again after this
// call is reported again; ids of panes closed since may be included.
func (m *Manager) TakeDirty(dst []string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	ps := m.scratch[:0]
	for p := range m.dirty {
		// Cleared under mu, before the UI reads the pane, so a write that
		// lands after this point marks the pane again rather than being
		// folded into a frame that may have missed it.
		p.dirty.Store(false)
		ps = append(ps, p)
	}
	clear(m.dirty)
	select {
	case <-m.sig:
	default:
	}
	slices.SortFunc(ps, func(a, b *Pane) int { return a.num - b.num })
	for i, p := range ps {
		dst = append(dst, p.id)
		ps[i] = nil
	}
	m.scratch = ps[:0]
	return dst
}

// WaitDirty blocks until some pane changed and at least frame has passed
// since the previous WaitDirty returned, then returns TakeDirty. It is the
// frame clock of the UI: however fast panes change, it returns at most once
// per frame, and it never returns an empty set.
func (m *Manager) WaitDirty(ctx context.Context, frame time.Duration) ([]string, error) {
	for {
		select {
		case <-m.sig:
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for dirty panes: %w", ctx.Err())
		}
		m.mu.Lock()
		wait := time.Until(m.lastFrame.Add(frame))
		m.mu.Unlock()
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, fmt.Errorf("wait for dirty panes: %w", ctx.Err())
			}
		}
		ids := m.TakeDirty(nil)
		if len(ids) == 0 {
			continue
		}
		m.mu.Lock()
		m.lastFrame = time.Now()
		m.mu.Unlock()
		return ids, nil
	}
}
