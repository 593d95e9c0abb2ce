package tui

import "github.com/okstra/cockpit/panes/layout"

// The geometry itself lives in panes/layout, shared with the engine, which
// starts each pane's program at the size this screen will give it: the
// screen and the engine compute one layout, never two copies of it.

// rect is a region of the screen in cells. A pane's rect includes its title
// bar (the first row); its content is Inner().
type rect = layout.Rect
