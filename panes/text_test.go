package panes

import (
	"slices"
	"testing"

	"github.com/okstra/cockpit/panes/refvt"
	"github.com/okstra/cockpit/panes/term"
)

// TestViewSearchText: a pane's view numbers its lines as Search and Text
// do, on the cockpit's emulator and, line by line, on x/vt (no Finder).
func TestViewSearchText(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	for _, c := range []struct {
		name string
		emu  func(cols, rows int) term.Emulator
	}{{"vt", nil}, {"refvt", refvt.New}} {
		t.Run(c.name, func(t *testing.T) {
			m := NewManager()
			p := openHelper(t, m, Config{Cols: 40, Rows: 5, NewEmulator: c.emu}, "flood", "30")
			// The whole flood, not a part of it: the views below count
			// back from its end.
			waitDone(t, p)
			v := p.View(0, 5, false)
			if len(v.Lines) != 5 || v.End != v.First+5 || v.End != int(v.ScrollbackDropped)+v.ScrollbackLen+5 {
				t.Fatalf("view %+v", v)
			}
			// Line n of the flood ("line n") is text line n; "done" and the
			// cursor's empty row end it.
			up := p.View(10, 3, false)
			if want := []string{"line 19", "line 20", "line 21"}; !slices.Equal(up.Lines, want) || up.First != 19 || up.End != 32 {
				t.Fatalf("View(10, 3) = %+v, want lines 19-21 of 32", up)
			}
			got := p.Search("LINE 2")
			if len(got) != 0 {
				t.Fatalf("exact case found %v", got)
			}
			got = p.Search("line 2")
			want := []term.Match{{Start: term.Pos{Line: 2, Col: 0}, End: term.Pos{Line: 2, Col: 6}}}
			for i := 20; i < 30; i++ {
				want = append(want, term.Match{Start: term.Pos{Line: i, Col: 0}, End: term.Pos{Line: i, Col: 6}})
			}
			if !slices.Equal(got, want) {
				t.Fatalf("Search = %v, want %v", got, want)
			}
			if txt := p.Text(term.Pos{Line: 21, Col: 5}, term.Pos{Line: 23, Col: 4}, false); txt != "21\nline 22\nline" {
				t.Fatalf("Text = %q", txt)
			}
			if txt := p.Text(term.Pos{Line: 21, Col: 5}, term.Pos{Line: 22, Col: 0}, true); txt != "line 21\nline 22" {
				t.Fatalf("Text of lines = %q", txt)
			}
			_ = p.Close()
			if p.View(0, 5, false).Lines != nil || p.Search("line") != nil || p.Text(term.Pos{}, term.Pos{Line: 9}, true) != "" {
				t.Fatal("a closed pane still has text")
			}
		})
	}
}
