package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/runtime/watch"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/workers"
	"github.com/okstra/cockpit/workers/usage"
)

// usageFollow is the engine's side of the workers' token evidence: a
// usage.Tracker fed by the watcher (EvUsage events), never a timer. Only
// the loop goroutine (and Start, before it) touches it.
type usageFollow struct {
	tr      *usage.Tracker
	added   map[string]bool // dispatches given to the tracker
	settled map[string]bool // dispatches told the tracker as ended
	// cwdKnown are the dispatches whose CLI's directory is known: its
	// process was seen (the sidecar's childPid), or it ended.
	cwdKnown map[string]bool
	// on is set by the first refresh, which runs in Start: the evidence is
	// first read by the loop's next refresh, so a long run's logs never
	// delay the engine's start (or a screen's first frame).
	on bool
}

func newUsageFollow(run *state.Run) *usageFollow {
	cat, err := workers.LoadCatalog(run.Root.Dir())
	if err != nil {
		// The wrappers refuse to start with a broken providers.json;
		// past dispatches still price with the built-in catalog.
		cat = workers.BuiltinCatalog()
	}
	return &usageFollow{tr: usage.NewTracker(cat, usage.HomesFromEnv(os.Getenv)), added: map[string]bool{}, settled: map[string]bool{}, cwdKnown: map[string]bool{}}
}

// trackUsage gives the tracker the dispatches it has not seen, once their
// wrapper's sidecar says when they started and with which session id (a
// dispatch without one yet is looked at again on the next refresh: its
// sidecar's first write is an event).
func (c *Engine) trackUsage(ts *state.TeamState) {
	u := c.usage
	if !u.on {
		u.on = true
		c.kick()
		return
	}
	// A prompt dispatched again shares its log (and the sim's usage file)
	// with its earlier attempts; only the latest one's is on disk.
	latest := map[string]int{}
	for i := range ts.WorkerDispatches {
		latest[ts.WorkerDispatches[i].PromptPath] = i
	}
	for i := range ts.WorkerDispatches {
		d := &ts.WorkerDispatches[i]
		if !u.added[d.DispatchID] && d.Terminal() && latest[d.PromptPath] != i {
			u.added[d.DispatchID], u.settled[d.DispatchID] = true, true
			continue
		}
		if u.added[d.DispatchID] {
			if !u.cwdKnown[d.DispatchID] {
				c.relocateUsage(d)
			}
			if d.Terminal() && !u.settled[d.DispatchID] {
				u.settled[d.DispatchID] = true
				c.watchUsage(u.tr.Settled(d.DispatchID))
			}
			continue
		}
		ud := usage.Dispatch{ID: d.DispatchID, Provider: d.Provider, Model: d.Model, Cwd: c.run.Root.Dir()}
		if p, err := c.paths.resolve(c.run, d.PromptPath); err == nil && d.PromptPath != "" {
			ud.Prompt = p
		}
		if p, err := c.paths.resolve(c.run, d.LogPath); err == nil && d.LogPath != "" {
			ud.Log = p
		}
		var sc *state.Sidecar
		if sp, err := c.paths.resolve(c.run, d.StatusPath); err == nil && d.StatusPath != "" {
			sc, _ = state.ReadSidecar(sp, d.StatusPath)
		}
		if sc == nil && !d.Terminal() {
			continue
		}
		if sc != nil {
			ud.SessionID = sc.SessionID
			ud.Started, _ = time.Parse(time.RFC3339, sc.StartedAt)
			if sc.ChildPID > 0 {
				ud.Cwd = cliDir(sc.ChildPID, ud.Cwd)
				u.cwdKnown[d.DispatchID] = true
			}
		}
		if d.Terminal() {
			u.cwdKnown[d.DispatchID] = true
		}
		if ud.Started.IsZero() {
			ud.Started, _ = time.Parse(time.RFC3339, d.DispatchedAt)
		}
		u.added[d.DispatchID] = true
		c.watchUsage(u.tr.Add(ud))
	}
}

