package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/okstra/cockpit/runtime/view"
	"golang.org/x/sys/unix"
)

// Handler is what the server serves: the cockpit engine.
type Handler interface {
	OpenPane(OpenPaneParams) (OpenPaneResult, error)
	ClosePanes(ClosePanesParams) (ClosePanesResult, error)
	ListPanes() ListPanesResult
	// Gate blocks until the human answers or ctx ends (the asking client
	// went away), in which case the gate is withdrawn.
	Gate(ctx context.Context, p GateParams) (GateResult, error)
	// Subscribe starts a subscription to the engine's events: next blocks
	// until there are events to send, or ctx ends, and returns them; its
	// error is ErrLagging once the subscriber was dropped for falling too
	// far behind, any other when the stream ended. stop ends the
	// subscription. The handler holds the one queue of a subscriber; the
	// server takes from it only as fast as the client reads.
	Subscribe() (next func(ctx context.Context) ([]EventMessage, error), stop func())
	View() view.RunView
	// Attach prepares an attached screen from the attach request's params
	// (as sent: AttachParams' JSON). An error is replied and the connection
	// stays in JSON mode; on success the reply is sent and serve gets the
	// connection, now carrying frames, until the screen ends.
	Attach(params json.RawMessage) (AttachResult, ServeScreen, error)
	// Status describes the engine.
	Status() StatusResult
	// Stop asks the engine to end the run; it returns at once, and the
	// engine's owner closes it.
	Stop()
}

