package layout

import "testing"

func TestScreenForPlacesTheParts(t *testing.T) {
	s := ScreenFor(120, 40, true, In{N: 3, Lead: true})
	if s.Header != 0 || s.Status != 39 {
		t.Fatalf("header %d status %d", s.Header, s.Status)
	}
	// 40 rows: header, 38 for panes and timeline (40/6 = 6 rows), status.
	if s.Timeline != (Rect{0, 33, 120, 6}) || s.Area != (Rect{0, 1, 120, 32}) {
		t.Fatalf("timeline %+v area %+v", s.Timeline, s.Area)
	}
	// The lead takes half, the two workers share the right half.
	want := []Rect{{0, 1, 60, 32}, {61, 1, 59, 16}, {61, 17, 59, 16}}
	for i, r := range s.Panes.Rects {
		if r != want[i] {
			t.Fatalf("pane %d: %+v, want %+v", i, r, want[i])
		}
	}
	// Hidden timeline: the panes get its rows.
	if s := ScreenFor(120, 40, false, In{N: 1}); s.Area != (Rect{0, 1, 120, 38}) || !s.Timeline.Empty() {
		t.Fatalf("no timeline: area %+v", s.Area)
	}
	// Too short for a timeline.
	if s := ScreenFor(80, 15, true, In{N: 1}); !s.Timeline.Empty() || s.Area != (Rect{0, 1, 80, 13}) {
		t.Fatalf("short screen: %+v", s)
	}
}

func TestPaneSize(t *testing.T) {
	for _, c := range []struct {
		cols, rows int
		timeline   bool
		in         In
		i          int
		w, h       int
	}{
		{120, 40, true, In{N: 1, Lead: true}, 0, 120, 31},
		{120, 40, true, In{N: 2, Lead: true}, 1, 59, 31},
		{120, 40, true, In{N: 3, Lead: true}, 2, 59, 15},
		{200, 50, false, In{N: 4, Lead: true}, 3, 119, 23}, // the last row stretches
		// Too small to tile: every pane gets the focused pane's size.
		{40, 10, true, In{N: 6, Lead: true}, 4, 40, 6},
	} {
		w, h, ok := PaneSize(c.cols, c.rows, c.timeline, c.in, c.i)
		if !ok || w != c.w || h != c.h {
			t.Errorf("%d×%d %+v pane %d: %d×%d %v, want %d×%d", c.cols, c.rows, c.in, c.i, w, h, ok, c.w, c.h)
		}
	}
	if _, _, ok := PaneSize(0, 0, true, In{N: 1}, 0); ok {
		t.Error("a screen without size gave a pane size")
	}
}
