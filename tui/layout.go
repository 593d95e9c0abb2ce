package tui

import "github.com/okstra/cockpit/panes/layout"

// The geometry itself lives in panes/layout, shared with the engine, which
// starts each pane's program at the size this screen will give it. This
// file adapts it to the screen's own types.

// rect is a region of the screen in cells. A pane's rect includes its title
// bar (the first row); its content is inner().
type rect struct{ X, Y, W, H int }

func (r rect) inner() rect { return fromLayout(r.toLayout().Inner()) }

func (r rect) contains(x, y int) bool { return r.toLayout().Contains(x, y) }

func (r rect) empty() bool { return r.toLayout().Empty() }

func (r rect) toLayout() layout.Rect { return layout.Rect{X: r.X, Y: r.Y, W: r.W, H: r.H} }

func fromLayout(r layout.Rect) rect { return rect{r.X, r.Y, r.W, r.H} }

// layoutIn is what the layout depends on; equal inputs give equal layouts.
type layoutIn struct {
	area  rect // the pane area of the screen
	n     int  // number of panes, the lead first when lead is set
	lead  bool
	focus int // index of the focused pane
	zoom  bool
}

// layoutOut places the panes: rects[i] belongs to pane i, an empty rect
// means hidden. With tabs set, the tab strip occupies tabRow.
type layoutOut struct {
	rects  []rect
	tabs   bool
	tabRow rect
}

// computeLayout tiles the panes (layout.Compute): one pane fills the area;
// the lead takes the left part and the workers share the right part as a
// grid; zoom shows the focused pane alone; a terminal too small for the
// tiling shows the focused pane and a tab strip naming the others.
func computeLayout(in layoutIn) layoutOut {
	o := layout.Compute(layout.In{Area: in.area.toLayout(), N: in.n, Lead: in.lead, Focus: in.focus, Zoom: in.zoom})
	out := layoutOut{rects: make([]rect, len(o.Rects)), tabs: o.Tabs, tabRow: fromLayout(o.TabRow)}
	for i, r := range o.Rects {
		out.rects[i] = fromLayout(r)
	}
	return out
}

// neighbour returns the index of the visible pane nearest to from in the
// direction (dx, dy), or -1 (layout.Neighbour).
func neighbour(rects []rect, from, dx, dy int) int {
	lr := make([]layout.Rect, len(rects))
	for i, r := range rects {
		lr[i] = r.toLayout()
	}
	return layout.Neighbour(lr, from, dx, dy)
}
