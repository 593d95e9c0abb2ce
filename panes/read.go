package panes

import (
	"runtime"
	"time"

	"github.com/okstra/cockpit/internal/procgov"
	"github.com/okstra/cockpit/panes/term"
)

// The read path: the reader goroutine feeds the program's output to the
// emulator, synchronized output (mode 2026) holds the frame, and the pane is
// reported dirty; emulator events are kept for the UI.

// readLoop feeds the program's output to the emulator until the output ends.
func (p *Pane) readLoop() {
	defer p.wg.Done()
	defer close(p.readerDone)
	buf := make([]byte, readBufSize)
	for {
		n, err := p.master.Read(buf)
		if n > 0 {
			p.feed(buf[:n])
		}
		if err != nil {
			// EIO is how a PTY master says every terminal-side descriptor
			// is closed, i.e. the program and its children are gone; any
			// other error (ErrClosed from Close) ends output just the same.
			return
		}
	}
}

// emulating bounds how many panes feed their emulators at once to all the
// processors but one: however many panes are busy, the screen's goroutines
// (frame loop, bubbletea's event loop and renderer) always find one free,
// instead of taking their turn behind every busy reader.
var emulating = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))

// feed writes program output into the emulator and marks the pane dirty
// unless the program is holding a synchronized update.
func (p *Pane) feed(b []byte) {
	p.reads.Add(1)
	p.bytesRead.Add(int64(len(b)))
	procgov.Note(len(b))
	emulating <- struct{}{}
	p.mu.Lock()
	_, _ = p.emu.Write(b)
	p.publishModesLocked()
	p.seq++
	hold := p.syncHoldLocked(time.Now())
	p.mu.Unlock()
	<-emulating
	if !hold {
		p.markDirty()
	}
	p.feeds.Add(1)
}

// syncHoldLocked tracks mode 2026 after a write and reports whether the
// frame is held. The first write that sees the mode set starts the safety
// timer; the first that sees it reset ends the hold.
func (p *Pane) syncHoldLocked(now time.Time) bool {
	// The modes publishModesLocked just read, not the emulator's again (the
	// pane's read loop).
	if !p.modes.Load().SyncOutput {
		if !p.syncSince.IsZero() {
			p.syncSince = time.Time{}
			p.syncTimer.Stop()
		}
		return false
	}
	if p.syncSince.IsZero() {
		p.syncSince = now
		if p.syncTimer == nil {
			p.syncTimer = time.AfterFunc(p.syncTimeout, p.syncExpired)
		} else {
			p.syncTimer.Reset(p.syncTimeout)
		}
		return true
	}
	return now.Sub(p.syncSince) < p.syncTimeout
}

// holdingLocked reports whether a synchronized update still holds the frame.
func (p *Pane) holdingLocked(now time.Time) bool {
	return !p.syncSince.IsZero() && now.Sub(p.syncSince) < p.syncTimeout
}

// syncExpired reports a pane whose synchronized update outlived the timeout.
func (p *Pane) syncExpired() {
	p.mu.Lock()
	expired := !p.syncSince.IsZero() && !p.holdingLocked(time.Now())
	p.mu.Unlock()
	if expired {
		p.markDirty()
	}
}

// markDirty reports the pane to the manager, once until the UI takes it.
func (p *Pane) markDirty() {
	if p.dirty.CompareAndSwap(false, true) && p.notify != nil {
		p.notify(p)
	}
}

// event keeps an emulator event for TakeEvents. It runs inside emulator Write.
func (p *Pane) event(ev term.Event) {
	p.evMu.Lock()
	if len(p.events) >= maxEvents {
		n := copy(p.events, p.events[1:])
		p.events = p.events[:n]
	}
	p.events = append(p.events, ev)
	p.evMu.Unlock()
}

// TakeEvents appends the events (bell, notifications, title changes) since
// the previous call to dst and forgets them. At most the newest 256 are kept.
func (p *Pane) TakeEvents(dst []term.Event) []term.Event {
	p.evMu.Lock()
	dst = append(dst, p.events...)
	p.events = p.events[:0]
	p.evMu.Unlock()
	return dst
}
