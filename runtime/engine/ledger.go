package engine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// The engine follows the lead-events ledger incrementally: it remembers how
// far it has read and, on every change, reads only the lines appended since
// (a ledger only grows: state.AppendEvents). Of what it reads it keeps the
// newest MaxTimeline checkpoints, each line cut to MaxTimelineLine bytes,
// and the count of all. So the engine's memory and its work per checkpoint
// do not grow with the ledger (a 312 MB ledger of 100 KB checkpoints took it
// to 1.8 GB when it read and kept every line on every change). A ledger
// replaced (another file at its name) or cut shorter is read again from its
// start.

// MaxTimeline is how many checkpoints the view keeps: the newest. The
// screen shows the few that fit its timeline panel; the count of all is
// view.RunView.TimelineTotal.
const MaxTimeline = 1000

// MaxTimelineLine caps a checkpoint's line in the view, in bytes; a longer
// one ends with "…". A screen shows one row of it.
const MaxTimelineLine = 1024

// maxLedgerLine is the longest ledger line read (as state.ReadEvents): a
// longer one is an error naming its line.
const maxLedgerLine = 16 << 20

// ledgerTail is how far the engine has read the ledger, and what it keeps
// of it.
type ledgerTail struct {
	dev, ino uint64 // the file read (a new one at the name is read anew)
	off      int64  // bytes consumed: the end of the last line taken
	lines    int    // lines consumed, for the line number of a bad one
	// nl: the last line taken had no newline yet (a complete JSON object
	// still being ended); the newline that ends it is not a line of its own.
	nl      bool
	total   int                  // checkpoints read
	entries []view.TimelineEntry // the newest, at most 2×MaxTimeline held
}

// reset forgets everything read.
func (l *ledgerTail) reset() { *l = ledgerTail{} }

// timeline is the newest MaxTimeline checkpoints and the count of all. The
// slice is never written again by the tail (capacity capped), so a view
// may hold it.
func (l *ledgerTail) timeline() ([]view.TimelineEntry, int) {
	n := len(l.entries)
	from := max(n-MaxTimeline, 0)
	return l.entries[from:n:n], l.total
}

// read takes the lines appended to the ledger at path since the last read.
// A missing ledger has no checkpoints. A line that is not a JSON object is
// an error naming it; what was read before it is kept, and it is read again
// at the next change (as state.ReadEvents, a torn last line still being
// written is not a checkpoint yet).
func (l *ledgerTail) read(path, display string) error {
	f, err := state.OpenRegular(path, display)
	if errors.Is(err, fs.ErrNotExist) {
		l.reset()
		return nil
	}
	if err != nil {
		if state.IsNotRegular(err) {
			return err
		}
		return fmt.Errorf("read ledger %s: %w", display, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read ledger %s: %w", display, err)
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	if st == nil || st.Dev != l.dev || st.Ino != l.ino || fi.Size() < l.off {
		l.reset()
		if st != nil {
			l.dev, l.ino = st.Dev, st.Ino
		}
	}
	if fi.Size() == l.off {
		return nil
	}
	if _, err := f.Seek(l.off, io.SeekStart); err != nil {
		return fmt.Errorf("read ledger %s: %w", display, err)
	}
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, complete, err := readLine(r)
		if err != nil {
			return fmt.Errorf("read ledger %s: %w", display, err)
		}
		if len(line) == 0 {
			return nil // at the end
		}
		if len(line) > maxLedgerLine {
			return &state.Error{File: display, Field: fmt.Sprintf("line %d", l.lines+1), Msg: fmt.Sprintf("is longer than %d MiB", maxLedgerLine>>20)}
		}
		if l.nl && line[0] == '\n' {
			// The newline that ended the line taken last time.
			l.nl = false
			l.off++
			line = line[1:]
			if len(line) == 0 {
				continue
			}
		}
		l.nl = false
		body := bytes.TrimSpace(line)
		if !complete && (len(body) == 0 || body[0] != '{' || !json.Valid(body)) {
			return nil // a last line still being written
		}
		if len(body) > 0 {
			var e struct {
				At           string `json:"at"`
				ProgressLine string `json:"progressLine"`
			}
			if err := json.Unmarshal(body, &e); err != nil {
				return &state.Error{File: display, Field: fmt.Sprintf("line %d", l.lines+1), Msg: "is not a checkpoint JSON object: " + err.Error(), Err: err}
			}
			at, _ := time.Parse(time.RFC3339, e.At)
			l.add(view.TimelineEntry{At: at, Line: clipLine(e.ProgressLine)})
		}
		l.lines++
		l.off += int64(len(line))
		l.nl = !complete
	}
}

// add keeps e among the newest; past 2×MaxTimeline the newest MaxTimeline
// move to a new array (views hold the old one).
func (l *ledgerTail) add(e view.TimelineEntry) {
	l.total++
	if len(l.entries) >= 2*MaxTimeline {
		l.entries = append(make([]view.TimelineEntry, 0, 2*MaxTimeline), l.entries[len(l.entries)-MaxTimeline+1:]...)
	}
	l.entries = append(l.entries, e)
}

// readLine reads one line with its newline (complete) or, at the end, what
// is left without one; past maxLedgerLine it stops and returns what it has,
// which the caller refuses.
func readLine(r *bufio.Reader) (line []byte, complete bool, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		line = append(line, frag...)
		switch {
		case err == nil:
			return line, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(line) > maxLedgerLine {
				return line, false, nil
			}
		case errors.Is(err, io.EOF):
			return line, false, nil
		default:
			return nil, false, err
		}
	}
}

// clipLine cuts a checkpoint's line to MaxTimelineLine bytes at a rune
// boundary.
func clipLine(s string) string {
	if len(s) <= MaxTimelineLine {
		return s
	}
	cut := MaxTimelineLine
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
