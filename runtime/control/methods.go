package control

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"time"

	"github.com/okstra/cockpit/runtime/view"
)

// Method is one request of the protocol with its params type P and result
// type R. Its Call is the typed client of that request; the server's
// dispatch (Methods) is built from the same values, so a client, the
// server and docs/PROTOCOL.md's table (TestProtocolDocTable) cannot
// disagree on a method's name or types.
type Method[P, R any] struct {
	Name string
	// Timeout bounds a call whose context ends later (or never): a wedged
	// engine fails the call instead of hanging its caller. 0 means the
	// call waits as long as the engine says it works on it (a gate waits
	// for the human): the client pings the engine meanwhile and fails the
	// call when a ping goes unanswered (PingTimeout).
	Timeout time.Duration
}

// Call sends one request on c and returns its result.
func (m Method[P, R]) Call(ctx context.Context, c *Client, p P) (R, error) {
	var r R
	err := c.call(ctx, m.Name, m.Timeout, p, &r)
	return r, err
}

// Empty is the params or result of a method that takes or returns nothing.
type Empty struct{}

// The protocol's methods (docs/PROTOCOL.md). Hello and Attach are served by
// the connection itself (Dial, DialAttach); the others by Handler.
var (
	Hello      = Method[HelloParams, HelloResult]{MethodHello, HandshakeTimeout}
	OpenPane   = Method[OpenPaneParams, OpenPaneResult]{MethodOpenPane, 30 * time.Second}
	ClosePanes = Method[ClosePanesParams, ClosePanesResult]{MethodClosePanes, 30 * time.Second}
	ListPanes  = Method[Empty, ListPanesResult]{MethodListPanes, 10 * time.Second}
	View       = Method[Empty, view.RunView]{MethodView, 10 * time.Second}
	Gate       = Method[GateParams, GateResult]{MethodGate, 0}
	Subscribe  = Method[Empty, Empty]{MethodSubscribe, 10 * time.Second}
	Attach     = Method[AttachParams, AttachResult]{MethodAttach, HandshakeTimeout}
	Status     = Method[Empty, StatusResult]{MethodStatus, 10 * time.Second}
	Stop       = Method[Empty, Empty]{MethodStop, 10 * time.Second}
	Ping       = Method[Empty, Empty]{MethodPing, PingTimeout}
)

// Client-side bounds (docs/DECISIONS.md).
const (
	// ConnectTimeout bounds connecting to the socket.
	ConnectTimeout = 5 * time.Second
	// HandshakeTimeout bounds hello and attach (and is how long the server
	// waits for a new connection's hello).
	HandshakeTimeout = 10 * time.Second
	// PingInterval and PingTimeout: during a call without a timeout the
	// client pings every PingInterval and gives up on an engine that does
	// not answer a ping within PingTimeout.
	PingInterval = 5 * time.Second
	PingTimeout  = 10 * time.Second
)

// pingInterval is PingInterval; tests shorten it.
var pingInterval = PingInterval

// Spec is one row of the protocol's table: a method's name, params and
// result types, client timeout, what docs/PROTOCOL.md says of it, and how
// the server serves it.
type Spec struct {
	Name           string
	Params, Result reflect.Type
	Timeout        time.Duration
	// ParamsDoc and ResultDoc replace the fields derived from the types in
	// the docs' table when set; Note follows the result there.
	ParamsDoc, ResultDoc, Note string
	serve                      func(s *Server, c *conn, id int64, raw json.RawMessage)
}

// spec makes the row of m; serve decodes the params and replies with what
// handle returns (nil: the connection serves it itself).
func spec[P, R any](m Method[P, R], note string, handle func(s *Server, c *conn, p P) (R, error)) Spec {
	sp := Spec{Name: m.Name, Params: reflect.TypeFor[P](), Result: reflect.TypeFor[R](), Timeout: m.Timeout, Note: note}
	if handle != nil {
		sp.serve = func(s *Server, c *conn, id int64, raw json.RawMessage) {
			var p P
			if len(raw) > 0 && string(raw) != "null" {
				if err := json.Unmarshal(raw, &p); err != nil {
					_ = c.reply(id, nil, badParams(err))
					return
				}
			}
			start := time.Now()
			r, err := handle(s, c, p)
			_ = c.reply(id, r, err)
			s.logRequest(c, m.Name, start, p, r, err)
		}
	}
	return sp
}

