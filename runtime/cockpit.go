package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/panes/layout"
	"github.com/okstra/cockpit/state"
)

// CockpitConfig says what a cockpit serves.
type CockpitConfig struct {
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
	// Cols, Rows size new panes when the screen's size is unknown (no
	// terminal, and the screen has not told it): 100×30 by default.
	Cols, Rows int
	// ScreenCols, ScreenRows are the screen's size at start when the caller
	// knows it. Otherwise the engine reads the size of its terminal
	// (stdout, else stdin) until the screen tells it with SetScreen.
	ScreenCols, ScreenRows int
	// CloseGrace overrides the panes' close grace.
	CloseGrace time.Duration
}

// Cockpit is the engine behind the screen: it owns the panes, watches the
// run's files, keeps the RunView, serves the control socket and queues the
// human's gates. The screen and `cockpit events` subscribe to its events.
type Cockpit struct {
	cfg    CockpitConfig
	run    *state.Run
	mgr    *panes.Manager
	broker *broker
	watch  *Watcher
	server *Server

	paths   pathCache
	opening sync.WaitGroup // panes being opened
	seen    map[string]int // dispatches whose sidecar was read → the wrapper pid it named

	mu       sync.Mutex
	screen   ScreenSize // what the screen said (Cols 0: nothing yet)
	inFlight int        // panes being opened, not in info yet
	view     RunView
	info     map[string]PaneInfo // open panes by id
	gates    []*pendingGate
	closed   bool
	rebuild  chan struct{}
	done     chan struct{}
	wg       sync.WaitGroup
}

type pendingGate struct {
	gate   Gate
	answer chan GateAnswer
}

// StartCockpit opens the run's cockpit: it settles what earlier sessions
// left, reserves their pane ids, starts the watcher and the control socket,
// opens the lead pane and, for dispatches still running elsewhere, panes that
// follow their logs.
func StartCockpit(cfg CockpitConfig) (*Cockpit, error) {
	if cfg.Cols == 0 || cfg.Rows == 0 {
		cfg.Cols, cfg.Rows = 100, 30
	}
	c := &Cockpit{
		cfg: cfg, run: cfg.Run, mgr: panes.NewManager(), broker: newBroker(),
		info: map[string]PaneInfo{}, rebuild: make(chan struct{}, 1), done: make(chan struct{}),
		seen:   map[string]int{},
		screen: ScreenSize{Cols: cfg.ScreenCols, Rows: cfg.ScreenRows},
	}
	run := cfg.Run
	// Dispatches whose panes died with an earlier cockpit settle now (their
	// wrappers wrote terminal sidecars on SIGHUP, or are gone).
	if _, _, err := Settle(run); err != nil {
		return nil, err
	}
	ts, err := state.ReadTeamState(run.TeamStatePath, run.Manifest.TeamStatePath)
	if err != nil {
		return nil, err
	}
	c.mgr.ReserveIDs(maxPaneNumber(ts))
	if c.watch, err = NewWatcher(); err != nil {
		return nil, fmt.Errorf("watch run files: %w", err)
	}
	for _, f := range []struct {
		path string
		kind EventKind
	}{{run.TeamStatePath, EvTeamState}, {run.LeadEventsPath, EvLedger}} {
		if err := c.watch.Watch(f.path, f.kind); err != nil {
			c.watch.Close()
			return nil, fmt.Errorf("watch %s: %w", f.path, err)
		}
	}
	if p := run.Manifest.TaskManifestPath; p != "" {
		if abs, err := run.Root.Resolve(p, "taskManifestPath"); err == nil {
			_ = c.watch.Watch(abs, EvOther)
		}
	}
	if !cfg.NoServer {
		path := cfg.Socket
		if path == "" {
			path = SocketPath(run)
		}
		hello := HelloResult{RunManifest: run.Manifest.Display, ProjectRoot: run.Root.Dir()}
		if c.server, err = Listen(path, c.handler(), hello); err != nil {
			c.watch.Close()
			return nil, err
		}
	}
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
		if v, err := strconv.Atoi(strings.TrimPrefix(d.PaneID, "pane-")); err == nil && strings.HasPrefix(d.PaneID, "pane-") {
			n = max(n, v)
		}
	}
	return n
}

// Manager is the cockpit's pane manager, for the screen.
func (c *Cockpit) Manager() *panes.Manager { return c.mgr }

