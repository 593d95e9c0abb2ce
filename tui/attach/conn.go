package attach

import (
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

type bufferedConn struct {
	r io.Reader
	io.ReadWriteCloser
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
