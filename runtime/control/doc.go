// Package control is the engine's control socket: the newline-delimited
// JSON protocol (docs/PROTOCOL.md) with its one table of methods (Methods:
// each a typed Method[Params, Result] whose Call is that request's client,
// bound to the server's handler; PROTOCOL.md's table is rendered from it),
// the server that serves a Handler (the engine) to the run's own user
// within Limits that no client can break, the client the headless commands
// dial (every call bounded), the wire events a subscribed connection
// receives, and what of each request the engine's log keeps. It holds no
// run state and opens no panes: the Handler does.
package control
