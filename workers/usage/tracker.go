package usage

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/okstra/cockpit/workers"
)

// Dispatch is what a Tracker needs of one worker.
type Dispatch struct {
	ID       string
	Provider string
	Model    string // the dispatch's model execution value
	Prompt   string // absolute prompt path
	Log      string // absolute pane log path
	// Cwd is where the CLI runs (the worktree, else the project root).
	Cwd       string
	SessionID string // the dispatcher's --session-id, "" when none
	Started   time.Time
}

// Watch is a path the caller should watch and report to Changed: a file,
// or (Dir) a directory whose entries are reported.
type Watch struct {
	Path string
	Dir  bool
}

// Tracker follows the evidence of many workers: Add says which files to
// watch, Changed reads what a changed file appended. Safe for concurrent
// use.
type Tracker struct {
	cat   *workers.Catalog
	homes Homes

	mu      sync.Mutex
	ds      map[string]*tracked
	files   map[string][]*tracked  // followed file → its workers
	dirs    map[string]Format      // directories where evidence appears
	claimed map[string]bool        // evidence files tied to a worker
	metas   map[string]RolloutMeta // rollouts' first lines, read once
	gmetas  map[string]GeminiChatMeta
	// registries are gemini's project registries that gemini workers
	// wait on: gemini names a project's directory there at its first
	// start in it.
	registries map[string]bool
	// subDirs are gemini's directories of a session's subagent chats,
	// by the worker they belong to.
	subDirs map[string]*tracked
	sums    map[string]Summary
}

type tracked struct {
	d      Dispatch
	format Format
	f      *Follower // nil until its file is known
	dir    string    // where an unknown file will appear (codex, kimi)
	sessID string    // codex: the session id its log printed
	logLen int64     // codex: the log's size when it was last searched for one
	// idOnArgv says the CLI was given d.SessionID (its argv passes
	// {sessionId}): its evidence names that id.
	idOnArgv bool
	waitReg  bool // gemini: its project is not in gemini's registry yet
	// subs follow the chats of a gemini worker's subagents, by path.
	subs map[string]*Follower
}

// follower is w's follower of path: its evidence file's, or a subagent
// chat's.
func (w *tracked) follower(path string) *Follower {
	if w.f != nil && w.f.Path == path {
		return w.f
	}
	return w.subs[path]
}

// NewTracker makes a tracker pricing with cat (nil: everything unpriced)
// and finding the CLIs' files under homes.
func NewTracker(cat *workers.Catalog, homes Homes) *Tracker {
	return &Tracker{
		cat: cat, homes: homes, ds: map[string]*tracked{}, files: map[string][]*tracked{},
		dirs: map[string]Format{}, claimed: map[string]bool{}, metas: map[string]RolloutMeta{}, sums: map[string]Summary{},
		gmetas: map[string]GeminiChatMeta{}, registries: map[string]bool{}, subDirs: map[string]*tracked{},
	}
}

// Evidence says where a worker of provider leaves its tokens: the format,
// and either a file path or (dir true) a directory where the file will
// appear. ok is false when the provider leaves none the cockpit can read.
func (t *Tracker) evidence(d Dispatch) (f Format, path string, dirs []string, ok bool) {
	if d.Provider == workers.SimProviderID {
		return ClaudeSession, SimUsagePath(d.Prompt), nil, d.Prompt != ""
	}
	var argv []string
	if t.cat != nil {
		if p, err := t.cat.Provider(d.Provider); err == nil {
			argv = p.Command
		}
	}
	if len(argv) == 0 {
		return 0, "", nil, false
	}
	cli := filepath.Base(argv[0])
	switch {
	case slices.Contains(argv, "stream-json"):
		return StreamJSON, d.Log, nil, d.Log != ""
	case cli == "claude" && d.SessionID != "" && slices.Contains(argv, "{sessionId}"):
		return ClaudeSession, t.homes.ClaudeSession(d.Cwd, d.SessionID), nil, true
	case cli == "codex":
		start := d.Started
		if start.IsZero() {
			start = time.Now()
		}
		ds := []string{t.homes.CodexDayDir(start)}
		if today := t.homes.CodexDayDir(time.Now()); today != ds[0] {
			ds = append(ds, today)
		}
		return CodexRollout, "", ds, true
	case cli == "kimi":
		return KimiWire, "", []string{t.homes.KimiWorkDir(d.Cwd)}, true
	case cli == "gemini":
		// No dirs when gemini has not registered the project yet:
		// Add waits on the registry.
		if dir := t.homes.GeminiChatsDir(d.Cwd); dir != "" {
			return GeminiChat, "", []string{dir}, true
		}
		return GeminiChat, "", nil, true
	}
	return 0, "", nil, false
}

