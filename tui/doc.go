// Package tui holds the bubbletea models of the cockpit's screen: the app,
// the pane grid, the status line, the checkpoint timeline, the gate dialog
// and the wizard, with one styles file. Models do no I/O in Update; events
// from panes and the watcher arrive as messages.
package tui