// SocketPath is where the cockpit listens ("" without a server).
func (c *Cockpit) SocketPath() string {
	if c.server == nil {
		return ""
	}
	return c.server.Path()
}

// Subscribe streams the engine's events (ViewUpdated, PaneOpened,
// PaneClosed, Notice) from now on. A new subscriber first gets a
// PaneOpened for every pane already open, then the current view.
func (c *Cockpit) Subscribe() (<-chan any, func()) {
	var initial []any
	for _, p := range c.ListPanes().Panes {
		initial = append(initial, PaneOpened{PaneID: p.PaneID, Title: p.Title, DispatchID: p.DispatchID, Lead: p.Lead})
	}
	initial = append(initial, ViewUpdated{View: c.View()})
	return c.broker.subscribe(initial...)
}

// LeadPane is the id of the lead's pane ("" when there is none).
func (c *Cockpit) LeadPane() string {
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
func (c *Cockpit) View() RunView {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.view
}

// openLead opens the lead's pane; following panes open right after it.
func (c *Cockpit) openLead(following int) error {
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
	_, err := c.open(panes.Config{Argv: c.cfg.Lead, Dir: c.run.Root.Dir(), Env: env}, PaneInfo{Title: "lead", Lead: true}, following)
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

// elsewhereWorker is a dispatch whose wrapper runs outside this cockpit.
type elsewhereWorker struct {
	d   state.Dispatch
	pid int
	log string
}

// runningElsewhere lists the dispatches whose wrapper runs outside this
// cockpit (an earlier cockpit's pane survived, or a cli-wrapper child).
func (c *Cockpit) runningElsewhere(ts *state.TeamState) []elsewhereWorker {
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
func (c *Cockpit) followElsewhere(todo []elsewhereWorker) {
	for i, f := range todo {
		argv := []string{c.cfg.Self, "worker", "tail", "--pid", strconv.Itoa(f.pid), f.log}
		_, _ = c.open(panes.Config{Argv: argv, Dir: c.run.Root.Dir()}, PaneInfo{Title: f.d.ExecutionLabel + " · running elsewhere", DispatchID: f.d.DispatchID}, len(todo)-1-i)
	}
}

// open starts a pane and announces it. following is how many more panes
// the caller opens right after it: the pane starts at the size the screen
// will give it once they are all open (see paneSizeLocked).
func (c *Cockpit) open(cfg panes.Config, info PaneInfo, following int) (*panes.Pane, error) {
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
		return nil, err
	}
	info.PaneID, info.PID = p.ID(), p.Pid()
	c.mu.Lock()
	c.info[p.ID()] = info
	c.mu.Unlock()
	c.broker.publish(PaneOpened{PaneID: info.PaneID, Title: info.Title, DispatchID: info.DispatchID, Lead: info.Lead})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		select {
		case <-p.Done():
			// A worker's exit is what its sidecar reports; look again.
			c.kick()
		case <-c.done:
		}
	}()
	return p, nil
}

// OpenPane serves open-pane: a worker pane running argv.
func (c *Cockpit) OpenPane(p OpenPaneParams) (OpenPaneResult, error) {
	if len(p.Argv) == 0 {
		return OpenPaneResult{}, &RPCError{Code: CodeBadRequest, Message: "open-pane needs argv"}
	}
	dir := p.Dir
	if dir == "" {
		dir = c.run.Root.Dir()
	}
	var env []string
	if len(p.Env) > 0 {
		env = append(os.Environ(), p.Env...)
	}
	pane, err := c.open(panes.Config{Argv: p.Argv, Dir: dir, Env: env}, PaneInfo{Title: p.Title, DispatchID: p.DispatchID}, min(max(p.Following, 0), maxFollowing))
	if err != nil {
		return OpenPaneResult{}, err
	}
	return OpenPaneResult{PaneID: pane.ID(), PID: pane.Pid()}, nil
}

// ClosePanes serves close-panes: it closes the open panes among ids (the
// lead pane is never closed this way) and returns those it closed.
func (c *Cockpit) ClosePanes(p ClosePanesParams) (ClosePanesResult, error) {
	res := ClosePanesResult{Closed: []string{}}
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
	slices.SortFunc(res.Closed, comparePaneIDs)
	return res, nil
}

func comparePaneIDs(a, b string) int {
	na, _ := strconv.Atoi(strings.TrimPrefix(a, "pane-"))
	nb, _ := strconv.Atoi(strings.TrimPrefix(b, "pane-"))
	return na - nb
}

// ClosePane closes one pane: SIGHUP to its process group, then SIGTERM, then
// SIGKILL (the wrapper writes a terminal sidecar on the first).
func (c *Cockpit) ClosePane(id, reason string) error {
	c.mu.Lock()
	_, ok := c.info[id]
	delete(c.info, id)
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s: %w", id, panes.ErrNoPane)
	}
	err := c.mgr.Close(id)
	c.broker.publish(PaneClosed{PaneID: id, Reason: reason})
	c.kick()
	return err
}