// onArgv says whether provider's argv passes the session id.
func (t *Tracker) onArgv(provider string) bool {
	if t.cat == nil {
		return false
	}
	p, err := t.cat.Provider(provider)
	return err == nil && slices.Contains(p.Command, "{sessionId}")
}

// Add starts following d (once; a second Add of the same id does
// nothing), reads what its evidence holds already, and returns what to
// watch for it.
func (t *Tracker) Add(d Dispatch) []Watch {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.ds[d.ID]; ok {
		return nil
	}
	return t.add(d)
}

// Relocate says dispatch id's CLI runs in cwd, not where Add was told (a
// worktree: the engine learns it from the CLI's process once the wrapper
// has started it). A worker whose evidence is found by its directory
// (claude's transcript, codex's rollout by its first line, gemini's and
// kimi's sessions) and not found yet looks there from now on; it returns
// what to watch.
func (t *Tracker) Relocate(id, cwd string) []Watch {
	t.mu.Lock()
	defer t.mu.Unlock()
	w, ok := t.ds[id]
	if !ok || cwd == "" || w.d.Cwd == cwd || w.format == StreamJSON || w.d.Provider == workers.SimProviderID {
		return nil
	}
	if w.f != nil {
		if w.f.Offset() > 0 {
			return nil // found where it was
		}
		t.unfollow(w)
	}
	delete(t.ds, id)
	d := w.d
	d.Cwd = cwd
	return t.add(d)
}

func (t *Tracker) add(d Dispatch) []Watch {
	format, path, dirs, ok := t.evidence(d)
	w := &tracked{d: d, format: format, idOnArgv: d.SessionID != "" && t.onArgv(d.Provider)}
	t.ds[d.ID] = w
	if !ok {
		return nil
	}
	if format == GeminiChat && len(dirs) == 0 {
		w.waitReg = true
		reg := t.homes.GeminiRegistry()
		t.registries[reg] = true
		return []Watch{{Path: reg}}
	}
	if path != "" {
		t.follow(w, path)
		if format == ClaudeSession && w.f.Offset() == 0 && d.Provider != workers.SimProviderID {
			// The worker may have run in another directory (a worktree).
			if other := t.homes.FindClaudeSession(d.SessionID); other != "" && other != path {
				t.unfollow(w)
				t.follow(w, other)
				return []Watch{{Path: path}, {Path: other}}
			}
		}
		return []Watch{{Path: path}}
	}
	var out []Watch
	for _, dir := range dirs {
		t.dirs[dir] = format
		out = append(out, Watch{Path: dir, Dir: true})
	}
	w.dir = dirs[0]
	for _, dir := range dirs {
		if w.f != nil {
			break
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			out = append(out, t.associate(filepath.Join(dir, e.Name()))...)
			if w.f != nil {
				break
			}
		}
	}
	return out
}

func (t *Tracker) follow(w *tracked, path string) {
	w.f = NewFollower(path, w.format)
	t.files[path] = append(t.files[path], w)
	t.claimed[path] = true
	_, _ = w.f.Update()
	t.price(w)
}

func (t *Tracker) unfollow(w *tracked) {
	path := w.f.Path
	t.files[path] = slices.DeleteFunc(t.files[path], func(x *tracked) bool { return x == w })
	delete(t.claimed, path)
	w.f = nil
}

