package tui

import (
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/runtime/view"
)

// The screen's parts (docs/SCREEN.md, "Where things are"): the root model
// (App) routes messages, owns the layout, the panes and the engine's run
// view, and holds a stack of overlays. Each overlay (the gate dialog, the
// run overview, the result view, help, a confirmation, the search prompt)
// is its own type with its own state, keys (from KeyMap) and drawing: it
// takes the keyboard and the mouse while it is on top, and tells the root
// what to do with an action, as crush's dialogs do. The root never reads
// an overlay's keys; an overlay never changes the root's state.

// screenEnv is what every part of the screen reads and none of them
// changes: the key map, the styles, the clock, the size, the run view and
// the screen's kind. The root owns it (App embeds it) and keeps it current;
// an overlay holds a pointer to it (soft-serve's common.Common).
type screenEnv struct {
	keys   KeyMap
	st     Styles
	memo   drawMemo // the chrome's styled strings and widths (memo.go)
	glyphs [stateNotRun + 1]styledGlyph
	attn   string
	now    func() time.Time

	width, height int
	// areaTop and areaBottom are the rows between the header and the
	// status line (what the overview covers); statusRow is the status
	// line's row, -1 when the terminal is too short for one.
	areaTop, areaBottom, statusRow int

	run     view.RunView
	haveRun bool

	attached bool
	readOnly bool

	// paneNumber is the number (1-9 focus key) of the pane showing
	// dispatch id on this screen, live or its log; 0 when none. The root
	// sets it.
	paneNumber func(dispatchID string) int
	// resolve turns a path of the run's files into one to read.
	resolve func(rel string) (string, error)
}

// overlay is a dialog or view over the panes.
type overlay interface {
	// HandleMsg takes a key press, a mouse event or a paste while the
	// overlay is on top, and every other message the root does not
	// handle itself (the overlay's own command results, envChanged);
	// it says what the root should do.
	HandleMsg(msg tea.Msg) action
	// Draw draws the overlay over the screen's rows.
	Draw(rows []string)
}

// Optional sides of an overlay.
type (
	// hinter names the keys the status line pins while the overlay is on
	// top, and the mode badge it shows.
	hinter interface {
		Hint() string
		Badge() string
	}
	// statusTaker draws the whole status line (a question, the search
	// prompt) while on top.
	statusTaker interface{ StatusLine(w int) string }
)

// envChanged tells the overlays the run view or the size changed.
type envChanged struct{}

// action is what an overlay asks of the root. nil: nothing (the message
// was the overlay's).
type action any

type (
	// actions are several, in order.
	actions []action
	// actClose removes the overlay that returned it.
	actClose struct{}
	// actCmd runs a command.
	actCmd struct{ cmd tea.Cmd }
	// actPush opens another overlay on top.
	actPush struct{ o overlay }
	// actNotice shows a notice on the status line.
	actNotice struct{ text string }
	// actRefuse says a read-only screen cannot do what.
	actRefuse struct{ what string }
	// actDetach detaches this screen (an attached one).
	actDetach struct{}
	// actQuit quits a standalone screen (Actions.Quit).
	actQuit struct{}
	// actEndRun ends the run (Actions.EndRun).
	actEndRun struct{}
	// actClosePane closes a worker pane (Actions.ClosePane).
	actClosePane struct{ id string }
	// actAnswer sends a gate's answer to the engine (Actions.AnswerGate).
	actAnswer struct{ ans view.GateAnswer }
	// actOpenDispatch focuses dispatch i's pane, or opens its log pane.
	actOpenDispatch struct{ i int }
	// actQuietMouse drops the rest of a click (its release, a double
	// click's second click) that closed an overlay.
	actQuietMouse struct{}
	// actSearch searches the scrolled pane.
	actSearch struct {
		query    string
		backward bool
	}
)

// top is the overlay on top, or nil.
func (a *App) top() overlay {
	if n := len(a.overlays); n > 0 {
		return a.overlays[n-1]
	}
	return nil
}

// push opens o on top.
func (a *App) push(o overlay) tea.Cmd {
	a.overlays = append(a.overlays, o)
	if in, ok := o.(interface{ Init() tea.Cmd }); ok {
		return in.Init()
	}
	return nil
}

// remove closes o (wherever it is in the stack).
func (a *App) remove(o overlay) {
	a.overlays = slices.DeleteFunc(a.overlays, func(x overlay) bool { return x == o })
}

// closeOverlays closes every overlay (the prefix's commands act on the
// screen under them).
func (a *App) closeOverlays() { a.overlays = nil }

// overlayOf is the topmost overlay of type T, or the zero T.
func overlayOf[T overlay](a *App) T {
	for i := len(a.overlays) - 1; i >= 0; i-- {
		if o, ok := a.overlays[i].(T); ok {
			return o
		}
	}
	var zero T
	return zero
}

// toOverlays hands msg to the top overlay, and what the root does not
// handle to every overlay.
func (a *App) toTop(msg tea.Msg) tea.Cmd {
	o := a.top()
	return a.perform(o, o.HandleMsg(msg))
}

// toOverlays offers msg to every overlay, top first.
func (a *App) toOverlays(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, o := range slices.Clone(a.overlays) {
		if slices.Contains(a.overlays, o) {
			cmds = append(cmds, a.perform(o, o.HandleMsg(msg)))
		}
	}
	return tea.Batch(cmds...)
}

// perform does what overlay o asked.
func (a *App) perform(o overlay, act action) tea.Cmd {
	switch act := act.(type) {
	case nil:
	case actions:
		var cmds []tea.Cmd
		for _, x := range act {
			cmds = append(cmds, a.perform(o, x))
		}
		return tea.Batch(cmds...)
	case actClose:
		a.remove(o)
	case actCmd:
		return act.cmd
	case actPush:
		return a.push(act.o)
	case actNotice:
		a.notice = act.text
	case actRefuse:
		a.refuse(act.what)
	case actDetach:
		return a.detach()
	case actQuit:
		return a.cmdQuit()
	case actEndRun:
		return a.endRun()
	case actClosePane:
		a.notice = "closing " + act.id
		return a.cmdClosePane(act.id)
	case actAnswer:
		return a.cmdAnswerGate(act.ans)
	case actOpenDispatch:
		a.remove(o)
		return a.openDispatch(act.i)
	case actSearch:
		return a.startSearch(act.query, act.backward)
	case actQuietMouse:
		a.mouseQuiet = time.Now().Add(doubleClick)
	}
	return nil
}
