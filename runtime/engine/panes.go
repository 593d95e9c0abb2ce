package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/panes/layout"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/lifecycle"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
	"golang.org/x/sys/unix"
)

// openLead opens the lead's pane; following panes open right after it.
func (c *Engine) openLead(following int) error {
	env := append(os.Environ(), c.cfg.LeadEnv...)
	env = append(env,
		"COCKPIT_SOCKET="+c.SocketPath(),
		"COCKPIT_RUN_MANIFEST="+c.run.Manifest.Display,
		"COCKPIT_PROJECT_ROOT="+c.run.Root.Dir(),
	)
	if c.cfg.Self != "" {
		env = prependPath(env, filepath.Dir(c.cfg.Self))
	}
	for i := len(c.cfg.LeadPath) - 1; i >= 0; i-- {
		env = prependPath(env, c.cfg.LeadPath[i])
	}
	cfg := panes.Config{Argv: c.cfg.Lead, Dir: c.run.Root.Dir(), Env: env}
	c.mu.Lock()
	c.leadCfg = cfg // for RespawnLead
	c.mu.Unlock()
	_, err := c.open(cfg, control.PaneInfo{Title: "lead", Lead: true}, following)
	return err
}

func prependPath(env []string, dir string) []string {
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			env[i] = "PATH=" + dir + string(os.PathListSeparator) + v
			return env
		}
	}
	return append(env, "PATH="+dir)
}

// elsewhereWorker is a dispatch whose wrapper runs outside this engine.
type elsewhereWorker struct {
	d   state.Dispatch
	pid int
	log string
}

// runningElsewhere lists the dispatches whose wrapper runs outside this
// cockpit (an earlier cockpit's pane survived, or a cli-wrapper child).
func (c *Engine) runningElsewhere(ts *state.TeamState) []elsewhereWorker {
	if c.cfg.Self == "" {
		return nil
	}
	var out []elsewhereWorker
	for _, d := range ts.WorkerDispatches {
		if d.Terminal() || d.LogPath == "" {
			continue
		}
		pid := d.PID
		if sp, err := c.run.Root.Resolve(d.StatusPath, "statusPath"); err == nil {
			if sc, _ := state.ReadSidecar(sp, d.StatusPath); sc != nil {
				pid = sc.PID
			}
		}
		if !c.watch.Alive(pid) {
			continue
		}
		log, err := c.run.Root.Resolve(d.LogPath, "logPath")
		if err != nil {
			continue
		}
		out = append(out, elsewhereWorker{d, pid, log})
	}
	return out
}

// followElsewhere opens a read-only pane following the log of each worker
// running elsewhere, so the human sees them too.
func (c *Engine) followElsewhere(todo []elsewhereWorker) {
	for i, f := range todo {
		argv := []string{c.cfg.Self, "worker", "tail", "--pid", strconv.Itoa(f.pid), f.log}
		_, _ = c.open(panes.Config{Argv: argv, Dir: c.run.Root.Dir()}, control.PaneInfo{Title: f.d.ExecutionLabel + " · running elsewhere", DispatchID: f.d.DispatchID}, len(todo)-1-i)
	}
}

// open starts a pane and announces it. following is how many more panes
// the caller opens right after it: the pane starts at the size the screen
// will give it once they are all open (see paneSizeLocked).
func (c *Engine) open(cfg panes.Config, info control.PaneInfo, following int) (*panes.Pane, error) {
	// Close waits for opens in flight, so no pane escapes its CloseAll.
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errors.New("the cockpit is closing")
	}
	c.opening.Add(1)
	if cfg.Cols == 0 {
		cfg.Cols, cfg.Rows = c.paneSizeLocked(info.Lead, following)
	}
	c.inFlight++
	c.mu.Unlock()
	defer c.opening.Done()
	defer func() {
		c.mu.Lock()
		c.inFlight--
		c.mu.Unlock()
	}()
	if c.cfg.CloseGrace > 0 {
		cfg.CloseGrace = c.cfg.CloseGrace
	}
	p, err := c.mgr.Open(cfg)
	if err != nil {
		c.log.Warn("pane did not open", "dispatch", info.DispatchID, "lead", info.Lead, "err", errString(err))
		return nil, err
	}
	info.PaneID, info.PID = p.ID(), p.Pid()
	c.log.Info("pane opened", "pane", info.PaneID, "pid", info.PID, "dispatch", info.DispatchID, "lead", info.Lead, "cols", cfg.Cols, "rows", cfg.Rows)
	c.broker.update(func() (view.Event, bool) {
		c.mu.Lock()
		c.info[p.ID()] = info
		c.mu.Unlock()
		return view.PaneOpened{PaneID: info.PaneID, Title: info.Title, DispatchID: info.DispatchID, Lead: info.Lead}, true
	})
	c.watchExit(p, info)
	return p, nil
}

// watchExit logs the pane's program's exit and looks at the run again:
// a worker's exit is what its sidecar reports.
func (c *Engine) watchExit(p *panes.Pane, info control.PaneInfo) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		select {
		case <-p.Done():
			st, _ := p.Status()
			c.log.Info("pane program exited", "pane", p.ID(), "pid", p.Pid(), "dispatch", info.DispatchID, "lead", info.Lead, "status", st.String())
			c.kick()
		case <-c.done:
		}
	}()
}

