package tui

import (
	"context"
	"os"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/panes/term"
	"github.com/okstra/cockpit/runtime/view"
)

// resizeDelay is how long the layout must stay unchanged before the panes
// are resized to it.
const resizeDelay = 40 * time.Millisecond

// DefaultFrame is the default frame interval: the screen redraws panes at
// most this often (about 60 frames a second), however fast they change.
const DefaultFrame = 16 * time.Millisecond

// Actions are what the screen asks of the engine. Every field is optional.
// The screen calls them only from commands, never inside Update, so they may
// block (closing a pane can take the close grace periods).
type Actions struct {
	// ClosePane closes a worker pane the human chose to close. The engine
	// answers with view.PaneClosed once it is gone. When nil, the screen
	// closes the pane through the Manager itself.
	ClosePane func(id string)
	// Quit tells the engine the human quit the screen; the program then
	// ends. The owner closes the panes after Program.Run returns. Only a
	// standalone screen quits; an attached one detaches or ends the run.
	Quit func()
	// EndRun ends the run from an attached screen (Config.Attached): the
	// human chose "end the run" in the q dialog. It may block until the
	// panes are closed; the screen then ends its session with
	// attach.ReasonRunEnded. When nil, the dialog says to use cockpit stop.
	EndRun func()
	// AnswerGate delivers the human's answer from the gate dialog; an error
	// (the engine refusing the answer) is shown in the dialog.
	AnswerGate func(view.GateAnswer) error
	// RespawnLead starts the lead's command again in its pane once it has
	// exited (enter on the dead lead pane; tmux's respawn-pane). When nil,
	// the dead pane only says how it ended.
	RespawnLead func() error
	// Screen tells the engine the screen's size and whether the timeline
	// shows, on start and on every change, so panes it opens start at the
	// size the layout (panes/layout) gives them. With several screens
	// (Config.Sizes), only the one active last tells, and again whenever a
	// screen becomes the latest.
	Screen func(ScreenSize)
}

// ScreenSize is what Actions.Screen reports.
type ScreenSize struct {
	Cols, Rows int
	Timeline   bool // the timeline panel is shown
}

// Config is what New needs.
type Config struct {
	// Manager owns the panes the screen shows. Required.
	Manager *panes.Manager
	Actions Actions
	// Prefix is the key that leaves a pane back to navigation mode, in
	// bubbletea's spelling ("ctrl+b", "ctrl+a"); empty means DefaultPrefix.
	Prefix string
	// Now is the clock for elapsed times; nil means time.Now. Tests fix it.
	Now func() time.Time
	// NoColor turns every colour off (see NoColorFromEnv); glyphs and
	// attributes still carry the meaning.
	NoColor bool
	// Frame is the minimum interval between two redraws caused by pane
	// output; zero means DefaultFrame.
	Frame time.Duration
	// LeadPane names the lead's pane when it was opened before the program
	// started and no view.PaneOpened will say so.
	LeadPane string
	// HideTimeline starts with the timeline panel hidden.
	HideTimeline bool
	// Context ends the frame loop when done; the loop also ends when the
	// human quits or Stop is called. Nil means context.Background.
	Context context.Context

	// Attached says the screen is one of an engine's attached screens
	// (served by tui/attach): prefix d detaches (the session ends with
	// attach.ReasonDetached; nothing is closed, Actions.Quit is not called)
	// and q asks "detach, or end the run?". A standalone screen (false:
	// cockpit open in one process, tests, tools) quits with q as before,
	// and prefix d only says there is nothing to detach from.
	Attached bool
	// ReadOnly makes a screen that watches: focus, zoom, scroll, the
	// timeline, help and detach work; typing into a pane, pasting, closing
	// a pane, answering a gate and ending the run (or quitting a standalone
	// screen) are refused with a notice.
	ReadOnly bool
	// Sizes is shared by every screen on the same Manager: the panes take
	// the size of the screen active last (see SizeArbiter). Nil: this
	// screen alone sizes the panes.
	Sizes *SizeArbiter
	// Restore is the view a previous screen left (App.ViewState when it
	// detached): focus, zoom, timeline and input mode come back as they
	// were. It overrides HideTimeline.
	Restore *ViewState
	// TypeIntoLead starts the screen typing into the lead's pane, so the
	// first key reaches the lead (Restore, ReadOnly and ScriptedLead win
	// over it).
	TypeIntoLead bool
	// ScriptedLead says the lead's pane runs a script the human watches
	// rather than an agent they type to (the demo's lead): the screen
	// starts in navigation, so the keys the script lists are the screen's
	// from the first one.
	ScriptedLead bool
	// Alerts says which alerts (a gate, a failed worker, a settled batch,
	// a pane's bell) reach the outer terminal as a bell and a desktop
	// notification (alerts.go); nil means DefaultAlerts. The status line
	// and the pane's flag show every alert anyway.
	Alerts *Alerts
	// ProjectRoot is the run's project root: the run overview reads the
	// workers' logs and result files (paths relative to it) from there.
	// Empty: only absolute paths are read.
	ProjectRoot string
}

