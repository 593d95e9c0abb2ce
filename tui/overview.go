package tui

// overviewState is the run overview (prefix w), open over the panes.
type overviewState struct{}

// overviewHint names the overview's keys.
func (a *App) overviewHint() string { return "esc: close" }
