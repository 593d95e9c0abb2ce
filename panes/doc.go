// Package panes owns PTY panes: a process started in a pseudo-terminal, the
// terminal emulator fed by its output, input encoding (keys, paste, mouse),
// resize, and close with an escalating signal sequence. A Manager hands out
// stable pane ids and tells the UI which panes changed. It knows nothing of
// okstra and must not import bubbletea.
package panes