// Methods is the protocol's table, in the order docs/PROTOCOL.md lists it,
// built on its first use (the server's first request, the docs table):
// built at init, every command of the binary would pay for it, the
// headless ones a lead calls included.
var Methods = sync.OnceValue(func() []Spec {
	return []Spec{
		spec(Hello, "the first request on a connection; a different version is refused with code `version`", nil),
		spec(OpenPane, "the program starts at the size the screen's layout gives the pane once the `following` further panes of the caller's batch are open too (`team dispatch` passes the rest of its batch)",
			func(s *Server, _ *conn, p OpenPaneParams) (OpenPaneResult, error) { return s.h.OpenPane(p) }),
		spec(ClosePanes, "`closed`: those that were open (never the lead pane)",
			func(s *Server, _ *conn, p ClosePanesParams) (ClosePanesResult, error) { return s.h.ClosePanes(p) }),
		spec(ListPanes, "", func(s *Server, _ *conn, _ Empty) (ListPanesResult, error) { return s.h.ListPanes(), nil }),
		withDoc(spec(View, "", func(s *Server, _ *conn, _ Empty) (view.RunView, error) { return s.h.View(), nil }), "", "the run view the screen draws (`view.RunView`)"),
		spec(Gate, "blocks until the human answers; withdrawn if the client hangs up",
			func(s *Server, c *conn, p GateParams) (GateResult, error) { return s.h.Gate(c.ctx, p) }),
		withServe(spec(Subscribe, "then events on this connection (\"Events\" below)", nil), serveSubscribe),
		spec(Attach, "then the connection carries the screen's frames (\"Attached screens\" below)", nil),
		spec(Status, "what `cockpit ls` shows: open panes (the lead's included), the current batch's counts, the waiting gates' ids, oldest first, the attached screens, and the run's priced cost so far (`unpriced`: workers with tokens at no known price; `costKnown` false before any usage; docs/COST.md)",
			func(s *Server, _ *conn, _ Empty) (StatusResult, error) {
				st := s.h.Status()
				st.PID, st.ProjectRoot, st.RunManifest, st.Socket = s.hello.PID, s.hello.ProjectRoot, s.hello.RunManifest, s.path
				return st, nil
			}),
		spec(Stop, "at once — the engine ends the run: every attached screen ends with `run-ended`, every pane is closed (the workers write terminal sidecars), the run is settled, the socket goes and the engine exits; `cockpit stop` waits for its pid to be gone",
			func(s *Server, _ *conn, _ Empty) (Empty, error) { s.h.Stop(); return Empty{}, nil }),
		spec(Ping, "answered by the server at once; a client waiting on a call without a timeout pings to tell a wedged engine from a slow answer",
			func(*Server, *conn, Empty) (Empty, error) { return Empty{}, nil }),
	}
})

func withDoc(sp Spec, params, result string) Spec {
	sp.ParamsDoc, sp.ResultDoc = params, result
	return sp
}

func withServe(sp Spec, serve func(s *Server, c *conn, id int64, raw json.RawMessage)) Spec {
	sp.serve = serve
	return sp
}

// serveSubscribe replies, then streams the handler's events.
func serveSubscribe(s *Server, c *conn, id int64, _ json.RawMessage) {
	next, stop := s.h.Subscribe()
	defer stop()
	if err := c.reply(id, Empty{}, nil); err != nil {
		return
	}
	s.logRequest(c, MethodSubscribe, time.Now(), nil, nil, nil)
	s.stream(c, next)
}

var methodByName = sync.OnceValue(func() map[string]*Spec {
	ms := Methods()
	m := make(map[string]*Spec, len(ms))
	for i := range ms {
		m[ms[i].Name] = &ms[i]
	}
	return m
})

// timeoutOf is the client timeout of the method called name; an unknown
// method gets the default of a short call.
func timeoutOf(name string) time.Duration {
	if sp, ok := methodByName()[name]; ok {
		return sp.Timeout
	}
	return 10 * time.Second
}
