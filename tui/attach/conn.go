package attach

import (
	"bufio"
	"errors"
	"io"
	"net"
	"time"
)

// Buffered returns conn with its reads served by r first: after the JSON
// handshake, the bufio.Reader that read the attach request or reply may
// hold bytes past it (the first frames), which belong to the frame stream.
// Pass that reader as r; writes and Close go to conn.
func Buffered(conn io.ReadWriteCloser, r io.Reader) io.ReadWriteCloser {
	return bufferedConn{r: r, ReadWriteCloser: conn}
}

// BufferedTTY is Buffered for a client whose attach reply asked for its
// terminal (the reply's tty, after the client offered it with Params.TTY):
// Run on it hands the terminal over (FrameTTY) instead of relaying it.
func BufferedTTY(conn io.ReadWriteCloser, r io.Reader) io.ReadWriteCloser {
	return bufferedConn{r: r, ReadWriteCloser: conn, tty: true}
}

type bufferedConn struct {
	r io.Reader
	io.ReadWriteCloser
	tty bool // the engine asked for the terminal
}

// takesTTY says whether conn's engine asked for the client's terminal
// (BufferedTTY).
func takesTTY(conn io.ReadWriteCloser) bool {
	c, ok := conn.(bufferedConn)
	return ok && c.tty
}

func (c bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// SetWriteDeadline cuts writes short as conn's do, when conn's can be
// (a net.Conn): a session kicks a screen that stopped reading that way.
func (c bufferedConn) SetWriteDeadline(t time.Time) error {
	if d, ok := c.ReadWriteCloser.(writeDeadliner); ok {
		return d.SetWriteDeadline(t)
	}
	return errNoDeadline
}

var errNoDeadline = errors.New("attach: the connection's writes have no deadline")

// RemoteAddr is conn's, when it has one (the engine's socket, for a
// client's EngineAlive).
func (c bufferedConn) RemoteAddr() net.Addr {
	if ra, ok := c.ReadWriteCloser.(interface{ RemoteAddr() net.Addr }); ok {
		return ra.RemoteAddr()
	}
	return nil
}

// UnixConn is conn's unix socket, for the terminal a client hands over
// (FrameTTY travels with SCM_RIGHTS, which only the socket itself sends and
// receives); nil when conn is not one, or when r holds bytes read past the
// handshake (a frame read from there would have lost its descriptor).
func (c bufferedConn) UnixConn() *net.UnixConn {
	if br, ok := c.r.(*bufio.Reader); ok && br.Buffered() > 0 {
		return nil
	}
	uc, _ := c.ReadWriteCloser.(*net.UnixConn)
	return uc
}
