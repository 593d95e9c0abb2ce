package layout

// Screen limits.
const (
	// MinTimelineHeight is the terminal height below which the timeline is
	// hidden whatever its toggle says: the panes need the rows more.
	MinTimelineHeight = 16
	MaxTimelineRows   = 10
	MinTimelineRows   = 3
)

// Screen is where each part of the screen goes for a terminal size.
type Screen struct {
	Header   int  // row of the header; -1 when the terminal is too short
	Status   int  // row of the status line; -1 when too short
	Area     Rect // the pane area
	Timeline Rect // empty when hidden
	Panes    Out  // the panes in Area
}

// ScreenFor lays out a cols×rows terminal: the header on the first row (4
// rows or more), the status line on the last (2 rows or more), the
// timeline above the status line when shown and the terminal is at least
// MinTimelineHeight rows (a sixth of it, 3 to 10 rows), and the panes in
// the rest. When the panes cannot be tiled with the timeline shown, they
// get its rows too. panes.Area is ignored: it is the pane area.
func ScreenFor(cols, rows int, timeline bool, panes In) Screen {
	s := Screen{Header: -1, Status: -1}
	if cols <= 0 || rows <= 0 {
		panes.Area = Rect{}
		s.Panes = Compute(panes)
		return s
	}
	top, bottom := 0, rows
	if rows >= 2 {
		s.Status, bottom = rows-1, rows-1
	}
	if rows >= 4 {
		s.Header, top = 0, 1
	}
	full := Rect{0, top, cols, bottom - top}
	s.Area = full
	if timeline && rows >= MinTimelineHeight {
		th := min(max(rows/6, MinTimelineRows), MaxTimelineRows)
		s.Timeline = Rect{0, bottom - th, cols, th}
		s.Area.H -= th
	}
	panes.Area = s.Area
	s.Panes = Compute(panes)
	if s.Panes.Tabs && !s.Timeline.Empty() {
		s.Timeline, s.Area = Rect{}, full
		panes.Area = full
		s.Panes = Compute(panes)
	}
	return s
}

// PaneSize is the content size (columns, rows) pane i of the set gets on a
// cols×rows screen: its rect without the title bar. A pane the layout hides
// (another is zoomed, or the terminal is too small to tile and another has
// the focus) gets the size it will have when shown: the focused pane's.
// ok is false when the screen has no room for any pane.
func PaneSize(cols, rows int, timeline bool, panes In, i int) (w, h int, ok bool) {
	s := ScreenFor(cols, rows, timeline, panes)
	if i < 0 || i >= len(s.Panes.Rects) {
		return 0, 0, false
	}
	r := s.Panes.Rects[i]
	if r.Empty() {
		for _, other := range s.Panes.Rects {
			if !other.Empty() {
				r = other
				break
			}
		}
	}
	in := r.Inner()
	if in.Empty() {
		return 0, 0, false
	}
	return in.W, in.H, true
}
