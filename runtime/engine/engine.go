package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/lifecycle"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/runtime/watch"
	"github.com/okstra/cockpit/state"
)

// Config says what an engine serves.
type Config struct {
	Run  *state.Run
	Self string // the cockpit binary, for worker panes and the lead's PATH
	// Lead is the lead pane's command; nil opens no lead pane.
	Lead []string
	// LeadEnv is added to the lead's environment.
	LeadEnv []string
	// LeadPath are directories put first on the lead's PATH, before Self's
	// (the okstra shim directory).
	LeadPath []string
	// Socket overrides SocketPath(Run).
	Socket string
	// NoServer skips the control socket (tests of the engine alone).
	NoServer bool
	// SocketLimits override control.DefaultLimits (tests).
	SocketLimits control.Limits
	// Cols, Rows size new panes when the screen's size is unknown (no
	// terminal, and the screen has not told it): 100×30 by default.
	Cols, Rows int
	// ScreenCols, ScreenRows are the screen's size at start when the caller
	// knows it. Otherwise the engine reads the size of its terminal
	// (stdout, else stdin) until the screen tells it with SetScreen.
	ScreenCols, ScreenRows int
	// CloseGrace overrides the panes' close grace.
	CloseGrace time.Duration
	// Attach serves an attached screen (the control socket's attach
	// method): conn carries the frames of tui/attach from its first byte,
	// params are the request's as sent. It returns when the screen has
	// ended, and owns conn. cmd provides it (tui/host); nil refuses
	// attach requests. A panic in it ends that screen only.
	Attach func(ctx context.Context, conn io.ReadWriteCloser, params json.RawMessage) error
	// Log is the engine's log (NewLogger on OpenLog's file for the daemon;
	// nil logs nothing).
	Log *slog.Logger
}

// Engine is the engine behind the screen: it owns the panes, watches the
// run's files, keeps the RunView, serves the control socket and queues the
// human's gates. The screen and `cockpit events` subscribe to its events.
type Engine struct {
	cfg    Config
	log    *slog.Logger
	run    *state.Run
	mgr    *panes.Manager
	broker *broker[view.Event]
	watch  *watch.Watcher
	server *control.Server

	paths   pathResolver
	ledger  ledgerTail              // how far the ledger was read (the refresh loop's)
	usage   *usageFollow            // the workers' token evidence
	opening sync.WaitGroup          // panes being opened
	seen    map[string]sidecarWatch // dispatches whose sidecar was read → what is watched of it

	mu       sync.Mutex
	screen   ScreenSize // what the screen said (Cols 0: nothing yet)
	inFlight int        // panes being opened, not in info yet
	view     view.RunView
	info     map[string]control.PaneInfo // open panes by id
	leadCfg  panes.Config                // how the lead pane was started (RespawnLead)
	gates    []*pendingGate
	closed   bool
	started  time.Time
	screens  int // attached screens being served
	screenN  int // the last screen id handed out
	stopping chan struct{}
	stopOnce sync.Once
	rebuild  chan struct{}
	done     chan struct{}
	wg       sync.WaitGroup
}

type pendingGate struct {
	gate    view.Gate
	answer  chan view.GateAnswer
	report  string // GateParams.Report: where AnswerGate writes the answer
	sidecar string // the sidecar AnswerGate wrote, set before answer is sent
}

