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
	Hello HelloResult

	wmu     sync.Mutex
	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan Reply
	events  chan EventMessage
	err     error
	done    chan struct{}
}

// Dial connects to the cockpit at path and says hello.
func Dial(ctx context.Context, path, client string) (*Client, error) {
	if len(path) > MaxSocketPath {
		return nil, fmt.Errorf("control socket path %s is %d bytes, longer than the %d a unix socket allows; set COCKPIT_SOCKET to a shorter path", path, len(path), MaxSocketPath)
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, dialError(path, err)
	}
	c := &Client{conn: nc, pending: map[int64]chan Reply{}, events: make(chan EventMessage, 256), done: make(chan struct{})}
	go c.read()
	if err := c.Call(ctx, MethodHello, HelloParams{Version: ProtocolVersion, Client: client}, &c.Hello); err != nil {
		nc.Close()
		return nil, fmt.Errorf("cockpit at %s: %w", path, err)
	}
	return c, nil
}

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

// Call sends one request and decodes its result into out (which may be nil).
func (c *Client) Call(ctx context.Context, method string, params, out any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
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
	c.wmu.Lock()
	err = WriteMessage(c.conn, Request{ID: id, Method: method, Params: raw})
	c.wmu.Unlock()
	if err != nil {
		// The server may have refused us and hung up (the peer check): its
		// reason, once the reader has it, says more than a broken pipe.
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
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return ctx.Err()
	}
}

// Subscribe asks for the event stream; events arrive on Events.
func (c *Client) Subscribe(ctx context.Context) error {
	return c.Call(ctx, MethodSubscribe, struct{}{}, nil)
}

// Events delivers pushed events; it is closed when the connection ends.
func (c *Client) Events() <-chan EventMessage { return c.events }

// Close ends the connection.
func (c *Client) Close() error {
	err := c.conn.Close()
	<-c.done
	return err
}