// ListPanes serves list-panes.
func (c *Cockpit) ListPanes() ListPanesResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	res := ListPanesResult{Panes: []PaneInfo{}}
	for _, info := range c.info {
		if p, ok := c.mgr.Get(info.PaneID); ok {
			info.Exited = p.Exited()
		}
		res.Panes = append(res.Panes, info)
	}
	slices.SortFunc(res.Panes, func(a, b PaneInfo) int { return comparePaneIDs(a.PaneID, b.PaneID) })
	return res
}

// Gate queues a question for the human and waits for the answer; when ctx
// ends first, the gate is withdrawn.
func (c *Cockpit) Gate(ctx context.Context, p GateParams) (GateResult, error) {
	g := p.Gate
	if g.ID == "" {
		return GateResult{}, &RPCError{Code: CodeBadRequest, Message: "a gate needs an id"}
	}
	if g.Kind != "report-authoring" && len(g.Options) < 2 {
		return GateResult{}, &RPCError{Code: CodeBadRequest, Message: fmt.Sprintf("gate %s offers %d options; a decision needs at least two", g.ID, len(g.Options))}
	}
	if g.OpenedAt.IsZero() {
		g.OpenedAt = time.Now()
	}
	pg := &pendingGate{gate: g, answer: make(chan GateAnswer, 1)}
	c.mu.Lock()
	for _, q := range c.gates {
		if q.gate.ID == g.ID {
			c.mu.Unlock()
			return GateResult{}, &RPCError{Code: CodeBadRequest, Message: fmt.Sprintf("gate %s is already waiting for an answer", g.ID)}
		}
	}
	c.gates = append(c.gates, pg)
	c.mu.Unlock()
	c.broker.publish(Notice{Text: "gate " + g.ID + " is waiting for your answer"})
	c.kick()
	select {
	case a := <-pg.answer:
		return GateResult{Answer: a}, nil
	case <-ctx.Done():
		c.dropGate(g.ID)
		return GateResult{}, &RPCError{Code: CodeCancelled, Message: "the gate was withdrawn"}
	case <-c.done:
		c.dropGate(g.ID)
		return GateResult{}, &RPCError{Code: CodeCancelled, Message: "the cockpit closed before the gate was answered"}
	}
}

func (c *Cockpit) dropGate(id string) *pendingGate {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, q := range c.gates {
		if q.gate.ID == id {
			c.gates = append(c.gates[:i], c.gates[i+1:]...)
			c.kick()
			return q
		}
	}
	return nil
}

// AnswerGate delivers the human's answer to a waiting gate.
func (c *Cockpit) AnswerGate(a GateAnswer) error {
	c.mu.Lock()
	var pg *pendingGate
	for _, q := range c.gates {
		if q.gate.ID == a.GateID {
			pg = q
		}
	}
	c.mu.Unlock()
	if pg == nil {
		return fmt.Errorf("no gate %q is waiting", a.GateID)
	}
	if err := checkAnswer(pg.gate, a); err != nil {
		return err
	}
	if c.dropGate(a.GateID) == nil {
		return fmt.Errorf("gate %s was withdrawn (its asker went away) before the answer arrived", a.GateID)
	}
	pg.answer <- a
	return nil
}

func checkAnswer(g Gate, a GateAnswer) error {
	if g.Kind == "report-authoring" {
		if a.Status != "approved" && a.Status != "denied" {
			return fmt.Errorf("choose approved or denied")
		}
		if strings.TrimSpace(a.Note) == "" {
			return fmt.Errorf("REPORT AUTHORING requires a Reason")
		}
		return nil
	}
	if a.Option < 0 || a.Option >= len(g.Options) {
		return fmt.Errorf("choose one of the %d options", len(g.Options))
	}
	return nil
}

