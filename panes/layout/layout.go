// Package layout is the cockpit screen's pure geometry: where the header,
// the panes, the timeline and the status line go for a terminal size, and
// how the panes tile their area. The screen (tui) draws with it, and the
// engine (runtime) uses it to start each pane's program at the size the
// screen will give that pane, so a full-screen CLI draws its first frame at
// the right width instead of being resized after it.
package layout

import "math"

// Rect is a region of the screen in cells. A pane's rect includes its title
// bar (the first row); its content is Inner().
type Rect struct{ X, Y, W, H int }

// Inner is the pane's content: the rect without its title bar.
func (r Rect) Inner() Rect { return Rect{r.X, r.Y + 1, r.W, max(r.H-1, 0)} }

// Contains reports whether the cell (x, y) lies in r.
func (r Rect) Contains(x, y int) bool {
	return x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

// Empty reports whether r has no cells.
func (r Rect) Empty() bool { return r.W <= 0 || r.H <= 0 }

// Layout limits. A pane smaller than MinPaneW×MinPaneH (title bar included)
// is not worth showing; when the tiled layout cannot give every pane that
// much, the screen falls back to the focused pane and a tab strip.
const (
	MinPaneW = 16
	MinPaneH = 3
	// CellAspect is the width/height ratio (in cells) the grid aims for:
	// a cell is about twice as tall as wide, and log lines are wide.
	CellAspect = 2.5
)

// In is what the pane layout depends on; equal inputs give equal layouts.
type In struct {
	Area  Rect // the pane area of the screen
	N     int  // number of panes, the lead first when Lead is set
	Lead  bool
	Focus int // index of the focused pane
	Zoom  bool
}

// Out places the panes: Rects[i] belongs to pane i, an empty rect means
// hidden. With Tabs set, the tab strip occupies TabRow.
type Out struct {
	Rects  []Rect
	Tabs   bool
	TabRow Rect
}

// Compute tiles the panes: one pane fills the area; the lead takes the
// left part and the workers share the right part as a grid (tmux's
// main-vertical, turning into a grid as workers multiply); zoom shows the
// focused pane alone; a terminal too small for the tiling shows the focused
// pane and a tab strip naming the others.
func Compute(in In) Out {
	out := Out{Rects: make([]Rect, in.N)}
	if in.N == 0 || in.Area.Empty() {
		return out
	}
	focus := min(max(in.Focus, 0), in.N-1)
	if in.Zoom || in.N == 1 {
		out.Rects[focus] = in.Area
		return out
	}
	if tiled(in, out.Rects) {
		return out
	}
	clear(out.Rects)
	out.Tabs = true
	out.TabRow = Rect{in.Area.X, in.Area.Y, in.Area.W, 1}
	out.Rects[focus] = Rect{in.Area.X, in.Area.Y + 1, in.Area.W, in.Area.H - 1}
	return out
}

// tiled fills rects with the tiled layout and reports whether every pane
// got at least the minimum size.
func tiled(in In, rects []Rect) bool {
	a := in.Area
	if !in.Lead {
		return grid(rects, a)
	}
	workers := in.N - 1
	// The lead gives up width as workers multiply, but keeps enough to be
	// usable; the workers' grid gets the rest after a separator column.
	for _, frac := range leadFractions(workers) {
		leadW := max(int(float64(a.W)*frac), MinPaneW)
		rightW := a.W - leadW - 1
		if rightW < MinPaneW || a.H < MinPaneH {
			continue
		}
		rects[0] = Rect{a.X, a.Y, leadW, a.H}
		if grid(rects[1:], Rect{a.X + leadW + 1, a.Y, rightW, a.H}) {
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
// It picks the column count whose cells come closest to CellAspect.
func grid(rects []Rect, area Rect) bool {
	n := len(rects)
	if n == 0 {
		return true
	}
	best, bestScore := 0, math.Inf(1)
	for c := 1; c <= n; c++ {
		r := (n + c - 1) / c
		cw := (area.W - (c - 1)) / c
		ch := area.H / r
		if cw < MinPaneW || ch < MinPaneH {
			continue
		}
		score := math.Abs(math.Log(float64(cw) / (float64(ch) * CellAspect)))
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
	heights := Split(area.H, rows, 0)
	y := area.Y
	i := 0
	for row := range rows {
		k := min(cols, n-i)
		widths := Split(area.W, k, 1)
		x := area.X
		for col := range k {
			rects[i] = Rect{x, y, widths[col], heights[row]}
			x += widths[col] + 1
			i++
		}
		y += heights[row]
	}
	return true
}

// Split divides total into n parts separated by gap cells, the larger parts
// first, so the parts and gaps add up to total exactly.
func Split(total, n, gap int) []int {
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

// Neighbour returns the index of the visible pane nearest to from in the
// direction (dx, dy), or -1. Panes overlapping from on the other axis win
// over diagonal ones, as in tmux.
func Neighbour(rects []Rect, from, dx, dy int) int {
	if from < 0 || from >= len(rects) || rects[from].Empty() {
		return -1
	}
	f := rects[from]
	best, bestDist, bestOverlap := -1, math.MaxInt, false
	for i, r := range rects {
		if i == from || r.Empty() {
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
