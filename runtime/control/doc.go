// Package control is the engine's control socket: the newline-delimited
// JSON protocol (docs/PROTOCOL.md), the server that serves a Handler (the
// engine) to the run's own user, the client the headless commands dial, and
// the wire events a subscribed connection receives. It holds no run state
// and opens no panes: the Handler does.
package control
