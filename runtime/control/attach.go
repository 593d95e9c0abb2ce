package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

// AttachParams mirror tui/attach.Params on the wire (this package does not
// import the screen): the client's terminal size, its terminal environment
// and whether the screen only watches. The engine's attach hook gets the
// request's params as sent and decodes them itself.
type AttachParams struct {
	Cols     int      `json:"cols"`
	Rows     int      `json:"rows"`
	Env      []string `json:"env,omitempty"`
	ReadOnly bool     `json:"readOnly,omitempty"`
	// TTY offers the client's terminal itself (tui/attach, FrameTTY).
	TTY bool `json:"tty,omitempty"`
}

// AttachResult answers an attach request; after it the connection carries
// the frames of tui/attach (docs/PROTOCOL.md, "Attached screens").
type AttachResult struct {
	ScreenID string `json:"screenId"`
	// TTY: the engine takes the terminal the client offered; the client's
	// first frame hands it over (tui/attach, FrameTTY).
	TTY bool `json:"tty,omitempty"`
}

// StatusResult is what `cockpit ls` shows of one engine.
type StatusResult struct {
	PID         int       `json:"pid"`
	ProjectRoot string    `json:"projectRoot"`
	RunManifest string    `json:"runManifest"`
	TaskKey     string    `json:"taskKey,omitempty"`
	Started     time.Time `json:"started"`
	Socket      string    `json:"socket"`
	// Panes counts the open panes (the lead's included).
	Panes   int `json:"panes"`
	Pending int `json:"pending"`
	Done    int `json:"done"`
	// Gates are the ids of the gates waiting for the human, oldest first.
	Gates []string `json:"gates"`
	// Screens counts the attached screens.
	Screens int `json:"screens"`
	// CostUSD is the run's priced cost so far (docs/COST.md); Unpriced
	// counts the workers with tokens at no known price (the cost is then
	// a lower bound); CostKnown is false while no worker has left usage.
	CostUSD   float64 `json:"costUsd"`
	Unpriced  int     `json:"unpriced,omitempty"`
	CostKnown bool    `json:"costKnown"`
}

// ServeScreen serves one attached screen on a connection that has left
// JSON mode; it owns conn and returns when the screen has ended.
type ServeScreen func(ctx context.Context, conn io.ReadWriteCloser)

// bufferedConn is a connection whose reads come first from the reader that
// read its JSON lines (which may hold the first frames already).
type bufferedConn struct {
	io.Reader
	conn net.Conn
}

func (b bufferedConn) Write(p []byte) (int, error) { return b.conn.Write(p) }
func (b bufferedConn) Close() error                { return b.conn.Close() }

// SetWriteDeadline lets a screen's session cut a write blocked on a client
// that stopped reading short, and give it a last deadline for its exit
// frame (tui/attach).
func (b bufferedConn) SetWriteDeadline(t time.Time) error { return b.conn.SetWriteDeadline(t) }

// UnixConn is the connection's unix socket when the line reader holds no
// bytes past the attach request (else nil): a client that hands its
// terminal over sends it there with SCM_RIGHTS (tui/attach, FrameTTY),
// which a read through the line reader would lose.
func (b bufferedConn) UnixConn() *net.UnixConn {
	if br, ok := b.Reader.(*bufio.Reader); ok && br.Buffered() > 0 {
		return nil
	}
	uc, _ := b.conn.(*net.UnixConn)
	return uc
}

// DialAttach connects to the engine at path, says hello and asks to attach
// a screen with params. On success the connection carries frames from now
// on: read it through the returned reader (it may hold bytes past the
// reply), write and close conn. An error reply leaves nothing open.
func DialAttach(ctx context.Context, path, client string, params AttachParams) (conn net.Conn, r *bufio.Reader, hello HelloResult, res AttachResult, err error) {
	nc, err := dial(ctx, path)
	if err != nil {
		return nil, nil, hello, res, err
	}
	// The handshake is bounded whatever ctx allows: a wedged engine fails
	// it instead of hanging the terminal.
	dl := time.Now().Add(HandshakeTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(dl) {
		dl = d
	}
	_ = nc.SetDeadline(dl)
	r = bufio.NewReaderSize(nc, 64<<10)
	call := func(id int64, method string, p, out any) error {
		raw, err := json.Marshal(p)
		if err != nil {
			return err
		}
		if err := WriteMessage(nc, Request{ID: id, Method: method, Params: raw}); err != nil {
			return fmt.Errorf("send %s: %w", method, err)
		}
		msg, err := ReadMessage(r)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("%w: no reply to %s within %s (cockpit at %s)", ErrNoAnswer, method, HandshakeTimeout, path)
		}
		if err != nil {
			return fmt.Errorf("cockpit at %s: %s: %w", path, method, err)
		}
		var rep Reply
		if err := json.Unmarshal(msg, &rep); err != nil {
			return fmt.Errorf("cockpit at %s: %s: bad reply: %w", path, method, err)
		}
		if rep.Error != nil {
			return rep.Error
		}
		return json.Unmarshal(rep.Result, out)
	}
	if err = call(1, Hello.Name, HelloParams{Version: ProtocolVersion, Client: client}, &hello); err == nil {
		err = call(2, Attach.Name, params, &res)
	}
	if err != nil {
		nc.Close()
		return nil, nil, hello, res, err
	}
	_ = nc.SetDeadline(time.Time{})
	return nc, r, hello, res, nil
}
