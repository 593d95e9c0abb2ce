package tui

import "math"

// rect is a region of the screen in cells. A pane's rect includes its title
// bar (the first row); its content is inner().
type rect struct{ X, Y, W, H int }

func (r rect) inner() rect { return rect{r.X, r.Y + 1, r.W, max(r.H-1, 0)} }

func (r rect) contains(x, y int) bool {
	return x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

func (r rect) empty() bool { return r.W <= 0 || r.H <= 0 }

// Layout limits. A pane smaller than minPaneW×minPaneH (title bar included)
// is not worth showing; when the tiled layout cannot give every pane that
// much, the screen falls back to the focused pane and a tab strip.
const (
	minPaneW = 16
	minPaneH = 3
	// cellAspect is the width/height ratio (in cells) the grid aims for:
	// a cell is about twice as tall as wide, and log lines are wide.
	cellAspect = 2.5
)

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

// computeLayout tiles the panes: one pane fills the area; the lead takes the
// left part and the workers share the right part as a grid (tmux's
// main-vertical, turning into a grid as workers multiply); zoom shows the
// focused pane alone; a terminal too small for the tiling shows the focused
// pane and a tab strip naming the others.
func computeLayout(in layoutIn) layoutOut {
	out := layoutOut{rects: make([]rect, in.n)}
	if in.n == 0 || in.area.empty() {
		return out
	}
	focus := min(max(in.focus, 0), in.n-1)
	if in.zoom || in.n == 1 {
		out.rects[focus] = in.area
		return out
	}
	if tiled(in, out.rects) {
		return out
	}
	clear(out.rects)
	out.tabs = true
	out.tabRow = rect{in.area.X, in.area.Y, in.area.W, 1}
	out.rects[focus] = rect{in.area.X, in.area.Y + 1, in.area.W, in.area.H - 1}
	return out
}

// tiled fills rects with the tiled layout and reports whether every pane
// got at least the minimum size.
func tiled(in layoutIn, rects []rect) bool {
	a := in.area
	if !in.lead {
		return grid(rects, a)
	}
	workers := in.n - 1
	// The lead gives up width as workers multiply, but keeps enough to be
	// usable; the workers' grid gets the rest after a separator column.
	for _, frac := range leadFractions(workers) {
		leadW := max(int(float64(a.W)*frac), minPaneW)
		rightW := a.W - leadW - 1
		if rightW < minPaneW || a.H < minPaneH {
			continue
		}
		rects[0] = rect{a.X, a.Y, leadW, a.H}
		if grid(rects[1:], rect{a.X + leadW + 1, a.Y, rightW, a.H}) {
			return true
		}
	}
	return false
}

// leadFractions are the lead widths to try, widest first.
func leadFractions(workers int) []float64 {
	switch {
	case workers <= 2:
		return []float64{0.5, 0.4, 0.3}
	case workers <= 6:
		return []float64{0.4, 0.3, 0.25}
	default:
		return []float64{1.0 / 3, 0.25, 0.2}
	}
}

// grid tiles len(rects) panes in area as rows of columns separated by one
// separator column; a short last row stretches its panes to the full width.
// It picks the column count whose cells come closest to cellAspect.
func grid(rects []rect, area rect) bool {
	n := len(rects)
	if n == 0 {
		return true
	}
	best, bestScore := 0, math.Inf(1)
	for c := 1; c <= n; c++ {
		r := (n + c - 1) / c
		cw := (area.W - (c - 1)) / c
		ch := area.H / r
		if cw < minPaneW || ch < minPaneH {
			continue
		}
		score := math.Abs(math.Log(float64(cw) / (float64(ch) * cellAspect)))
		// Empty slots in the last row waste nothing (it stretches), but
		// prefer full grids a little when the shapes are otherwise alike.
		score += 0.05 * float64(c*r-n) / float64(c)
		if score < bestScore {
			best, bestScore = c, score
		}
	}
	if best == 0 {
		return false
	}
	cols := best
	rows := (n + cols - 1) / cols
	heights := split(area.H, rows, 0)
	y := area.Y
	i := 0
	for row := range rows {
		k := min(cols, n-i)
		widths := split(area.W, k, 1)
		x := area.X
		for col := range k {
			rects[i] = rect{x, y, widths[col], heights[row]}
			x += widths[col] + 1
			i++
		}
		y += heights[row]
	}
	return true
}

// split divides total into n parts separated by gap cells, the larger parts
// first, so the parts and gaps add up to total exactly.
func split(total, n, gap int) []int {
	avail := total - gap*(n-1)
	parts := make([]int, n)
	for i := range parts {
		parts[i] = avail / n
		if i < avail%n {
			parts[i]++
		}
	}
	return parts
}

// neighbour returns the index of the visible pane nearest to from in the
// direction (dx, dy), or -1. Panes overlapping from on the other axis win
// over diagonal ones, as in tmux.
func neighbour(rects []rect, from, dx, dy int) int {
	if from < 0 || from >= len(rects) || rects[from].empty() {
		return -1
	}
	f := rects[from]
	best, bestDist, bestOverlap := -1, math.MaxInt, false
	for i, r := range rects {
		if i == from || r.empty() {
			continue
		}
		var dist int
		var overlap bool
		switch {
		case dx > 0:
			dist = r.X - (f.X + f.W)
			overlap = r.Y < f.Y+f.H && f.Y < r.Y+r.H
		case dx < 0:
			dist = f.X - (r.X + r.W)
			overlap = r.Y < f.Y+f.H && f.Y < r.Y+r.H
		case dy > 0:
			dist = r.Y - (f.Y + f.H)
			overlap = r.X < f.X+f.W && f.X < r.X+r.W
		default:
			dist = f.Y - (r.Y + r.H)
			overlap = r.X < f.X+f.W && f.X < r.X+r.W
		}
		if dist < 0 {
			continue
		}
		// Among overlapping panes at the same distance, prefer the one
		// whose start is nearest the focused pane's start.
		skew := abs(r.Y-f.Y) + abs(r.X-f.X)
		d := dist*1000 + skew
		if (overlap && !bestOverlap) || (overlap == bestOverlap && d < bestDist) {
			best, bestDist, bestOverlap = i, d, overlap
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
