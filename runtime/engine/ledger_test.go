package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// checkpoints are n checkpoints numbered from first, each line carrying
// pad bytes of padding.
func checkpoints(t *testing.T, first, n, pad int) []state.Event {
	t.Helper()
	var evs []state.Event
	for i := range n {
		ev, err := state.NewEvent("test", "phase-5-poll", "", [][2]string{{"i", strconv.Itoa(first + i)}, {"pad", strings.Repeat("x", pad)}}, "")
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// TestTimelineKeepsTheNewestCheckpoints: of a long ledger of long lines the
// view keeps the newest MaxTimeline checkpoints, each cut to
// MaxTimelineLine, and counts all of them (before, the engine kept every
// line whole: 100 KB checkpoints took it to 1.8 GB for a 312 MB ledger).
func TestTimelineKeepsTheNewestCheckpoints(t *testing.T) {
	run, _ := runtest.StartedRun(t, 0)
	if err := state.AppendEvents(run.LeadEventsPath, checkpoints(t, 0, MaxTimeline+5, 10)...); err != nil {
		t.Fatal(err)
	}
	_, events := startSubscribed(t, run)
	v := waitView(t, events, "the ledger is read", func(v view.RunView) bool { return v.TimelineTotal == MaxTimeline+5 })
	if len(v.Timeline) != MaxTimeline || !strings.Contains(v.Timeline[0].Line, " i=5 ") || !strings.Contains(v.Timeline[MaxTimeline-1].Line, " i="+strconv.Itoa(MaxTimeline+4)+" ") {
		t.Fatalf("the timeline holds %d checkpoints from %q to %q; want the newest %d", len(v.Timeline), v.Timeline[0].Line, v.Timeline[len(v.Timeline)-1].Line, MaxTimeline)
	}
	// Three checkpoints of 100 KB each.
	if err := state.AppendEvents(run.LeadEventsPath, checkpoints(t, MaxTimeline+5, 3, 100<<10)...); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, events, "the long checkpoints are read", func(v view.RunView) bool { return v.TimelineTotal == MaxTimeline+8 })
	if len(v.Timeline) != MaxTimeline {
		t.Fatalf("the timeline holds %d checkpoints, want %d", len(v.Timeline), MaxTimeline)
	}
	for _, e := range v.Timeline[MaxTimeline-3:] {
		if len(e.Line) > MaxTimelineLine+len("…") || !strings.HasPrefix(e.Line, "PROGRESS: phase-5-poll i=") || !strings.HasSuffix(e.Line, "…") {
			t.Fatalf("a 100 KB checkpoint is kept as %d bytes (%.40q…), want it cut to %d", len(e.Line), e.Line, MaxTimelineLine)
		}
	}
}

// TestLedgerIsReadIncrementally: the engine reads only what was appended
// since its last read — a line already read is not read again (a byte
// changed in it in place goes unseen) — takes a last line only once it is
// a whole JSON object, numbers a bad line as the file does, and reads a
// ledger replaced at its name from its start.
func TestLedgerIsReadIncrementally(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lead-events.jsonl")
	if err := state.AppendEvents(path, checkpoints(t, 0, 3, 0)...); err != nil {
		t.Fatal(err)
	}
	var l ledgerTail
	read := func(want int) {
		t.Helper()
		if err := l.read(path, "lead-events.jsonl"); err != nil {
			t.Fatal(err)
		}
		if tl, total := l.timeline(); total != want || len(tl) != want {
			t.Fatalf("%d checkpoints read (%d kept), want %d", total, len(tl), want)
		}
	}
	read(3)
	// Break the first line in place: already read, it is not read again.
	data, _ := os.ReadFile(path)
	data[0] = '['
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := state.AppendEvents(path, checkpoints(t, 3, 1, 0)...); err != nil {
		t.Fatal(err)
	}
	read(4)
	// A line being written is not a checkpoint yet; once whole it is, and
	// the newline that ends it later is not a line of its own.
	line := checkpoints(t, 4, 1, 0)[0]
	whole := `{"at":"` + line.At + `","phase":"phase-5-poll","source":"test","progressLine":"` + line.ProgressLine + `"}`
	appendRaw(t, path, whole[:20])
	read(4)
	appendRaw(t, path, whole[20:])
	read(5)
	appendRaw(t, path, "\nnot json\n")
	err := l.read(path, "lead-events.jsonl")
	if err == nil || !strings.Contains(err.Error(), "lead-events.jsonl: line 6: is not a checkpoint JSON object") {
		t.Fatalf("a bad 6th line: %v", err)
	}
	if _, total := l.timeline(); total != 5 {
		t.Fatalf("%d checkpoints kept after a bad line, want the 5 before it", total)
	}
	// Another ledger renamed into place is read from its start.
	other := filepath.Join(dir, "other.jsonl")
	if err := state.AppendEvents(other, checkpoints(t, 100, 2, 0)...); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	read(2)
	if tl, _ := l.timeline(); !strings.Contains(tl[0].Line, " i=100 ") {
		t.Fatalf("the replaced ledger's first checkpoint reads %q", tl[0].Line)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	read(0)
}

func appendRaw(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}
