package panes

import (
	"errors"

	"golang.org/x/sys/unix"
)

// The program's input queue: user input (input.go) and emulator replies are
// appended in order. User input that finds the queue empty and no write
// under way is written to the PTY by its caller, as far as the PTY takes it
// without blocking; anything else (the rest of such a write, input queued
// behind it, replies) is written by the writer goroutine. So a key costs no
// goroutine hand-off when the program keeps up, and a program that stops
// reading still blocks nobody but the writer goroutine.

// reply queues an emulator reply (DA, DSR, CPR) for the program. It runs
// inside emulator Write, under mu, and must not block.
func (p *Pane) reply(b []byte) {
	_ = p.queueInput(b, false)
}

// enqueue sends user input b to the program: written at once when nothing
// is ahead of it, else queued.
func (p *Pane) enqueue(b []byte) error {
	return p.queueInput(b, true)
}

// queueInput appends b to the program's input queue, up to maxInput queued
// bytes. Past that, user input fails with ErrInputFull and replies are
// dropped: a program that keeps asking without ever reading has nobody to
// answer. direct lets the caller write b itself when the queue is empty and
// no write is under way (the order of the input is the queue's either way).
func (p *Pane) queueInput(b []byte, direct bool) error {
	if len(b) == 0 {
		return nil
	}
	p.inMu.Lock()
	if p.inClosed {
		p.inMu.Unlock()
		return ErrClosed
	}
	if len(p.inBuf)+len(b) > maxInput {
		p.inMu.Unlock()
		return ErrInputFull
	}
	if direct && !p.inBusy && len(p.inBuf) == 0 {
		p.inBusy = true
		p.inMu.Unlock()
		n := p.writeNow(b)
		p.inMu.Lock()
		p.inBusy = false
		if n < len(b) && !p.inClosed {
			// What the PTY did not take goes ahead of what was queued
			// meanwhile; b is the caller's, so it is copied.
			rest := append(make([]byte, 0, len(b)-n+len(p.inBuf)), b[n:]...)
			p.inBuf = append(rest, p.inBuf...)
		}
		pending := len(p.inBuf) > 0
		p.inMu.Unlock()
		if pending {
			p.wakeWriter()
		}
		return nil
	}
	p.inBuf = append(p.inBuf, b...)
	p.inMu.Unlock()
	p.wakeWriter()
	return nil
}

func (p *Pane) wakeWriter() {
	select {
	case p.inWake <- struct{}{}:
	default:
	}
}

// writeNow writes b to the PTY without blocking and returns how much it
// took: all of it, or less when the PTY's input buffer is full (the
// writer goroutine then waits for room). Other errors drop the input, as
// the writer does (the program is gone).
func (p *Pane) writeNow(b []byte) int {
	rc, err := p.master.SyscallConn()
	if err != nil {
		return len(b)
	}
	n := 0
	cerr := rc.Control(func(fd uintptr) {
		for n < len(b) {
			m, err := unix.Write(int(fd), b[n:])
			if m > 0 {
				n += m
			}
			switch {
			case errors.Is(err, unix.EINTR):
				continue
			case errors.Is(err, unix.EAGAIN):
				return
			case err != nil:
				n = len(b) // nobody to deliver it to
				return
			case m == 0:
				return
			}
		}
	})
	if cerr != nil {
		return len(b) // the master is closed
	}
	return n
}

// writeLoop copies the input queue to the PTY when its caller could not. A
// program that stops reading blocks nobody but this goroutine.
func (p *Pane) writeLoop() {
	defer p.wg.Done()
	var spare []byte
	for {
		select {
		case <-p.inWake:
		case <-p.stop:
			return
		}
		mine := false // this goroutine set inBusy
		for {
			p.inMu.Lock()
			if p.inBusy && !mine {
				// A caller is writing; it wakes us if it leaves input.
				p.inMu.Unlock()
				break
			}
			out := p.inBuf
			if len(out) == 0 {
				p.inBusy = false
				p.inMu.Unlock()
				break
			}
			p.inBuf = spare[:0]
			p.inBusy, mine = true, true
			p.inMu.Unlock()
			if _, err := p.master.Write(out); err != nil {
				select {
				case <-p.stop:
					p.inMu.Lock()
					p.inBusy = false
					p.inMu.Unlock()
					return
				default:
				}
				// The program is gone or the terminal refused the input;
				// there is nobody to deliver it to, so it is dropped.
			}
			spare = out
		}
	}
}