// RendererFPS caps the screen's frames a second: bubbletea's default. The
// renderer draws only when something changed (third_party/bubbletea), so
// the cap costs nothing on a quiet screen; on a busy one it bounds the
// bytes a client gets, and 60 leaves a busy screen headroom above 30
// frames a second (docs/DECISIONS.md #40).
const RendererFPS = 60

// ProgramOptions are the bubbletea options to run the App with, e.g.
// tea.NewProgram(app, tui.ProgramOptions()...).
func ProgramOptions() []tea.ProgramOption {
	return []tea.ProgramOption{tea.WithFPS(RendererFPS)}
}

// NoColorFromEnv reports whether the NO_COLOR convention asks for no
// colour: the variable is set and not empty (https://no-color.org).
func NoColorFromEnv() bool { return os.Getenv("NO_COLOR") != "" }

// mode is the screen's input mode.
type mode uint8

const (
	modeNav    mode = iota // keys drive the screen
	modeInput              // keys go to the focused pane
	modeScroll             // keys scroll the focused pane's history
)

func (m mode) String() string {
	switch m {
	case modeInput:
		return "INPUT"
	case modeScroll:
		return "SCROLL"
	default:
		return "NAV"
	}
}

// App is the root model of the cockpit's screen. It is a tea.Model; run it
// with tea.NewProgram(app) and feed it the engine's messages with
// Program.Send.
type App struct {
	// screenEnv is what the parts read (overlay.go): the key map, styles,
	// clock, size, run view and the screen's kind.
	screenEnv

	mgr     *panes.Manager
	sub     *dirtySub // this screen's share of the Manager's changes (dirty.go), from Init
	actions Actions
	sizes   *SizeArbiter
	// restore is Config.Restore until its pane shows up (or is known gone);
	// published is the last ViewState, for ViewState from any goroutine.
	restore   *ViewState
	published atomic.Pointer[ViewState]
	ending    bool // the run is being ended from this screen
	// startTyping: Config.TypeIntoLead, until the lead's pane shows up.
	startTyping bool
	// scriptedLead: Config.ScriptedLead; the lead's pane takes no typing.
	scriptedLead bool
	// detachTyping: detached by the prefix while typing into the pane.
	detachTyping bool
	frame        time.Duration
	ctx          context.Context
	cancel       context.CancelFunc

	toldScreen ScreenSize // what Actions.Screen last reported

	leadPane string

	panes  []*paneView // display order: the lead first, then open order
	byID   map[string]*paneView
	closed map[string]bool // ids closed for good; late frames for them are dropped

	focus int
	mode  mode
	// prefixed: the prefix was pressed; the next key is a screen command
	// (one-shot, as tmux's prefix), after which the mode is what it was.
	prefixed bool
	// mouseGrab is the pane that got a button press: its drag and release
	// go to it even outside its cells, as in xterm, until the release.
	mouseGrab string
	// mouseQuiet drops the rest of a click that closed an overlay (its
	// release, the second click of a double click), until then.
	mouseQuiet   time.Time
	zoom         bool
	showTimeline bool
	// overlays is the stack of dialogs and views over the panes, the top
	// one last (overlay.go).
	overlays []overlay
	// notice is the status line's message; noticeAt when it was set, for
	// how long it shows (status.go).
	notice, noticeSeen string
	noticeAt           time.Time
	projectRoot        string              // Config.ProjectRoot
	logSeq             int                 // numbers the log panes ("log-1", ...)
	lastScreens        map[string][]string // closed worker panes' last screens, by dispatch (logpane.go)
	gatesSeen          map[string]bool     // gates already opened or announced once
	// alerts: Config.Alerts; pendingAlerts wait for cmdAlerts;
	// paneAlerted is when each pane's bell last reached the terminal.
	alerts        Alerts
	pendingAlerts []alert
	paneAlerted   map[string]time.Time

	geo    geometry
	scroll scrollState
	msel   mouseSel // a left-button press that may become a selection (selection.go)

	// layoutGen numbers relayouts; resizeArmed is the one a resize timer
	// waits on; resizeDelay is the debounce (0: resize at once).
	layoutGen   int
	resizeArmed int
	resizeDelay time.Duration

	snaps   *snapper // nil without a Manager
	ops     []paneOp // pane I/O waiting for the op command, in order
	opsBusy bool
	typed   bool // the key being handled went straight to its pane (typeInto)

	// manual is set by tests that drive frames and ticks themselves.
	manual  bool
	ticking bool // an elapsed-time tick is in flight

	view      string
	cursor    *tea.Cursor
	viewValid bool
	// drawSized: this screen sizes the panes, as of the drawing under way
	// (sizesPanes, asked once a drawing: it takes the arbiter's lock).
	drawSized bool
}

