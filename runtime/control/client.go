package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"
	"time"
)

// ErrNoCockpit is wrapped by Dial's error when nothing listens on the socket.
var ErrNoCockpit = errors.New("no cockpit is serving this run")

// Client is a connection to a cockpit's control socket.
type Client struct {
	conn  net.Conn
	path  string
	Hello HelloResult

	wmu     sync.Mutex
	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan Reply
	events  chan EventMessage
	err     error
	done    chan struct{}
}

// Dial connects to the cockpit at path and says hello. Connecting is
// bounded by ConnectTimeout and hello by HandshakeTimeout, whatever ctx
// allows; client names the caller in the engine's log and nowhere else
// (behaviour never depends on it).
func Dial(ctx context.Context, path, client string) (*Client, error) {
	nc, err := dial(ctx, path)
	if err != nil {
		return nil, err
	}
	c := &Client{conn: nc, path: path, pending: map[int64]chan Reply{}, events: make(chan EventMessage, 256), done: make(chan struct{})}
	go c.read()
	if c.Hello, err = Hello.Call(ctx, c, HelloParams{Version: ProtocolVersion, Client: client}); err != nil {
		nc.Close()
		<-c.done
		if errors.Is(err, ErrNoAnswer) {
			return nil, err // it names the socket
		}
		return nil, fmt.Errorf("cockpit at %s: %w", path, err)
	}
	return c, nil
}

// dial connects to the socket at path within ConnectTimeout.
func dial(ctx context.Context, path string) (net.Conn, error) {
	if len(path) > MaxSocketPath {
		return nil, fmt.Errorf("control socket path %s is %d bytes, longer than the %d a unix socket allows; set COCKPIT_SOCKET to a shorter path", path, len(path), MaxSocketPath)
	}
	d := net.Dialer{Timeout: ConnectTimeout}
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, dialError(path, err)
	}
	return nc, nil
}

// ErrNoAnswer is wrapped by the error of a call the engine did not answer
// within its timeout (or whose pings went unanswered): the engine is
// wedged, or too busy to serve.
var ErrNoAnswer = errors.New("the cockpit did not answer")

// dialError says why connecting to path failed: ErrNoCockpit when nothing
// listens there.
func dialError(path string, err error) error {
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("%w (no socket at %s)", ErrNoCockpit, path)
	}
	return fmt.Errorf("connect to the cockpit at %s: %w", path, err)
}

func (c *Client) read() {
	defer close(c.done)
	r := bufio.NewReaderSize(c.conn, 64<<10)
	for {
		msg, err := ReadMessage(r)
		if err != nil {
			c.fail(fmt.Errorf("cockpit connection: %w", err))
			return
		}
		var probe struct {
			ID    *int64 `json:"id"`
			Event string `json:"event"`
		}
		if json.Unmarshal(msg, &probe) != nil {
			continue
		}
		if probe.Event != "" {
			var ev EventMessage
			if json.Unmarshal(msg, &ev) == nil {
				c.events <- ev
			}
			continue
		}
		var rep Reply
		if json.Unmarshal(msg, &rep) != nil {
			continue
		}
		c.mu.Lock()
		ch := c.pending[rep.ID]
		delete(c.pending, rep.ID)
		c.mu.Unlock()
		if ch == nil && rep.Error != nil {
			// An unsolicited error (e.g. the peer check refused us).
			c.fail(rep.Error)
			return
		}
		if ch != nil {
			ch <- rep
		}
	}
}

func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
	// A pending call's channel is closed: the call then returns c.err,
	// which keeps its cause (io.EOF when the server hung up).
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	close(c.events)
}

// Call sends one request and decodes its result into out (which may be
// nil), bounded by the method's timeout (Methods). The typed Method values
// (OpenPane.Call, …) are the way to call; Call stays for callers that have
// not moved to them.
func (c *Client) Call(ctx context.Context, method string, params, out any) error {
	return c.call(ctx, method, timeoutOf(method), params, out)
}