// Changed reads what path appended (a followed file), or ties a new file
// in a watched directory to its worker. changed says whether any worker's
// usage changed; more are further paths to watch.
func (t *Tracker) Changed(path string) (changed bool, more []Watch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ws, ok := t.files[path]; ok {
		for _, w := range ws {
			if f := w.follower(path); f != nil {
				if c, _ := f.Update(); c {
					changed = t.price(w) || changed
				}
			}
		}
		return changed, nil
	}
	if t.registries[path] {
		return t.registryChanged()
	}
	if _, ok := t.subDirs[filepath.Dir(path)]; ok {
		more := t.followSubagent(path)
		return len(more) > 0, more
	}
	if _, ok := t.dirs[filepath.Dir(path)]; !ok || t.claimed[path] {
		return false, nil
	}
	if more := t.associate(path); len(more) > 0 {
		return true, more
	}
	return false, nil
}

// associate ties entry, a new entry of an evidence directory, to the
// worker it belongs to, and returns what to watch for it (none when it is
// nobody's).
func (t *Tracker) associate(entry string) []Watch {
	if t.claimed[entry] {
		return nil
	}
	dir := filepath.Dir(entry)
	var waiting []*tracked
	for _, w := range t.ds {
		if w.f == nil && w.dir != "" && t.dirs[dir] == w.format {
			waiting = append(waiting, w)
		}
	}
	if len(waiting) == 0 {
		return nil
	}
	slices.SortFunc(waiting, func(a, b *tracked) int { return a.d.Started.Compare(b.d.Started) })
	switch waiting[0].format {
	case CodexRollout:
		return watchFile(t.associateRollout(entry, waiting))
	case KimiWire:
		return watchFile(t.associateKimi(entry, waiting))
	case GeminiChat:
		return t.associateGemini(entry, waiting)
	}
	return nil
}

// watchFile is a watch of path, none when path is "".
func watchFile(path string) []Watch {
	if path == "" {
		return nil
	}
	return []Watch{{Path: path}}
}

// associateRollout ties a codex rollout to a worker: by the session id
// the worker's log printed, else by the rollout's session_meta naming the
// worker's directory and a start after its dispatch, when exactly one
// waiting worker runs there.
func (t *Tracker) associateRollout(path string, waiting []*tracked) string {
	if !IsRollout(path) {
		return ""
	}
	base := strings.ToLower(filepath.Base(path))
	for _, w := range waiting {
		if w.sessID == "" {
			// Read the log's head again only when it grew: a worker
			// whose CLI never printed an id costs a stat per event.
			if st, err := os.Stat(w.d.Log); err == nil && st.Size() != w.logLen && w.logLen < 32<<10 {
				w.logLen = st.Size()
				w.sessID = CodexSessionFromLog(w.d.Log)
			}
		}
		if w.sessID != "" && strings.HasSuffix(base, "-"+w.sessID+".jsonl") {
			t.follow(w, path)
			return path
		}
	}
	// A rollout is named by its session id: when every waiting worker
	// knows its own, one named by none of them is nobody's, and its first
	// line (over 20 KiB) need not be read.
	if !slices.ContainsFunc(waiting, func(w *tracked) bool { return w.sessID == "" }) {
		return ""
	}
	meta, ok := t.metas[path]
	if !ok {
		if meta, ok = ReadRolloutMeta(path); !ok {
			return "" // not written yet: looked at again on its next event
		}
		t.metas[path] = meta
	}
	var match *tracked
	for _, w := range waiting {
		if w.d.Cwd != meta.Cwd || (w.sessID != "" && w.sessID != meta.ID) {
			continue
		}
		if !meta.At.IsZero() && !w.d.Started.IsZero() && meta.At.Before(w.d.Started.Add(-5*time.Second)) {
			continue
		}
		if match != nil {
			return "" // two workers could own it: wait for a session id
		}
		match = w
	}
	if match == nil {
		return ""
	}
	t.follow(match, path)
	return path
}

