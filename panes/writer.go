package panes

// The program's input queue: user input (input.go) and emulator replies are
// appended in order, and the writer goroutine is the only one that writes
// them to the PTY.

// reply queues an emulator reply (DA, DSR, CPR) for the program. It runs
// inside emulator Write, under mu, and must not block.
func (p *Pane) reply(b []byte) {
	_ = p.enqueue(b)
}

// enqueue appends b to the program's input queue, up to maxInput queued
// bytes. Past that, user input fails with ErrInputFull and replies are
// dropped: a program that keeps asking without ever reading has nobody to
// answer.
func (p *Pane) enqueue(b []byte) error {
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
	p.inBuf = append(p.inBuf, b...)
	p.inMu.Unlock()
	select {
	case p.inWake <- struct{}{}:
	default:
	}
	return nil
}

// writeLoop copies the input queue to the PTY. It is the only writer, so a
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
		for {
			p.inMu.Lock()
			out := p.inBuf
			p.inBuf = spare[:0]
			p.inMu.Unlock()
			if len(out) == 0 {
				spare = out
				break
			}
			if _, err := p.master.Write(out); err != nil {
				select {
				case <-p.stop:
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
