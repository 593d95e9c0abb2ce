// Package engine is the cockpit's engine: one per run, it owns the panes
// (lead, workers, followers of workers running elsewhere), watches the
// run's files and processes, settles dispatches from their sidecars, keeps
// the RunView, queues the human's gates and serves the control socket. Its
// events (view.Event, sealed) reach screens, `cockpit serve` and `cockpit
// events` through one broker, each subscriber's queue the only one. Files
// by concern: engine.go (lifecycle), panes.go, respawn.go (the lead started
// again in its pane), gates.go, refresh.go (classify → settle → build
// view), broker.go, socket.go (the control socket's handler), screens.go
// (attached screens through the Config.Attach hook, status, stop), log.go
// and logread.go (the engine's log, cockpit-engine.log, and reading it
// back for `cockpit logs`), usage.go (the workers' token evidence). It draws nothing
// and catches no signals: its caller ends it (Close); Stop only asks the
// caller to (Stopping).
package engine
