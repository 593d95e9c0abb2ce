package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/runtime/view"
)

// EngineEvents are engine events (view.ViewUpdated, view.PaneOpened,
// view.PaneClosed, view.Notice; others are ignored) delivered in one
// message: the App applies them in order in one Update, so the screen is
// drawn once for the lot instead of once per event. An attached screen's
// opening burst — a PaneOpened per pane and the view — comes this way
// (tui/host, engine.SubscribeBatches).
type EngineEvents []any

func (a *App) onEngineEvents(evs EngineEvents) tea.Cmd {
	var cmds []tea.Cmd
	for _, ev := range evs {
		switch ev := ev.(type) {
		case view.ViewUpdated:
			cmds = append(cmds, a.onRunView(ev.View))
		case view.PaneOpened:
			a.onPaneOpened(ev)
		case view.PaneClosed:
			a.onPaneClosed(ev.PaneID, ev.Reason)
		case view.Notice:
			a.onNotice(ev)
		}
	}
	return tea.Batch(cmds...)
}