// OpenPane serves open-pane: a worker pane running argv.
func (c *Engine) OpenPane(p control.OpenPaneParams) (control.OpenPaneResult, error) {
	if len(p.Argv) == 0 {
		return control.OpenPaneResult{}, &control.RPCError{Code: control.CodeBadRequest, Message: "open-pane needs argv"}
	}
	dir := p.Dir
	if dir == "" {
		dir = c.run.Root.Dir()
	}
	var env []string
	if len(p.Env) > 0 {
		env = append(os.Environ(), p.Env...)
	}
	pane, err := c.open(panes.Config{Argv: p.Argv, Dir: dir, Env: env}, control.PaneInfo{Title: p.Title, DispatchID: p.DispatchID}, min(max(p.Following, 0), maxFollowing))
	if err != nil {
		return control.OpenPaneResult{}, err
	}
	return control.OpenPaneResult{PaneID: pane.ID(), PID: pane.Pid()}, nil
}

// ClosePanes serves close-panes: it closes the open panes among ids (the
// lead pane is never closed this way) and returns those it closed.
func (c *Engine) ClosePanes(p control.ClosePanesParams) (control.ClosePanesResult, error) {
	res := control.ClosePanesResult{Closed: []string{}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, id := range p.PaneIDs {
		c.mu.Lock()
		info, ok := c.info[id]
		c.mu.Unlock()
		if !ok || info.Lead {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.ClosePane(id, p.Reason); err == nil {
				mu.Lock()
				res.Closed = append(res.Closed, id)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.SortFunc(res.Closed, control.ComparePaneIDs)
	return res, nil
}

// ClosePane closes one pane: SIGHUP to its process group, then SIGTERM, then
// SIGKILL (the wrapper writes a terminal sidecar on the first).
func (c *Engine) ClosePane(id, reason string) error {
	c.mu.Lock()
	info, ok := c.info[id]
	delete(c.info, id)
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s: %w", id, panes.ErrNoPane)
	}
	err := c.mgr.Close(id)
	c.log.Info("pane closed", "pane", id, "dispatch", info.DispatchID, "reason", control.Clip(reason), "err", errString(err))
	c.broker.publish(view.PaneClosed{PaneID: id, Reason: reason})
	c.kick()
	return err
}

// ListPanes serves list-panes.
func (c *Engine) ListPanes() control.ListPanesResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	res := control.ListPanesResult{Panes: []control.PaneInfo{}}
	for _, info := range c.info {
		if p, ok := c.mgr.Get(info.PaneID); ok {
			info.Exited = p.Exited()
		}
		res.Panes = append(res.Panes, info)
	}
	slices.SortFunc(res.Panes, func(a, b control.PaneInfo) int { return control.ComparePaneIDs(a.PaneID, b.PaneID) })
	return res
}

// maxFollowing caps OpenPaneParams.Following: past it the screen shows
// tabs anyway.
const maxFollowing = 1024

// ScreenSize is what the screen tells the engine about itself, so that new
// panes start at the size it will give them.
type ScreenSize struct {
	Cols, Rows int
	Timeline   bool // the timeline panel is shown (as in tui.ScreenSize and layout.PaneSize)
}

// SetScreen tells the engine the screen's size (on start and on every
// resize) and whether its timeline is shown. Panes opened from then on
// start at the size the screen's layout gives them.
func (c *Engine) SetScreen(s ScreenSize) {
	c.mu.Lock()
	c.screen = s
	c.mu.Unlock()
}

// paneSizeLocked is the content size a new pane gets from the screen's
// layout (panes/layout, as the screen computes it): the panes open now and
// being opened, this one, and the following ones the caller opens right
// after; the lead first, the others in the order they opened, the new one
// after them. Without a known screen size it is the configured fallback.
func (c *Engine) paneSizeLocked(lead bool, following int) (cols, rows int) {
	scr := c.screen
	if scr.Cols <= 0 || scr.Rows <= 0 {
		scr.Cols, scr.Rows = terminalSize()
	}
	if scr.Cols > 0 && scr.Rows > 0 {
		hasLead := lead
		n := c.inFlight
		for _, info := range c.info {
			n++
			hasLead = hasLead || info.Lead
		}
		idx := n
		if lead {
			idx = 0
		}
		in := layout.In{N: n + 1 + following, Lead: hasLead}
		if w, h, ok := layout.PaneSize(scr.Cols, scr.Rows, scr.Timeline, in, idx); ok {
			return w, h
		}
	}
	return c.cfg.Cols, c.cfg.Rows
}

// terminalSize is the size of the engine's terminal (stdout, else stdin),
// which the screen runs on; 0, 0 without one.
func terminalSize() (cols, rows int) {
	for _, fd := range []int{1, 0} {
		if ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ); err == nil && ws.Col > 0 && ws.Row > 0 {
			return int(ws.Col), int(ws.Row)
		}
	}
	return 0, 0
}

// Host is the engine as the dispatch lifecycle's PaneHost, in-process:
// the calls the control socket serves as open-pane, close-panes and
// list-panes, with no socket in the path (tests drive `team dispatch`,
// reclaim and teardown against a real engine this way).
func (c *Engine) Host() lifecycle.PaneHost { return inProcess{c} }

type inProcess struct{ c *Engine }

func (h inProcess) OpenPane(ctx context.Context, p control.OpenPaneParams) (control.OpenPaneResult, error) {
	if err := ctx.Err(); err != nil {
		return control.OpenPaneResult{}, err
	}
	return h.c.OpenPane(p)
}

func (h inProcess) ClosePanes(ctx context.Context, p control.ClosePanesParams) (control.ClosePanesResult, error) {
	if err := ctx.Err(); err != nil {
		return control.ClosePanesResult{}, err
	}
	return h.c.ClosePanes(p)
}

func (h inProcess) ListPanes(ctx context.Context) (control.ListPanesResult, error) {
	if err := ctx.Err(); err != nil {
		return control.ListPanesResult{}, err
	}
	return h.c.ListPanes(), nil
}