// associateKimi ties a new kimi session directory to the earliest waiting
// kimi worker of that working directory that started before it.
func (t *Tracker) associateKimi(dir string, waiting []*tracked) string {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return ""
	}
	for _, w := range waiting {
		if w.format != KimiWire || t.homes.KimiWorkDir(w.d.Cwd) != filepath.Dir(dir) {
			continue
		}
		if !w.d.Started.IsZero() && st.ModTime().Before(w.d.Started.Add(-2*time.Second)) {
			continue
		}
		t.claimed[dir] = true
		wire := filepath.Join(dir, "wire.jsonl")
		t.follow(w, wire)
		return wire
	}
	return ""
}

// Settled says dispatch id has ended. A worker still waiting for its
// evidence file (codex, kimi) gets one last look at its directories and
// then stops waiting, so later files there are not offered to it. It
// returns further paths to watch.
//
// A worker that has its file is read to the end one last time and then no
// longer followed: its figures stay as they are when a new attempt of the
// same prompt starts the log (or the sim's file) again.
func (t *Tracker) Settled(id string) []Watch {
	t.mu.Lock()
	defer t.mu.Unlock()
	w, ok := t.ds[id]
	if !ok {
		return nil
	}
	if w.f != nil {
		if w.format == ClaudeSession && w.d.Provider != workers.SimProviderID && w.f.Offset() == 0 {
			// Its transcript was not where it was looked for when the
			// worker was first seen: it ran in another directory (a
			// worktree) whose transcript appeared later. Look once more.
			if other := t.homes.FindClaudeSession(w.d.SessionID); other != "" && other != w.f.Path {
				t.unfollow(w)
				t.follow(w, other)
			}
		}
		c, _ := w.f.Update()
		for _, f := range w.subs {
			if cs, _ := f.Update(); cs {
				c = true
			}
		}
		if c {
			t.price(w)
		}
		for _, path := range append(slices.Collect(maps.Keys(w.subs)), w.f.Path) {
			t.files[path] = slices.DeleteFunc(t.files[path], func(x *tracked) bool { return x == w })
			if len(t.files[path]) == 0 {
				delete(t.files, path)
			}
		}
		for dir, o := range t.subDirs {
			if o == w {
				delete(t.subDirs, dir)
			}
		}
		return nil
	}
	var out []Watch
	if w.waitReg {
		_, out = t.registryChanged()
		w.waitReg = false
	}
	if w.dir == "" {
		return out
	}
	for dir, f := range t.dirs {
		if f != w.format {
			continue
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			out = append(out, t.associate(filepath.Join(dir, e.Name()))...)
			if w.f != nil {
				break
			}
		}
		if w.f != nil {
			break
		}
	}
	w.dir = ""
	return out
}

// price recomputes w's summary; it reports whether it changed.
func (t *Tracker) price(w *tracked) bool {
	tot := w.f.Totals()
	for _, f := range w.subs {
		for m, n := range f.Totals().ByModel {
			tot.ByModel[m] = tot.ByModel[m].add(n)
		}
	}
	if tot.All().Sum() == 0 {
		return false
	}
	s := Price(t.cat, w.d.Provider, w.d.Model, tot, w.format.String())
	if t.sums[w.d.ID] == s {
		return false
	}
	t.sums[w.d.ID] = s
	return true
}

// Usage returns every worker's summary that has tokens, by dispatch id.
func (t *Tracker) Usage() map[string]Summary {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.sums) == 0 {
		return nil
	}
	out := make(map[string]Summary, len(t.sums))
	for k, v := range t.sums {
		out[k] = v
	}
	return out
}

// SimUsagePath is where the sim provider writes its claude-shaped usage
// for a prompt: beside it, so a demo touches nothing under ~/.claude.
func SimUsagePath(prompt string) string { return prompt + ".usage.jsonl" }

// UpdateAll reads what every followed file appended (after the watcher
// may have lost events). It reports whether any usage changed.
func (t *Tracker) UpdateAll() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	changed := false
	for path, ws := range t.files {
		for _, w := range ws {
			if f := w.follower(path); f != nil {
				if c, _ := f.Update(); c {
					changed = t.price(w) || changed
				}
			}
		}
	}
	return changed
}
