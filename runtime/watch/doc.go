// Package watch tells the engine and the headless commands what changed in
// a run without polling: run files through fsnotify on their directories,
// worker processes through pidfds (ProcessAlive and Watcher.Alive are the
// liveness probes), and TailLog follows a worker's log until it exits. It
// knows nothing of okstra's files: callers name the files and their kinds.
// It must not read or write run state.
package watch
