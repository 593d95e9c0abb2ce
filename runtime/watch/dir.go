package watch

import (
	"os"
	"path/filepath"
)

// dirMarker stands for "every entry" of a directory watched with WatchDir
// where watchDirLocked expects a file: a name no file can have.
const dirMarker = "\x00entries"

// WatchDir reports every entry of dir that is created, written, renamed or
// removed (not the entries of its subdirectories) as kind: for evidence
// files whose names are not known in advance (a codex rollout, a kimi
// session). A file also watched with Watch keeps that kind. When dir does
// not exist yet, its nearest existing ancestor is watched until it
// appears; the entries it holds by then are reported.
func (w *Watcher) WatchDir(dir string, kind EventKind) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	w.mu.Lock()
	if w.dirs == nil {
		w.dirs = map[string]EventKind{}
	}
	w.dirs[abs] = kind
	_, err = w.watchDirLocked(filepath.Join(abs, dirMarker))
	w.mu.Unlock()
	return err
}

// dirKindLocked is the kind of an entry of a directory watched with
// WatchDir.
func (w *Watcher) dirKindLocked(path string) (EventKind, bool) {
	k, ok := w.dirs[filepath.Dir(path)]
	return k, ok
}

// markerEntriesLocked lists what a WatchDir directory holds once its
// watch is in place after waiting for it (file is its marker): entries
// made before the watch got no event.
func (w *Watcher) markerEntriesLocked(file string) []string {
	if filepath.Base(file) != dirMarker {
		return nil
	}
	dir := filepath.Dir(file)
	if !w.watching[dir] {
		return nil
	}
	entries, _ := os.ReadDir(dir)
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, filepath.Join(dir, e.Name()))
	}
	return out
}
