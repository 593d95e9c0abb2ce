// Package engine is the cockpit's engine: one per run, it owns the panes
// (lead, workers, followers of workers running elsewhere), watches the
// run's files and processes, settles dispatches from their sidecars, keeps
// the RunView, queues the human's gates and serves the control socket. Its
// events reach screens and `cockpit events` through one broker. Files by
// concern: engine.go (lifecycle), panes.go, respawn.go (the lead started
// again in its pane), gates.go, refresh.go (classify
// → settle → build view), broker.go, socket.go, screens.go (attached
// screens through the Config.Attach hook, status, stop). It draws nothing
// and catches no signals: its caller ends it (Close); Stop only asks the
// caller to (Stopping).
package engine
