package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/gofrs/flock"
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
	// Subscribe returns a stream of events and a function that ends it.
	Subscribe() (<-chan EventMessage, func())
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
	lock  *flock.Flock
	h     Handler
	hello HelloResult
	uid   atomic.Uint32 // the only uid served; a field so tests can forge a mismatch

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// ErrServing is wrapped by Listen's error when a live cockpit already
// serves the socket.
var ErrServing = errors.New("a cockpit is already serving this run")

// Listen takes the socket at path: its directory is made (0700) and must
// belong to the user; a lock file beside the socket (holding the server's
// pid) says whether a live server owns it — a live one is never replaced, a
// stale socket left by a dead one is.
func Listen(path string, h Handler, hello HelloResult) (*Server, error) {
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
	lock := flock.New(abs + ".lock")
	ok, err := lock.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", abs+".lock", err)
	}
	if !ok {
		pid, _ := os.ReadFile(abs + ".lock")
		return nil, fmt.Errorf("%w (pid %s) at %s; use that cockpit, or stop it first", ErrServing, strings.TrimSpace(string(pid)), abs)
	}
	// We hold the lock, so whoever made a socket file here is gone.
	if err := os.WriteFile(abs+".lock", []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		lock.Unlock()
		return nil, err
	}
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
	s := &Server{path: abs, ln: ln, lock: lock, h: h, hello: hello, conns: map[net.Conn]struct{}{}}
	s.uid.Store(uint32(os.Getuid()))
	s.hello.Version, s.hello.Server, s.hello.PID = ProtocolVersion, "cockpit", os.Getpid()
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// prepareSocketDir makes dir private (0700) and checks that the user owns
// it, so no other user can reach the socket whatever its own mode. A
// directory it did not create is made 0700 only when the user owns it and it
// is not a shared one (world-writable or sticky, like /tmp): those are
// refused rather than locked down under everyone else's feet.
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
	if mode.Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("make socket directory %s private: %w", dir, err)
		}
	}
	return nil
}

// Path is the socket's path.
func (s *Server) Path() string { return s.path }

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			return
		}
		uid, err := peerUID(c)
		if err == nil {
			err = checkPeer(uid, s.uid.Load())
		}
		if err != nil {
			_ = WriteMessage(c, Reply{Error: &RPCError{Code: CodeDenied, Message: err.Error()}})
			c.Close()
			continue
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serve(c)
	}
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
	wmu    sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (c *conn) send(v any) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return WriteMessage(c.c, v)
}

func (s *Server) serve(nc net.Conn) {
	defer s.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	c := &conn{c: nc, ctx: ctx, cancel: cancel}
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
	for {
		msg, err := ReadMessage(r)
		if errors.Is(err, errTooLong) {
			_ = c.send(Reply{Error: &RPCError{Code: CodeBadRequest, Message: err.Error()}})
			continue
		}
		if err != nil {
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
			if err != nil {
				_ = c.reply(req.ID, nil, err)
				continue
			}
			if err := c.reply(req.ID, res, nil); err != nil {
				return
			}
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
			if p.Version != ProtocolVersion {
				_ = c.send(Reply{ID: req.ID, Error: &RPCError{Code: CodeVersion, Message: fmt.Sprintf("protocol version %d is not supported; this cockpit speaks %d", p.Version, ProtocolVersion)}})
				return
			}
			greeted = true
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

func (s *Server) handle(c *conn, req Request) {
	switch req.Method {
	case MethodStatus:
		st := s.h.Status()
		st.PID, st.ProjectRoot, st.RunManifest, st.Socket = s.hello.PID, s.hello.ProjectRoot, s.hello.RunManifest, s.path
		_ = c.reply(req.ID, st, nil)
	case MethodStop:
		s.h.Stop()
		_ = c.reply(req.ID, struct{}{}, nil)
	case MethodOpenPane:
		var p OpenPaneParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			_ = c.reply(req.ID, nil, badParams(err))
			return
		}
		res, err := s.h.OpenPane(p)
		_ = c.reply(req.ID, res, err)
	case MethodClosePanes:
		var p ClosePanesParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			_ = c.reply(req.ID, nil, badParams(err))
			return
		}
		res, err := s.h.ClosePanes(p)
		_ = c.reply(req.ID, res, err)
	case MethodListPanes:
		_ = c.reply(req.ID, s.h.ListPanes(), nil)
	case MethodView:
		_ = c.reply(req.ID, s.h.View(), nil)
	case MethodGate:
		var p GateParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			_ = c.reply(req.ID, nil, badParams(err))
			return
		}
		res, err := s.h.Gate(c.ctx, p)
		_ = c.reply(req.ID, res, err)
	case MethodSubscribe:
		events, stop := s.h.Subscribe()
		if err := c.reply(req.ID, struct{}{}, nil); err != nil {
			stop()
			return
		}
		defer stop()
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					return
				}
				if err := c.send(ev); err != nil {
					return
				}
			case <-c.ctx.Done():
				return
			}
		}
	default:
		_ = c.reply(req.ID, nil, &RPCError{Code: CodeBadRequest, Message: fmt.Sprintf("unknown method %q", req.Method)})
	}
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
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	_ = s.lock.Unlock()
	return err
}