// Server is the control socket of one cockpit.
type Server struct {
	path  string
	ln    *net.UnixListener
	lock  *pidLock
	h     Handler
	hello HelloResult
	lim   Limits
	log   *slog.Logger
	connN atomic.Int64  // the last connection's number, for the log
	uid   atomic.Uint32 // the only uid served; a field so tests can forge a mismatch
	quit  chan struct{} // closed by Close

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Limits bound what clients can hold of a server, so that no client, however
// broken or hostile, stops it serving the others (docs/DECISIONS.md).
type Limits struct {
	// MaxConns is how many connections may be open at once; one more gets
	// a busy error and is closed.
	MaxConns int
	// Handshake is how long a new connection has to say hello; a silent
	// one is closed.
	Handshake time.Duration
	// WriteStall is how long one write to a client may wait for it to read;
	// a client that stopped reading (frozen) is disconnected.
	WriteStall time.Duration
}

// DefaultLimits are the limits Listen serves with.
var DefaultLimits = Limits{MaxConns: 128, Handshake: 10 * time.Second, WriteStall: 10 * time.Second}

// ErrLagging is what a subscription's next returns once the subscriber was
// dropped for falling too far behind.
var ErrLagging = errors.New("this client fell too far behind the engine's events")

// acceptPauseMax is the longest pause between accept retries after an
// error (the open-file limit reached): tmux stops accepting for a second.
const acceptPauseMax = time.Second

// ErrServing is wrapped by Listen's error when a live cockpit already
// serves the socket.
var ErrServing = errors.New("a cockpit is already serving this run")

// Listen takes the socket at path: its directory is made (0700) and must
// belong to the user; a lock file beside the socket (holding the server's
// pid) says whether a live server owns it — a live one is never replaced, a
// stale socket left by a dead one is.
func Listen(path string, h Handler, hello HelloResult) (*Server, error) {
	return ListenWith(path, h, hello, Options{})
}

// Options are how a server serves beyond its handler.
type Options struct {
	// Limits bound what clients can hold (zero: DefaultLimits).
	Limits Limits
	// Log records every connection and request with its outcome (nil:
	// nothing is logged).
	Log *slog.Logger
}

// ListenWith is Listen with options.
func ListenWith(path string, h Handler, hello HelloResult, o Options) (*Server, error) {
	lim := o.Limits
	if lim == (Limits{}) {
		lim = DefaultLimits
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if len(abs) > MaxSocketPath {
		return nil, fmt.Errorf("control socket path %s is %d bytes, longer than the %d a unix socket allows; set COCKPIT_SOCKET to a shorter path", abs, len(abs), MaxSocketPath)
	}
	if err := prepareSocketDir(filepath.Dir(abs)); err != nil {
		return nil, err
	}
	lock, err := lockPID(abs + ".lock")
	if errors.Is(err, ErrServing) {
		return nil, fmt.Errorf("%w at %s; use that cockpit, or stop it first", err, abs)
	}
	if err != nil {
		return nil, err
	}
	// We hold the lock, so whoever made a socket file here is gone.
	if err := os.Remove(abs); err != nil && !errors.Is(err, os.ErrNotExist) {
		lock.Unlock()
		return nil, fmt.Errorf("remove stale socket %s: %w", abs, err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: abs, Net: "unix"})
	if err != nil {
		lock.Unlock()
		return nil, fmt.Errorf("listen on %s: %w", abs, err)
	}
	ln.SetUnlinkOnClose(true)
	if err := os.Chmod(abs, 0o600); err != nil {
		ln.Close()
		lock.Unlock()
		return nil, err
	}
	if lim.MaxConns <= 0 {
		lim.MaxConns = DefaultLimits.MaxConns
	}
	s := &Server{path: abs, ln: ln, lock: lock, h: h, hello: hello, lim: lim, log: log, conns: map[net.Conn]struct{}{}, quit: make(chan struct{})}
	s.uid.Store(uint32(os.Getuid()))
	s.hello.Version, s.hello.Server, s.hello.PID = ProtocolVersion, "cockpit", os.Getpid()
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// prepareSocketDir makes dir private (no group or other bits) and checks
// that the user owns it, so no other user can reach the socket whatever
// its own mode. A directory it did not create is made private only when
// the user owns it and it is not a shared one (world-writable or sticky,
// like /tmp): those are refused rather than locked down under everyone
// else's feet. No bit is ever added: a directory read-only for its owner
// (0555) is refused with how to fix it, its mode kept.
func prepareSocketDir(dir string) error {
	created := false
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("make socket directory %s: %w", dir, err)
		}
		created = true
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("socket directory %s is not a directory", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && st.Uid != uint32(os.Getuid()) {
		return fmt.Errorf("socket directory %s belongs to uid %d, not to you (uid %d); set COCKPIT_SOCKET to a path in a directory of your own", dir, st.Uid, os.Getuid())
	}
	mode := fi.Mode()
	if !created && (mode&os.ModeSticky != 0 || mode.Perm()&0o002 != 0) {
		return fmt.Errorf("socket directory %s is shared (mode %v); set COCKPIT_SOCKET to a path in a private directory of your own", dir, mode)
	}
	// The user's own bits are theirs: one that leaves the directory
	// read-only (0555) is refused, never overridden; only group and other
	// bits are taken away.
	if mode.Perm()&0o300 != 0o300 {
		return fmt.Errorf("socket directory %s is read-only for you (mode %v); make it writable (chmod u+wx %s), or set COCKPIT_SOCKET to a path in a directory of your own", dir, mode.Perm(), dir)
	}
	if mode.Perm()&0o077 != 0 {
		if err := os.Chmod(dir, mode.Perm()&^0o077); err != nil {
			return fmt.Errorf("make socket directory %s private: %w", dir, err)
		}
	}
	return nil
}

// Path is the socket's path.
func (s *Server) Path() string { return s.path }

func (s *Server) accept() {
	defer s.wg.Done()
	var pause time.Duration
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// EMFILE/ENFILE (the open-file limit), ENOBUFS, ECONNABORTED:
			// the listener is fine and the connection waits in the
			// backlog. Pause (5 ms, doubling up to a second, as net/http
			// does; tmux pauses a second) and accept again.
			pause = min(max(2*pause, 5*time.Millisecond), acceptPauseMax)
			s.log.Warn("accept failed; retrying", "err", err, "pause", pause)
			select {
			case <-time.After(pause):
				continue
			case <-s.quit:
				return
			}
		}
		pause = 0
		uid, err := peerUID(c)
		if err == nil {
			err = checkPeer(uid, s.uid.Load())
		}
		if err != nil {
			s.log.Warn("connection refused", "code", CodeDenied, "err", err)
			s.refuse(c, CodeDenied, err.Error())
			continue
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		if len(s.conns) >= s.lim.MaxConns {
			s.mu.Unlock()
			s.log.Warn("connection refused", "code", CodeBusy, "open", s.lim.MaxConns)
			s.refuse(c, CodeBusy, fmt.Sprintf("this cockpit has %d connections open, its limit; close some (a `cockpit events` that stopped reading?) and try again", s.lim.MaxConns))
			continue
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serve(c)
	}
}

// refuse answers a connection with one unsolicited error and hangs up,
// without waiting on a peer that does not read.
func (s *Server) refuse(c net.Conn, code, message string) {
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_ = WriteMessage(c, Reply{Error: &RPCError{Code: code, Message: message}})
	c.Close()
}

// peerUID reads the connecting process's uid (SO_PEERCRED).
func peerUID(c *net.UnixConn) (uint32, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, err
	}
	if cerr != nil {
		return 0, cerr
	}
	return cred.Uid, nil
}

// checkPeer refuses a peer whose uid is not the server's.
func checkPeer(peer, self uint32) error {
	if peer != self {
		return fmt.Errorf("connection from uid %d refused: this cockpit serves uid %d only", peer, self)
	}
	return nil
}

type conn struct {
	c      net.Conn
	n      int64         // its number, for the log
	client string        // what hello said it is, for the log
	stall  time.Duration // Limits.WriteStall
	wmu    sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// send writes one message; a client that does not take it within the
// write-stall limit is hung up on.
func (c *conn) send(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.write(append(data, '\n'))
}

func (c *conn) write(line []byte) error {
	if len(line) > MaxMessage+1 {
		return errTooLong
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.stall > 0 {
		_ = c.c.SetWriteDeadline(time.Now().Add(c.stall))
	}
	_, err := c.c.Write(line)
	if err != nil {
		c.c.Close() // a half-written message leaves nothing to resume
	}
	return err
}

func (s *Server) serve(nc net.Conn) {
	defer s.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	c := &conn{c: nc, n: s.connN.Add(1), stall: s.lim.WriteStall, ctx: ctx, cancel: cancel}
	defer func() {
		cancel()
		nc.Close()
		c.wg.Wait()
		s.mu.Lock()
		delete(s.conns, nc)
		s.mu.Unlock()
	}()
	r := bufio.NewReaderSize(nc, 64<<10)
	greeted := false
	if s.lim.Handshake > 0 {
		// A connection that says nothing is closed (it would hold a file
		// and a goroutine of the engine for ever).
		_ = nc.SetReadDeadline(time.Now().Add(s.lim.Handshake))
	}
	for {
		msg, err := ReadMessage(r)
		if errors.Is(err, errTooLong) {
			_ = c.send(Reply{Error: &RPCError{Code: CodeBadRequest, Message: err.Error()}})
			continue
		}
		if err != nil {
			if !greeted && errors.Is(err, os.ErrDeadlineExceeded) {
				s.log.Warn("connection closed: no hello", "conn", c.n, "within", s.lim.Handshake)
			}
			return
		}
		var req Request
		if err := json.Unmarshal(msg, &req); err != nil || req.Method == "" {
			_ = c.send(Reply{ID: req.ID, Error: &RPCError{Code: CodeBadRequest, Message: "a request is one JSON object {id, method, params} per line"}})
			continue
		}
		if greeted && req.Method == MethodAttach {
			// No other request is read on this connection: from the byte
			// after the reply, it carries frames.
			res, serveScreen, err := s.attach(req.Params)
			s.logRequest(c, MethodAttach, time.Now(), req.Params, res, err)
			if err != nil {
				_ = c.reply(req.ID, nil, err)
				continue
			}
			if err := c.reply(req.ID, res, nil); err != nil {
				return
			}
			_ = nc.SetDeadline(time.Time{}) // the screen keeps its own time
			func() {
				defer func() { _ = recover() }() // a screen never takes the engine down
				serveScreen(ctx, bufferedConn{Reader: r, conn: nc})
			}()
			return
		}
		if !greeted {
			if req.Method != MethodHello {
				_ = c.send(Reply{ID: req.ID, Error: &RPCError{Code: CodeBadRequest, Message: "the first request must be hello"}})
				return
			}
			var p HelloParams
			_ = json.Unmarshal(req.Params, &p)
			c.client = p.Client
			s.log.Info("hello", "conn", c.n, "client", p.Client, "version", p.Version)
			if p.Version != ProtocolVersion {
				_ = c.send(Reply{ID: req.ID, Error: &RPCError{Code: CodeVersion, Message: fmt.Sprintf("protocol version %d is not supported; this cockpit speaks %d", p.Version, ProtocolVersion)}})
				return
			}
			greeted = true
			_ = nc.SetReadDeadline(time.Time{})
			_ = c.reply(req.ID, s.hello, nil)
			continue
		}
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			s.handle(c, req)
		}()
	}
}

func (c *conn) reply(id int64, result any, err error) error {
	if err != nil {
		var re *RPCError
		if !errors.As(err, &re) {
			re = &RPCError{Code: CodeFailed, Message: err.Error()}
		}
		return c.send(Reply{ID: id, Error: re})
	}
	data, merr := json.Marshal(result)
	if merr != nil {
		return c.send(Reply{ID: id, Error: &RPCError{Code: CodeFailed, Message: merr.Error()}})
	}
	return c.send(Reply{ID: id, Result: data})
}

func badParams(err error) error {
	return &RPCError{Code: CodeBadRequest, Message: "bad params: " + err.Error()}
}

// attach checks an attach request's params and asks the handler for a
// screen.
func (s *Server) attach(raw json.RawMessage) (AttachResult, ServeScreen, error) {
	var p AttachParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return AttachResult{}, nil, badParams(err)
	}
	if p.Cols < 0 || p.Rows < 0 {
		return AttachResult{}, nil, badParams(fmt.Errorf("cols %d, rows %d: a size is positive", p.Cols, p.Rows))
	}
	return s.h.Attach(raw)
}

// handle serves one request of a greeted connection from the table.
func (s *Server) handle(c *conn, req Request) {
	sp, ok := methodByName()[req.Method]
	if !ok || sp.serve == nil {
		msg := fmt.Sprintf("unknown method %q", req.Method)
		if req.Method == MethodHello {
			msg = "hello was already said on this connection"
		}
		_ = c.reply(req.ID, nil, &RPCError{Code: CodeBadRequest, Message: msg})
		return
	}
	sp.serve(s, c, req.ID, req.Params)
}

// Close stops accepting, ends every connection, removes the socket and
// releases the lock.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.quit)
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	_ = s.lock.Unlock()
	return err
}