// New returns the screen's root model.
func New(cfg Config) *App {
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithCancel(ctx)
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	frame := cfg.Frame
	if frame <= 0 {
		frame = DefaultFrame
	}
	a := &App{
		screenEnv: screenEnv{
			keys:     NewKeyMap(cfg.Prefix),
			st:       NewStyles(DefaultPalette(), cfg.NoColor),
			now:      now,
			attached: cfg.Attached,
			readOnly: cfg.ReadOnly,
		},
		mgr:          cfg.Manager,
		actions:      cfg.Actions,
		frame:        frame,
		ctx:          ctx,
		cancel:       cancel,
		leadPane:     cfg.LeadPane,
		byID:         make(map[string]*paneView),
		closed:       make(map[string]bool),
		gatesSeen:    make(map[string]bool),
		showTimeline: !cfg.HideTimeline,
		resizeDelay:  resizeDelay,
		sizes:        cfg.Sizes,
		projectRoot:  cfg.ProjectRoot,
		alerts:       DefaultAlerts(),
		paneAlerted:  make(map[string]time.Time),
	}
	if cfg.Alerts != nil {
		a.alerts = *cfg.Alerts
	}
	a.startTyping = cfg.TypeIntoLead && !cfg.ScriptedLead && !cfg.ReadOnly && cfg.Restore == nil
	a.scriptedLead = cfg.ScriptedLead
	if r := cfg.Restore; r != nil {
		a.showTimeline = !r.HideTimeline
		if r.Focus != "" {
			rs := *r
			a.restore = &rs
		}
	}
	if a.sizes != nil {
		a.sizes.join(a)
		context.AfterFunc(ctx, func() { a.sizes.leave(a) })
	}
	a.glyphs, a.attn = styleGlyphs(a.st)
	a.paneNumber = a.paneNumberOf
	a.resolve = a.resolvePath
	if cfg.Manager != nil {
		a.snaps = newSnapper(cfg.Manager, frame)
	}
	return a
}

// Stop ends the frame loop. The owner calls it when it ends the program by
// other means than the human quitting (Program.Quit, Kill); it is safe to
// call more than once and from any goroutine.
func (a *App) Stop() { a.cancel() }

// Init starts the frame loop and takes a first snapshot of every pane the
// Manager already holds.
func (a *App) Init() tea.Cmd {
	if a.mgr != nil && a.sub == nil {
		a.sub = subscribeDirty(a.mgr)
		a.snaps.sub = a.sub
		context.AfterFunc(a.ctx, a.sub.close)
	}
	var cmds []tea.Cmd
	if sync := a.cmdSyncPanes(); sync != nil {
		// The first snapshots are applied now, not from a command: the
		// first view drawn shows the panes' contents. An attaching screen
		// otherwise drew its panes empty and their contents a frame
		// interval later (docs/PERFORMANCE.md, "Attached screens: attach,
		// throughput, idle").
		cmds = append(cmds, a.onFrames(sync().(framesMsg)))
	}
	if !a.manual && a.snaps != nil {
		cmds = append(cmds, a.cmdWaitFrame())
	}
	if !a.manual {
		cmds = append(cmds, a.cmdWatchLatest())
	}
	a.publish()
	return tea.Batch(cmds...)
}