// kick asks the loop to rebuild the view.
func (c *Cockpit) kick() {
	select {
	case c.rebuild <- struct{}{}:
	default:
	}
}

// loop rebuilds the view on file events, pane exits and gate changes.
func (c *Cockpit) loop() {
	defer c.wg.Done()
	for {
		var batch []FileEvent
		full := false
		select {
		case <-c.done:
			return
		case <-c.rebuild:
			full = true
		case batch = <-c.watch.Events():
		case <-c.watch.Errors():
			full = true // events may have been lost: look at everything
		}
		c.refresh(batch, full)
	}
}

// refresh brings the view up to date with what changed. A sidecar event
// settles that sidecar's dispatch only; a team-state change looks at the
// dispatches not seen before; a full refresh (start, pane exit, gate,
// watcher overflow) looks at every pending dispatch. So the work per event
// does not grow with the number of workers.
func (c *Cockpit) refresh(batch []FileEvent, full bool) {
	run := c.run
	changedSidecar := map[string]bool{}
	exited := map[int]bool{}
	ledger, taskManifest := full, full
	for _, ev := range batch {
		switch ev.Kind {
		case EvSidecar:
			changedSidecar[ev.Path] = true
		case EvProcessExit:
			exited[ev.PID] = true
		case EvLedger:
			ledger = true
		case EvOther:
			taskManifest = true
		}
	}
	ts, err := state.ReadTeamState(run.TeamStatePath, run.Manifest.TeamStatePath)
	if err != nil {
		c.setErr(err)
		return
	}
	verdicts := map[string]verdict{}
	for i := range ts.WorkerDispatches {
		d := &ts.WorkerDispatches[i]
		if d.Terminal() || d.StatusPath == "" {
			continue
		}
		sp, err := c.paths.resolve(run, d.StatusPath)
		if err != nil {
			continue
		}
		_, seen := c.seen[d.DispatchID]
		if !full && seen && !changedSidecar[sp] && !exited[d.PID] && !exited[c.seen[d.DispatchID]] {
			continue
		}
		v, err := sidecarVerdictAt(sp, d, c.watch)
		if err != nil {
			continue
		}
		c.seen[d.DispatchID] = v.pid
		if !seen || full {
			_ = c.watch.Watch(sp, EvSidecar)
		}
		for _, pid := range []int{d.PID, v.pid} {
			if pid > 0 {
				c.watch.WatchPID(pid)
			}
		}
		if v.status != "" {
			verdicts[d.DispatchID] = v
		}
	}
	problem := ""
	if len(verdicts) > 0 {
		err := state.UpdateTeamState(run.TeamStatePath, run.Manifest.TeamStatePath, defaultTeamName(run), func(t *state.TeamState) error {
			now := state.Timestamp(state.Now())
			for i := range t.WorkerDispatches {
				d := &t.WorkerDispatches[i]
				if v, ok := verdicts[d.DispatchID]; ok && !d.Terminal() {
					d.Status, d.Reason, d.ExitCode, d.SettledAt = v.status, v.reason, v.exit, now
				}
			}
			ts = &state.TeamState{TeamName: t.TeamName, WorkerDispatches: append([]state.Dispatch(nil), t.WorkerDispatches...)}
			return nil
		})
		if err != nil {
			// Shown in the view, and looked at again on the next event:
			// the settle did not happen.
			problem = err.Error()
			for id := range verdicts {
				delete(c.seen, id)
			}
			// No file event may come to retry it (the sidecar is final), so
			// try again in a second — only after a failure, never as polling.
			time.AfterFunc(time.Second, c.kick)
		}
	}
	c.mu.Lock()
	v := c.view
	c.mu.Unlock()
	v.Err = problem
	v.Title, v.Backend = runTitle(run), run.Manifest.TerminalBackend
	v.Dispatches = ts.WorkerDispatches
	v.BatchKind, v.Batch = currentBatch(ts.WorkerDispatches)
	if ledger {
		if v.Timeline, err = readTimeline(run); err != nil && v.Err == "" {
			v.Err = err.Error()
		}
	}
	if taskManifest {
		np, err := readNextPhase(run)
		v.Next = np
		if err != nil && v.Err == "" {
			v.Err = err.Error()
		}
	}
	c.mu.Lock()
	v.Gates = nil
	for _, g := range c.gates {
		v.Gates = append(v.Gates, g.gate)
	}
	changed := !reflect.DeepEqual(c.view, v)
	c.view = v
	c.mu.Unlock()
	if changed {
		c.broker.publish(ViewUpdated{View: v})
	}
}

