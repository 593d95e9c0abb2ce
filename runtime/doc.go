// Package runtime is the cockpit's engine: dispatch, await, reclaim,
// teardown, liveness and checkpoint recording over the run's files; the
// sidecar watcher (fsnotify); the control socket server and its client; and
// the two backends (cockpit-pane, cli-wrapper). It drives panes and workers
// and records through state; it draws nothing.
package runtime
