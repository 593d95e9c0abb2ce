package panes

import (
	"slices"
	"time"

	"github.com/okstra/cockpit/panes/term"
)

// Snapshot is what the UI needs to draw a pane. It is immutable: the pane
// never writes to a Snapshot it handed out, so the UI may keep it as long as
// it likes, and unchanged rows are the same strings from one snapshot to the
// next.
type Snapshot struct {
	// Seq changes whenever the pane's content may have changed; equal Seq
	// means an identical snapshot.
	Seq        uint64
	Cols, Rows int
	// Lines are the visible rows, styled with SGR sequences, len(Lines) ==
	// Rows.
	Lines         []string
	Cursor        term.Cursor
	Modes         term.Modes
	Title         string
	ScrollbackLen int
	// ScrollbackDropped counts the history lines evicted since the pane
	// started (see term.Emulator).
	ScrollbackDropped uint64
	// Pid is the program's process id: a pane respawned (Manager.Respawn)
	// keeps its id and gets a new Pid.
	Pid int
	// Exited is set once the program ended; Status says how.
	Exited bool
	Status ExitStatus
}

// Snapshot returns the pane's screen. Only rows the emulator reports changed
// since the previous snapshot are rendered again; when nothing changed it
// returns the previous snapshot without allocating. While the program holds a
// synchronized update (mode 2026, up to the sync timeout) it returns the
// previous snapshot, taken before the update began, so a frame is never torn
// (a pane's very first snapshot has nothing earlier to return).
func (p *Pane) Snapshot() Snapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.snapshotLocked()
}

// TrySnapshot is Snapshot when the pane's lock is free at once; ok is
// false when its reader holds it (the emulator digesting a chunk), and the
// caller may snapshot elsewhere instead of waiting.
func (p *Pane) TrySnapshot() (s Snapshot, ok bool) {
	if !p.mu.TryLock() {
		return Snapshot{}, false
	}
	defer p.mu.Unlock()
	return p.snapshotLocked(), true
}

func (p *Pane) snapshotLocked() Snapshot {
	if p.closed {
		return p.snap
	}
	if p.snapValid && (p.snap.Seq == p.seq || p.holdingLocked(time.Now())) {
		return p.snap
	}
	cols, rows := p.emu.Size()
	p.dirtyRows = p.emu.TakeDirty(p.dirtyRows[:0])
	if !p.snapValid || cols != p.snap.Cols || rows != len(p.lines) {
		// New size (or first snapshot): every row, into a fresh slice, as
		// the old one may be held by the UI.
		p.lines = make([]string, rows)
		p.linesShared = false
		for r := range rows {
			p.renderRowLocked(r)
		}
	} else {
		for _, r := range p.dirtyRows {
			if r >= 0 && r < rows {
				p.renderRowLocked(r)
			}
		}
	}
	p.snap = Snapshot{
		Seq:               p.seq,
		Cols:              cols,
		Rows:              rows,
		Lines:             p.lines,
		Cursor:            p.emu.Cursor(),
		Modes:             p.emu.Modes(),
		Title:             p.emu.Title(),
		ScrollbackLen:     p.emu.ScrollbackLen(),
		ScrollbackDropped: p.emu.ScrollbackDropped(),
		Pid:               p.pid,
		Exited:            p.statusSet,
		Status:            p.status,
	}
	p.snapValid = true
	p.linesShared = true
	return p.snap
}

// renderRowLocked renders row r into lines, copying lines first if a
// snapshot holds it. A row whose text did not change keeps its string.
func (p *Pane) renderRowLocked(r int) {
	p.scratch = p.emu.AppendLine(p.scratch[:0], r, true)
	if p.lines[r] == string(p.scratch) {
		return
	}
	if p.linesShared {
		p.lines = slices.Clone(p.lines)
		p.linesShared = false
	}
	p.lines[r] = string(p.scratch)
}

// Capture returns the visible rows as the emulator has them now, styled or
// plain, like tmux capture-pane. Unlike Snapshot it ignores synchronized
// output holds and caches nothing.
func (p *Pane) Capture(styled bool) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		if styled {
			return slices.Clone(p.snap.Lines)
		}
		return slices.Clone(p.finalPlain)
	}
	return p.captureLocked(styled)
}

func (p *Pane) captureLocked(styled bool) []string {
	_, rows := p.emu.Size()
	out := make([]string, rows)
	var buf []byte
	for r := range rows {
		buf = p.emu.AppendLine(buf[:0], r, styled)
		out[r] = string(buf)
	}
	return out
}

// Scrollback returns up to n scrollback lines starting at from (0 = oldest),
// styled or plain. A closed pane has none.
func (p *Pane) Scrollback(from, n int, styled bool) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	total := p.emu.ScrollbackLen()
	from = max(from, 0)
	end := min(from+max(n, 0), total)
	if from >= end {
		return nil
	}
	out := make([]string, 0, end-from)
	var buf []byte
	for i := from; i < end; i++ {
		buf = p.emu.AppendScrollback(buf[:0], i, styled)
		out = append(out, string(buf))
	}
	return out
}