// relocateUsage looks for the directory a running dispatch's CLI works
// in once its wrapper has started it (the sidecar's second write names
// the CLI's pid): a job's worktree, which team-state does not record. A
// dispatch that ends first keeps the project root.
func (c *Engine) relocateUsage(d *state.Dispatch) {
	u := c.usage
	if d.Terminal() {
		u.cwdKnown[d.DispatchID] = true
		return
	}
	sp, err := c.paths.resolve(c.run, d.StatusPath)
	if err != nil || d.StatusPath == "" {
		u.cwdKnown[d.DispatchID] = true
		return
	}
	sc, _ := state.ReadSidecar(sp, d.StatusPath)
	if sc == nil || sc.ChildPID == 0 {
		return // looked at again on its next write
	}
	u.cwdKnown[d.DispatchID] = true
	root := c.run.Root.Dir()
	if cwd := cliDir(sc.ChildPID, root); cwd != root {
		c.watchUsage(u.tr.Relocate(d.DispatchID, cwd))
	}
}

// cliDir is the working directory of process pid (Linux's /proc) when it
// is root or inside it, as the process sees it (symbolic links
// resolved, as a CLI names its project); root otherwise, and where /proc
// is not there.
func cliDir(pid int, root string) string {
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	if err != nil {
		return root
	}
	base := root
	if real, err := filepath.EvalSymlinks(root); err == nil {
		base = real
	}
	if rel, err := filepath.Rel(base, cwd); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return root
	}
	return cwd
}

// watchUsage watches what the tracker asked for, then reads each file
// once more: bytes written between the tracker's first read and the watch
// got no event. It reports whether that read changed any usage.
func (c *Engine) watchUsage(ws []usage.Watch) (changed bool) {
	for _, w := range ws {
		if w.Dir {
			// Entries made between the tracker's look and the watch got
			// no event either.
			_ = c.watch.WatchDir(w.Path, watch.EvUsage)
			entries, _ := os.ReadDir(w.Path)
			for _, e := range entries {
				ch, more := c.usage.tr.Changed(filepath.Join(w.Path, e.Name()))
				changed = c.watchUsage(more) || ch || changed
			}
			continue
		}
		_ = c.watch.Watch(w.Path, watch.EvUsage)
		// A file watched for what it names (gemini's project registry)
		// may name more to watch.
		ch, more := c.usage.tr.Changed(w.Path)
		changed = c.watchUsage(more) || ch || changed
	}
	return changed
}

// usageEvents reads what the batch's evidence files appended. It reports
// whether any worker's usage changed, and whether the batch held nothing
// else (then the rest of the refresh can be skipped: token evidence never
// changes team-state).
func (c *Engine) usageEvents(batch []watch.FileEvent, full bool) (changed, only bool) {
	only = !full && len(batch) > 0
	for _, ev := range batch {
		if ev.Kind != watch.EvUsage {
			only = false
			continue
		}
		ch, more := c.usage.tr.Changed(ev.Path)
		changed = c.watchUsage(more) || ch || changed
	}
	if full && c.usage.tr.UpdateAll() {
		changed = true
	}
	return changed, only
}

// usageView is the view's Usage: every worker with tokens so far.
func (c *Engine) usageView() map[string]view.Usage {
	sums := c.usage.tr.Usage()
	if len(sums) == 0 {
		return nil
	}
	out := make(map[string]view.Usage, len(sums))
	for id, s := range sums {
		out[id] = view.Usage{Input: s.Input, Cached: s.Cached, Output: s.Output, CacheWrite: s.CacheWrite, Model: s.Model,
			CostUSD: s.CostUSD, Priced: s.Priced, CostSource: s.CostSource, ListUSD: s.ListUSD, ListPriced: s.ListPriced, Source: s.Source}
	}
	return out
}

// publishUsage publishes the view with new Usage, when it changed.
func (c *Engine) publishUsage() {
	u := c.usageView()
	c.broker.update(func() (view.Event, bool) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if usageEqual(c.view.Usage, u) {
			return nil, false
		}
		v := c.view
		v.Usage = u
		c.view = v
		return view.ViewUpdated{View: v}, true
	})
}

func usageEqual(a, b map[string]view.Usage) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
