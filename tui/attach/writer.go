package attach

import (
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// frameWriter turns the program's writes into output frames on the
// connection, or, once the client handed its terminal over (setTTY), writes
// them to the terminal itself. Writes are serialised; one that blocks longer
// than timeout calls onStall (which closes the connection, or, for the
// terminal, ends the session with the socket still carrying its exit
// frame). A write error on the terminal calls onTTYError.
type frameWriter struct {
	conn       io.Writer
	timeout    time.Duration
	onStall    func()
	onTTYError func(error)

	// tty is the client's terminal (nil: frames on conn). Set before the
	// first write, closed by stopTTY before the exit frame.
	tty     *os.File
	ttyDone bool

	mu     sync.Mutex
	buf    []byte
	closed bool
	broken error
	// stalled is set when onStall ran; unsent is then what the cut-short
	// write did not send, for writeFarewell.
	stalled atomic.Bool
	unsent  []byte

	frames, bytes atomic.Int64
}

var errSessionClosed = errors.New("attach: session closed")

func (w *frameWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, errSessionClosed
	}
	if w.broken != nil {
		return 0, w.broken
	}
	if w.tty != nil {
		return w.writeTTY(p)
	}
	w.buf = w.buf[:0]
	for rest := p; len(rest) > 0; {
		n := min(len(rest), MaxPayload)
		w.buf = AppendFrame(w.buf, FrameOutput, rest[:n])
		rest = rest[n:]
		w.frames.Add(1)
	}
	if err := w.send(w.buf, w.timeout); err != nil {
		return 0, err
	}
	w.bytes.Add(int64(len(p)))
	if cap(w.buf) > 4*MaxPayload {
		w.buf = nil // do not keep a huge frame's buffer
	}
	return len(p), nil
}

// writeTTY writes p to the client's terminal: one write(2) when the
// terminal takes it, else the rest as it drains, within timeout. Called
// with mu.
func (w *frameWriter) writeTTY(p []byte) (int, error) {
	if w.ttyDone {
		return 0, errSessionClosed
	}
	if w.timeout > 0 {
		_ = w.tty.SetWriteDeadline(time.Now().Add(w.timeout))
	}
	n, err := w.tty.Write(p)
	w.frames.Add(1)
	w.bytes.Add(int64(n))
	if err != nil {
		w.broken = err
		if errors.Is(err, os.ErrDeadlineExceeded) {
			w.stalled.Store(true)
			if w.onStall != nil {
				w.onStall()
			}
		} else if w.onTTYError != nil {
			w.onTTYError(err)
		}
		return n, err
	}
	return n, nil
}

// stopTTY closes the client's terminal, after any write in progress: the
// engine writes nothing to it after this (the exit frame follows, and the
// client restores its terminal after that), and the input read on it ends.
func (w *frameWriter) stopTTY() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tty != nil && !w.ttyDone {
		w.ttyDone = true
		_ = w.tty.Close()
	}
}

// send writes b; a write blocked past timeout calls onStall. Called with mu.
func (w *frameWriter) send(b []byte, timeout time.Duration) error {
	var t *time.Timer
	if w.onStall != nil && timeout > 0 {
		t = time.AfterFunc(timeout, func() {
			w.stalled.Store(true)
			w.onStall()
		})
	}
	n, err := w.conn.Write(b)
	if t != nil {
		t.Stop()
	}
	if err != nil {
		w.broken = err // a partial frame leaves the stream unusable
		if w.stalled.Load() {
			w.unsent = append(w.unsent[:0], b[max(n, 0):]...)
		}
	}
	return err
}

// writeFarewell, after a stall, sends the rest of the write that was cut
// short and the exit frame, giving the client timeout to read them; the
// stream is whole again for a client that catches up.
func (w *frameWriter) writeFarewell(o Outcome, timeout time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	d, ok := w.conn.(writeDeadliner)
	if w.closed || !w.stalled.Load() || !ok || w.tty != nil {
		return
	}
	w.closed = true
	if d.SetWriteDeadline(time.Now().Add(timeout)) != nil {
		return
	}
	if _, err := w.conn.Write(append(w.unsent, AppendExit(nil, o)...)); err != nil {
		return
	}
	w.unsent = nil
}

// writeExit writes the exit frame, the host's last.
func (w *frameWriter) writeExit(o Outcome, timeout time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || (w.broken != nil && w.tty == nil) {
		return errSessionClosed
	}
	w.closed = true
	if w.tty != nil {
		w.broken = nil // the terminal's; the socket is whole
	}
	return w.send(AppendExit(nil, o), timeout)
}

func (w *frameWriter) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
}

// blockReader is the program's input: it never yields a byte and returns
// io.EOF once closed.
type blockReader struct {
	done chan struct{}
	once sync.Once
}

func newBlockReader() *blockReader { return &blockReader{done: make(chan struct{})} }

func (r *blockReader) Read([]byte) (int, error) {
	<-r.done
	return 0, io.EOF
}

func (r *blockReader) Close() error {
	r.once.Do(func() { close(r.done) })
	return nil
}
