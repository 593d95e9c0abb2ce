package usage

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// registryChanged looks up the chats directory of every gemini worker
// waiting for its project to be registered, and ties the chats already
// there. It returns the directories (and files) to watch.
func (t *Tracker) registryChanged() (changed bool, more []Watch) {
	for _, w := range t.ds {
		if !w.waitReg {
			continue
		}
		dir := t.homes.GeminiChatsDir(w.d.Cwd)
		if dir == "" {
			continue
		}
		w.waitReg, w.dir = false, dir
		t.dirs[dir] = GeminiChat
		more = append(more, Watch{Path: dir, Dir: true})
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if got := t.associate(filepath.Join(dir, e.Name())); len(got) > 0 {
				changed = true
				more = append(more, got...)
			}
		}
	}
	return changed, more
}

// associateGemini ties a gemini chat recording to a worker: by the
// session id its first line names, for a worker whose CLI was given its
// id; else to the earliest waiting worker of that directory (the
// project hash) that started before the chat did. It returns the chat
// and the directory of its subagents' chats to watch.
func (t *Tracker) associateGemini(path string, waiting []*tracked) []Watch {
	if !IsGeminiChat(path) {
		return nil
	}
	meta, ok := t.gmetas[path]
	if !ok {
		if meta, ok = ReadGeminiChatMeta(path); !ok {
			return nil // not written yet: looked at again on its next event
		}
		t.gmetas[path] = meta
	}
	if meta.Kind == "subagent" {
		return nil
	}
	dir := filepath.Dir(path)
	var match *tracked
	for _, w := range waiting {
		if w.format == GeminiChat && w.dir == dir && w.idOnArgv && w.d.SessionID == meta.SessionID {
			match = w
			break
		}
	}
	for _, w := range waiting {
		if match != nil {
			break
		}
		if w.format != GeminiChat || w.dir != dir || w.idOnArgv || !sameProject(meta.ProjectHash, w.d.Cwd) {
			continue
		}
		if !meta.Start.IsZero() && !w.d.Started.IsZero() && meta.Start.Before(w.d.Started.Add(-5*time.Second)) {
			continue
		}
		match = w
	}
	if match == nil {
		return nil
	}
	t.follow(match, path)
	return append([]Watch{{Path: path}}, t.watchSubagents(match, dir, meta.SessionID)...)
}

// sameProject says whether hash is gemini's project hash of cwd (as
// given, or with its symbolic links resolved).
func sameProject(hash, cwd string) bool {
	if hash == GeminiProjectHash(cwd) {
		return true
	}
	real, err := filepath.EvalSymlinks(cwd)
	return err == nil && hash == GeminiProjectHash(real)
}

// geminiFilePart is gemini-cli's sanitizeFilenamePart: every character
// but letters, digits, '-' and '_' replaced by '_'.
func geminiFilePart(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// watchSubagents makes w own the directory where gemini records the chats
// of the subagents of session id (<chats>/<id>/<subagent id>.jsonl, a
// subagent's own subagents there too: gemini-cli 0.61 keeps the main
// session's id as every subagent's parent), whose tokens are the worker's
// too, and returns it to watch, with the chats already there.
func (t *Tracker) watchSubagents(w *tracked, chats, id string) []Watch {
	part := geminiFilePart(id)
	if part == "" {
		return nil
	}
	sub := filepath.Join(chats, part)
	if _, ok := t.subDirs[sub]; ok {
		return nil
	}
	t.subDirs[sub] = w
	out := []Watch{{Path: sub, Dir: true}}
	entries, _ := os.ReadDir(sub)
	for _, e := range entries {
		out = append(out, t.followSubagent(filepath.Join(sub, e.Name()))...)
	}
	return out
}

// followSubagent follows path, a new entry of a subagent chat directory,
// as more of its worker's evidence.
func (t *Tracker) followSubagent(path string) []Watch {
	w, ok := t.subDirs[filepath.Dir(path)]
	if !ok || t.claimed[path] || !strings.HasSuffix(path, ".jsonl") {
		return nil
	}
	f := NewFollower(path, GeminiChat)
	if w.subs == nil {
		w.subs = map[string]*Follower{}
	}
	w.subs[path] = f
	t.files[path] = append(t.files[path], w)
	t.claimed[path] = true
	_, _ = f.Update()
	if w.f != nil {
		t.price(w)
	}
	return []Watch{{Path: path}}
}
