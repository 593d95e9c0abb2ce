package tui

import (
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// The engine opens each new pane at the size this screen's layout gives it,
// so the screen tells it its size and timeline, once per change.
func TestScreenTellsTheEngineItsSize(t *testing.T) {
	var told []ScreenSize
	hs := newHarness(t, 120, 40, func(c *Config) {
		c.Actions.Screen = func(s ScreenSize) { told = append(told, s) }
	})
	hs.send(tea.WindowSizeMsg{Width: 120, Height: 40}) // no change: nothing told
	hs.send(tea.WindowSizeMsg{Width: 90, Height: 30})
	hs.key("t") // hide the timeline
	hs.key("t") // and show it again
	want := []ScreenSize{
		{Cols: 120, Rows: 40, Timeline: true},
		{Cols: 90, Rows: 30, Timeline: true},
		{Cols: 90, Rows: 30, Timeline: false},
		{Cols: 90, Rows: 30, Timeline: true},
	}
	if !slices.Equal(told, want) {
		t.Fatalf("the engine was told %+v, want %+v", told, want)
	}
}
