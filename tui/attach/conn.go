package attach

import "io"

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
