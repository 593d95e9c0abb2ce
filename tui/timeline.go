package tui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// timelinePanel is the timeline region: the run's checkpoints, read from
// the screen's environment.
type timelinePanel struct{ env *screenEnv }

// renderTimeline draws this screen's timeline into r.
func (a *App) renderTimeline(rows []string, r rect) { timelinePanel{&a.screenEnv}.Draw(rows, r) }

// Draw draws the checkpoint timeline into r: a rule naming it, then the
// newest PROGRESS lines that fit, oldest at the top and newest last, as
// the ledger reads.
func (p timelinePanel) Draw(rows []string, r rect) {
	a := p.env
	entries := a.run.Timeline
	title := "─ timeline"
	if n := max(len(entries), a.run.TimelineTotal); n > 0 { // the engine keeps the newest of a long ledger
		title += " (" + strconv.Itoa(n) + ")"
	}
	title += " "
	rows[r.Y] = a.memo.render(&a.st.TimelineTitle, title+strings.Repeat("─", max(r.W-len([]rune(title)), 0)))
	lines := r.H - 1
	if lines <= 0 {
		return
	}
	if len(entries) == 0 {
		rows[r.Y+1] = a.memo.fit(a.memo.render(&a.st.Hint, " no checkpoints yet"), r.W)
		return
	}
	start := max(len(entries)-lines, 0)
	for i, e := range entries[start:] {
		// The ledger's lines all start with "PROGRESS: "; the panel's title
		// already says what they are.
		line := strings.TrimPrefix(e.Line, "PROGRESS: ")
		ts := "        "
		if !e.At.IsZero() {
			ts = e.At.Format("15:04:05")
		}
		// A line too long for the panel ends with "…" (issue 12).
		room := max(r.W-len(ts)-2, 1)
		if a.memo.width(line) > room {
			line = ansi.Truncate(line, room, "…")
		}
		rows[r.Y+1+i] = a.memo.fit(" "+a.memo.render(&a.st.TimelineTime, ts)+" "+a.memo.render(&a.st.TimelineLine, line), r.W)
	}
}