// pathCache remembers resolved run-file paths: resolving walks symlinks
// component by component, and the engine looks the same paths up on every
// event.
type pathCache struct {
	mu sync.Mutex
	m  map[string]string
}

func (pc *pathCache) resolve(run *state.Run, rel string) (string, error) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if p, ok := pc.m[rel]; ok {
		return p, nil
	}
	p, err := run.Root.Resolve(rel, "path")
	if err != nil {
		return "", err
	}
	if pc.m == nil {
		pc.m = map[string]string{}
	}
	pc.m[rel] = p
	return p, nil
}

func (c *Cockpit) setErr(err error) {
	c.mu.Lock()
	c.view.Err = err.Error()
	v := c.view
	c.mu.Unlock()
	c.broker.publish(ViewUpdated{View: v})
}

func runTitle(run *state.Run) string {
	m := run.Manifest
	return strings.TrimSpace(fmt.Sprintf("%s %s %s", m.TaskKey, m.TaskType, m.RunSeq))
}

// currentBatch counts the dispatches of the most recent dispatch command:
// the same kind and dispatch time as the last one.
func currentBatch(ds []state.Dispatch) (string, Counts) {
	if len(ds) == 0 {
		return "", Counts{}
	}
	last := ds[len(ds)-1]
	var c Counts
	for i := range ds {
		if ds[i].DispatchKind == last.DispatchKind && ds[i].DispatchedAt == last.DispatchedAt {
			if ds[i].Terminal() {
				c.Done++
			} else {
				c.Pending++
			}
		}
	}
	return last.DispatchKind, c
}

func readTimeline(run *state.Run) ([]TimelineEntry, error) {
	events, err := state.ReadEvents(run.LeadEventsPath, run.Manifest.LeadEventsPath)
	out := make([]TimelineEntry, 0, len(events))
	for _, e := range events {
		at, _ := time.Parse(time.RFC3339, e.At)
		out = append(out, TimelineEntry{At: at, Line: e.ProgressLine})
	}
	return out, err
}

func readNextPhase(run *state.Run) (*state.NextPhase, error) {
	p := run.Manifest.TaskManifestPath
	if p == "" {
		return nil, nil
	}
	abs, err := run.Root.Resolve(p, "taskManifestPath")
	if err != nil {
		return nil, err
	}
	np, err := state.ReadNextPhase(abs, p)
	if err != nil && strings.Contains(err.Error(), "does not exist") {
		return nil, nil
	}
	return np, err
}

// Close closes every pane (workers write their terminal sidecars on the
// SIGHUP), settles the run, stops the server and the watcher.
func (c *Cockpit) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	c.opening.Wait()
	err := c.mgr.CloseAll()
	if c.server != nil {
		c.server.Close()
	}
	close(c.done)
	c.wg.Wait()
	c.watch.Close()
	_, _, serr := Settle(c.run)
	return errors.Join(err, serr)
}

// maxFollowing caps OpenPaneParams.Following: past it the screen shows
// tabs anyway.
const maxFollowing = 1024

// ScreenSize is what the screen tells the engine about itself, so that new
// panes start at the size it will give them.
type ScreenSize struct {
	Cols, Rows   int
	HideTimeline bool // the timeline panel is hidden
}

// SetScreen tells the engine the screen's size (on start and on every
// resize) and whether its timeline is shown. Panes opened from then on
// start at the size the screen's layout gives them.
func (c *Cockpit) SetScreen(s ScreenSize) {
	c.mu.Lock()
	c.screen = s
	c.mu.Unlock()
}

// paneSizeLocked is the content size a new pane gets from the screen's
// layout (panes/layout, as the screen computes it): the panes open now and
// being opened, this one, and the following ones the caller opens right
// after; the lead first, the others in the order they opened, the new one
// after them. Without a known screen size it is the configured fallback.
func (c *Cockpit) paneSizeLocked(lead bool, following int) (cols, rows int) {
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
		if w, h, ok := layout.PaneSize(scr.Cols, scr.Rows, !scr.HideTimeline, in, idx); ok {
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