// call sends one request and waits for its reply, at most timeout (when
// not 0; otherwise pinging the engine meanwhile).
func (c *Client) call(ctx context.Context, method string, timeout time.Duration, params, out any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	var bound <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		bound = t.C
	}
	var ping <-chan time.Time
	var pinged chan error
	if timeout == 0 {
		t := time.NewTicker(pingInterval)
		defer t.Stop()
		ping = t.C
		pinged = make(chan error, 1)
	}
	ch := make(chan Reply, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}
	if err := c.send(Request{ID: id, Method: method, Params: raw}, bound); err != nil {
		forget()
		// The server may have refused us and hung up (the peer check, the
		// connection limit): its reason, once the reader has it, says more
		// than a broken pipe.
		select {
		case <-c.done:
		case <-time.After(time.Second):
		}
		c.mu.Lock()
		why := c.err
		c.mu.Unlock()
		var re *RPCError
		if errors.As(why, &re) {
			return re
		}
		return fmt.Errorf("send %s: %w", method, err)
	}
	pinging := false
	for {
		select {
		case rep, ok := <-ch:
			if !ok {
				c.mu.Lock()
				lost := c.err
				c.mu.Unlock()
				return lost
			}
			if rep.Error != nil {
				return rep.Error
			}
			if out != nil && len(rep.Result) > 0 {
				return json.Unmarshal(rep.Result, out)
			}
			return nil
		case <-ctx.Done():
			forget()
			return ctx.Err()
		case <-bound:
			forget()
			return fmt.Errorf("%w: no reply to %s within %s (cockpit at %s)", ErrNoAnswer, method, timeout, c.path)
		case <-ping:
			if !pinging {
				pinging = true
				pm := Ping
				go func() {
					_, err := pm.Call(ctx, c, Empty{})
					pinged <- err
				}()
			}
		case err := <-pinged:
			pinging = false
			if errors.Is(err, ErrNoAnswer) {
				forget()
				return fmt.Errorf("%w: it stopped answering pings while %s waited (cockpit at %s)", ErrNoAnswer, method, c.path)
			}
		}
	}
}

// send writes one request; a server that takes nothing (its socket buffer
// full) fails it when bound fires.
func (c *Client) send(req Request, bound <-chan time.Time) error {
	data, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if len(data) > MaxMessage {
		return errTooLong
	}
	written := make(chan error, 1)
	go func() {
		c.wmu.Lock()
		defer c.wmu.Unlock()
		_, err := c.conn.Write(append(data, '\n'))
		written <- err
	}()
	select {
	case err := <-written:
		return err
	case <-bound:
		c.conn.Close() // unblocks the writer; a half-sent request leaves nothing to resume
		return fmt.Errorf("%w: it took no request for %s", ErrNoAnswer, req.Method)
	}
}

// Subscribe asks for the event stream; events arrive on Events.
func (c *Client) Subscribe(ctx context.Context) error {
	_, err := Subscribe.Call(ctx, c, Empty{})
	return err
}

// Events delivers pushed events; it is closed when the connection ends.
func (c *Client) Events() <-chan EventMessage { return c.events }

// Close ends the connection.
func (c *Client) Close() error {
	err := c.conn.Close()
	<-c.done
	return err
}

// OpenPane, ClosePanes and ListPanes are the pane calls of the dispatch
// lifecycle (runtime/lifecycle.PaneHost: a cockpit reached through its
// socket; the engine serves the same calls in-process).

// OpenPane asks the cockpit for a worker pane (open-pane).
func (c *Client) OpenPane(ctx context.Context, p OpenPaneParams) (OpenPaneResult, error) {
	return OpenPane.Call(ctx, c, p)
}

// ClosePanes asks the cockpit to close panes (close-panes).
func (c *Client) ClosePanes(ctx context.Context, p ClosePanesParams) (ClosePanesResult, error) {
	return ClosePanes.Call(ctx, c, p)
}

// ListPanes asks the cockpit for its open panes (list-panes).
func (c *Client) ListPanes(ctx context.Context) (ListPanesResult, error) {
	return ListPanes.Call(ctx, c, Empty{})
}