// Start starts the run's engine: it settles what earlier sessions
// left, reserves their pane ids, starts the watcher and the control socket,
// opens the lead pane and, for dispatches still running elsewhere, panes that
// follow their logs.
func Start(cfg Config) (*Engine, error) {
	if cfg.Cols == 0 || cfg.Rows == 0 {
		cfg.Cols, cfg.Rows = 100, 30
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Engine{
		cfg: cfg, log: log, run: cfg.Run, mgr: panes.NewManager(), broker: newBroker(),
		info: map[string]control.PaneInfo{}, rebuild: make(chan struct{}, 1), done: make(chan struct{}),
		stopping: make(chan struct{}), started: time.Now(),
		seen:   map[string]sidecarWatch{},
		usage:  newUsageFollow(cfg.Run),
		screen: ScreenSize{Cols: cfg.ScreenCols, Rows: cfg.ScreenRows, Timeline: true},
	}
	run := cfg.Run
	// Dispatches whose panes died with an earlier cockpit settle now (their
	// wrappers wrote terminal sidecars on SIGHUP, or are gone).
	if _, _, err := lifecycle.Settle(run); err != nil {
		return nil, err
	}
	ts, err := run.TeamState()
	if err != nil {
		return nil, err
	}
	c.mgr.ReserveIDs(maxPaneNumber(ts))
	if c.watch, err = watch.NewWatcher(); err != nil {
		return nil, fmt.Errorf("watch run files: %w", err)
	}
	for _, f := range []struct {
		path string
		kind watch.EventKind
	}{{run.TeamStatePath, watch.EvTeamState}, {run.LeadEventsPath, watch.EvLedger}} {
		if err := c.watch.Watch(f.path, f.kind); err != nil {
			c.watch.Close()
			return nil, fmt.Errorf("watch %s: %w", f.path, err)
		}
	}
	if p := run.Manifest.TaskManifestPath; p != "" {
		if abs, err := run.Root.Resolve(p, "taskManifestPath"); err == nil {
			_ = c.watch.Watch(abs, watch.EvOther)
		}
	}
	if !cfg.NoServer {
		path := cfg.Socket
		if path == "" {
			path = control.SocketPath(run)
		}
		hello := control.HelloResult{RunManifest: run.Manifest.Display, ProjectRoot: run.Root.Dir()}
		if c.server, err = control.ListenWith(path, c.handler(), hello, control.Options{Limits: cfg.SocketLimits, Log: log}); err != nil {
			c.watch.Close()
			return nil, err
		}
	}
	log.Info("engine started", "pid", os.Getpid(), "runManifest", run.Manifest.Display, "socket", c.SocketPath(), "lead", len(cfg.Lead) > 0)
	c.refresh(nil, true)
	c.wg.Add(1)
	go c.loop()
	elsewhere := c.runningElsewhere(ts)
	if len(cfg.Lead) > 0 {
		if err := c.openLead(len(elsewhere)); err != nil {
			c.Close()
			return nil, err
		}
	}
	c.followElsewhere(elsewhere)
	return c, nil
}

// maxPaneNumber is the highest N of a recorded "pane-N".
func maxPaneNumber(ts *state.TeamState) int {
	n := 0
	for _, d := range ts.WorkerDispatches {
		if v, ok := control.PaneNumber(d.PaneID); ok {
			n = max(n, v)
		}
	}
	return n
}

// Manager is the engine's pane manager, for the screen.
func (c *Engine) Manager() *panes.Manager { return c.mgr }

// ProjectRoot is the run's project root, which the run's file paths
// (dispatch logs and results) are relative to.
func (c *Engine) ProjectRoot() string { return c.run.Root.Dir() }

// SocketPath is where the engine listens ("" without a server).
func (c *Engine) SocketPath() string {
	if c.server == nil {
		return ""
	}
	return c.server.Path()
}

// Subscribe streams the engine's events (ViewUpdated, PaneOpened,
// PaneClosed, Notice) from now on. A new subscriber first gets a
// PaneOpened for every pane already open, then the current view, taken
// under the broker's lock: no event published meanwhile is lost, and no
// pane is announced twice.
func (c *Engine) Subscribe() (<-chan view.Event, func()) {
	return c.broker.subscribe(c.subscribeSnapshot)
}

// SubscribeBatches is Subscribe with the events delivered in batches: each
// receive takes every event queued since the last one, in order. A reader
// that is slow now and then (a screen drawing a frame) gets a burst — the
// opening PaneOpened per pane and the view — in one receive.
func (c *Engine) SubscribeBatches() (<-chan []view.Event, func()) {
	sub := c.broker.subscribeBatches(c.subscribeSnapshot, 0)
	return sub.C, sub.Stop
}

// subscribeSnapshot is what a new subscriber starts with: a PaneOpened for
// every open pane, then the current view.
func (c *Engine) subscribeSnapshot() []view.Event {
	var initial []view.Event
	for _, p := range c.ListPanes().Panes {
		initial = append(initial, view.PaneOpened{PaneID: p.PaneID, Title: p.Title, DispatchID: p.DispatchID, Lead: p.Lead})
	}
	return append(initial, view.ViewUpdated{View: c.View()})
}

// LeadPane is the id of the lead's pane ("" when there is none).
func (c *Engine) LeadPane() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, info := range c.info {
		if info.Lead {
			return id
		}
	}
	return ""
}

// View is the current run view.
func (c *Engine) View() view.RunView {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.view
}

// kick asks the loop to rebuild the view.
func (c *Engine) kick() {
	select {
	case c.rebuild <- struct{}{}:
	default:
	}
}

// Close closes every pane (workers write their terminal sidecars on the
// SIGHUP), settles the run, stops the server and the watcher.
func (c *Engine) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	c.log.Info("engine closing: closing every pane")
	c.opening.Wait()
	err := c.mgr.CloseAll()
	if c.server != nil {
		c.server.Close()
	}
	close(c.done)
	c.wg.Wait()
	c.watch.Close()
	_, settled, serr := lifecycle.Settle(c.run)
	c.log.Info("engine closed", "settled", strings.Join(settled, ","), "err", errString(errors.Join(err, serr)))
	return errors.Join(err, serr)
}

// errString is err's text for the log ("" for none).
func errString(err error) string {
	if err == nil {
		return ""
	}
	return control.Clip(err.Error())
}
