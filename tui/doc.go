// Package tui is the cockpit's screen: the root bubbletea model (App) that
// shows the lead's and the workers' panes tiled, their title bars, the
// header with the next-phase pointer, the status line with the batch counts,
// the checkpoint timeline, the help overlay and the gate dialog, all styled
// from one Styles value. The task setup wizard lives in tui/wizard.
//
// The screen owns no process and reads no file: panes come from a
// panes.Manager, the run from view.ViewUpdated and the other engine
// messages, and what the human asks of the engine goes back through Actions.
// Update does no I/O: pane snapshots, input, resizes and engine actions run
// in commands. docs/SCREEN.md describes the layout, the keys and the frame
// rules.
package tui