// Update handles one message. It does no blocking I/O: a typed key or a
// paste goes to its pane at once (typeInto: a pane's input never blocks);
// other pane input, resizes, snapshots and engine actions run in commands.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg.(type) {
	case tea.WindowSizeMsg, tea.KeyPressMsg, tea.MouseMsg, tea.PasteMsg:
		// Any input or resize makes this the screen active last, which
		// sizes the panes (SizeArbiter).
		a.active()
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.width, a.height = msg.Width, msg.Height
		a.relayout()
		cmd = a.toOverlays(envChanged{})
	case framesMsg:
		cmd = a.onFrames(msg)
	case frameStoppedMsg:
		// The frame loop ended (the Manager is closing): nothing to do.
	case view.ViewUpdated:
		cmd = a.onRunView(msg.View)
	case view.PaneOpened:
		a.onPaneOpened(msg)
	case view.PaneClosed:
		a.onPaneClosed(msg.PaneID, msg.Reason)
	case view.Notice:
		a.onNotice(msg)
	case EngineEvents:
		cmd = a.onEngineEvents(msg)
	case PaneCost:
		if pv := a.byID[msg.PaneID]; pv != nil {
			pv.cost, pv.costKnown = msg.USD, true
		}
	case tea.KeyPressMsg:
		before := a.keyState()
		a.typed = false
		cmd = a.onKey(msg)
		if a.typed && cmd == nil && a.keyState() == before {
			// Typed into the focused pane and nothing else changed: the
			// screen is the same until the pane's echo arrives as a frame,
			// so the view drawn before still stands (one view a key, not
			// two; docs/PERFORMANCE.md, "Keystroke echo against tmux").
			a.publish()
			return a, a.after(nil)
		}
	case tea.PasteMsg:
		cmd = a.onPaste(msg)
	case tea.MouseMsg:
		cmd = a.onMouse(msg)
	case opsDoneMsg:
		a.opsBusy = false
		if msg.err != nil {
			a.notice = msg.err.Error()
		}
	case scrollLinesMsg:
		a.onScrollLines(msg)
	case searchDoneMsg:
		cmd = a.onSearchDone(msg)
	case copiedMsg:
		cmd = a.onCopied(msg)
	case gateAnsweredMsg:
		a.onGateAnswered(msg)
		cmd = a.toOverlays(msg)
	case respawnedMsg:
		a.onRespawned(msg)
	case closeFailedMsg:
		a.notice = msg.err.Error()
	case tickMsg:
		a.ticking = false
	case noticeTickMsg:
		// Redraw: the notice's time is up.
	case resizeMsg:
		a.onResizeTimer(msg)
	case latestMsg:
		cmd = a.onLatest()
	case logReplayedMsg:
		a.onLogReplayed(msg)
	case resultMsg:
		cmd = a.toOverlays(msg)
	default:
		return a, nil
	}
	a.viewValid = false
	a.publish()
	return a, a.after(cmd)
}

// after is what every Update ends with: cmd and the commands that follow
// any change (alerts, a pending resize, the queued pane ops, the clock,
// the screen's notices and logs).
func (a *App) after(cmd tea.Cmd) tea.Cmd {
	return tea.Batch(cmd, a.cmdAlerts(), a.cmdResizeLater(), a.cmdApplyOps(), a.cmdTickIfNeeded(), a.cmdTellScreen(), a.cmdLogs(), a.cmdNotice())
}

// keyState is what a key can change on the screen besides the pane it
// types into; Update compares it around a typed key.
type keyState struct {
	mode                      mode
	prefixed, startTyping     bool
	focus, layoutGen, nOverly int
	notice                    string
}

func (a *App) keyState() keyState {
	return keyState{mode: a.mode, prefixed: a.prefixed, startTyping: a.startTyping, focus: a.focus, layoutGen: a.layoutGen, nOverly: len(a.overlays), notice: a.notice}
}

// cmdTellScreen tells the engine (Actions.Screen) the screen's size and
// whether its timeline shows, once per change, so the panes it opens next
// start at the size this screen's layout will give them. Of several
// screens, only the latest tells (SizeArbiter), again when it becomes so.
func (a *App) cmdTellScreen() tea.Cmd {
	tell := a.actions.Screen
	s := ScreenSize{Cols: a.width, Rows: a.height, Timeline: a.showTimeline}
	if tell == nil || s.Cols <= 0 || s.Rows <= 0 || s == a.toldScreen || !a.sizesPanes() {
		return nil
	}
	a.toldScreen = s
	return func() tea.Msg {
		tell(s)
		return nil
	}
}

// View draws the screen. The drawing is cached: a View without an Update in
// between returns the same frame without drawing again.
func (a *App) View() tea.View {
	if !a.viewValid {
		a.view, a.cursor = a.render()
		a.viewValid = true
	}
	v := tea.NewView(a.view)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	if a.mode == modeInput {
		if pv := a.focused(); pv != nil && pv.snap.Modes.Mouse == term.MouseAny {
			// The program tracks all motion (1003); so must we.
			v.MouseMode = tea.MouseModeAllMotion
		}
	}
	v.Cursor = a.cursor
	v.WindowTitle = "cockpit"
	if a.run.Title != "" {
		v.WindowTitle = "cockpit — " + a.run.Title
	}
	return v
}

// focused returns the focused pane, or nil when there is none.
func (a *App) focused() *paneView {
	if a.focus < 0 || a.focus >= len(a.panes) {
		return nil
	}
	return a.panes[a.focus]
}

// onNotice shows an engine notice; one about a pane also flags the pane.
func (a *App) onNotice(n view.Notice) {
	a.notice = n.Text
	if pv := a.byID[n.PaneID]; pv != nil {
		a.notice = pv.label() + ": " + n.Text
		if pv != a.focused() {
			pv.attention = true
		}
	}
}
