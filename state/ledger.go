package state

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// PhaseIDs are the checkpoint ids the lead-events ledger accepts.
var PhaseIDs = []string{
	"phase-1-intake", "phase-2-prompts", "phase-3-team-create",
	"phase-4-dispatch", "phase-5-poll", "phase-5-collect", "phase-5-stage",
	"phase-5-stage-complete", "phase-5.5-convergence", "phase-5.6-critic",
	"phase-batch-cleanup", "phase-gate-cleanup", "phase-6-synthesis",
	"phase-5.5.9-plan-verify", "user-confirm", "phase-7-persist",
	"phase-7-teardown", "complete",
}

// defaultDetail is the fixed prose of checkpoints that have one, used when
// lead-progress append is given neither fields nor a detail.
var defaultDetail = map[string]string{
	"phase-6-synthesis": "dispatching report-writer-worker",
	"phase-7-persist":   "updating manifests",
	"phase-7-teardown":  "shutting-down-workers",
}

// CheckPhase reports whether id is a known checkpoint id.
func CheckPhase(id string) error {
	for _, p := range PhaseIDs {
		if p == id {
			return nil
		}
	}
	return fmt.Errorf("unknown phase id %q; known: %s", id, strings.Join(PhaseIDs, ", "))
}

// Event is one checkpoint of the lead-events ledger.
type Event struct {
	At           string      `json:"at"`
	Phase        string      `json:"phase"`
	Worker       string      `json:"worker,omitempty"`
	Fields       [][2]string `json:"fields,omitempty"`
	Detail       string      `json:"detail,omitempty"`
	Source       string      `json:"source"`
	ProgressLine string      `json:"progressLine"`
}

// NewEvent builds a checkpoint and its PROGRESS line. fields are name/value
// pairs in the order the line carries them.
func NewEvent(source, phase, worker string, fields [][2]string, detail string) (Event, error) {
	if err := CheckPhase(phase); err != nil {
		return Event{}, err
	}
	if worker == "" && len(fields) == 0 && detail == "" {
		detail = defaultDetail[phase]
	}
	for _, f := range fields {
		if f[0] == "" || strings.ContainsAny(f[0], "= \t\n") {
			return Event{}, fmt.Errorf("field name %q must be non-empty with no '=' or spaces", f[0])
		}
		if strings.ContainsAny(f[1], "\n\r") {
			return Event{}, fmt.Errorf("field %s: value must be one line", f[0])
		}
	}
	if strings.ContainsAny(detail, "\n\r") || strings.ContainsAny(worker, "\n\r") {
		return Event{}, errors.New("worker and detail must be one line")
	}
	e := Event{At: Timestamp(Now()), Phase: phase, Worker: worker, Fields: fields, Detail: detail, Source: source}
	e.ProgressLine = e.Line()
	return e, nil
}

// Line renders the PROGRESS line of e.
func (e Event) Line() string {
	var b strings.Builder
	b.WriteString("PROGRESS: ")
	b.WriteString(e.Phase)
	if e.Worker != "" {
		b.WriteString(" worker=")
		b.WriteString(e.Worker)
	}
	for _, f := range e.Fields {
		b.WriteByte(' ')
		b.WriteString(f[0])
		b.WriteByte('=')
		b.WriteString(f[1])
	}
	if e.Detail != "" {
		b.WriteByte(' ')
		b.WriteString(e.Detail)
	}
	return b.String()
}

// Field returns the value of the named field.
func (e Event) Field(name string) string {
	for _, f := range e.Fields {
		if f[0] == name {
			return f[1]
		}
	}
	return ""
}

// AppendEvents appends events to the JSON-lines ledger at path, under its
// lock, with one write(2) on a descriptor opened O_APPEND: lines written by
// others (and members of them the cockpit does not know) stay byte for byte,
// and the cost does not grow with the ledger (docs/DECISIONS.md #34).
//
// A reader that does not take the lock may see the last line while it is
// being written; ReadEvents ignores a last line with no newline that is not
// yet a JSON object. A writer that died in the middle of a line leaves such
// a torn tail, and the next append cuts it off (it was never a checkpoint);
// a complete last line without its newline gets one.
//
// The ledger is not fsynced: an append is visible to every reader as soon as
// it returns, and an operating-system crash loses at most the last
// checkpoints, never the lines before them (the file only grows).
func AppendEvents(path string, events ...Event) error {
	return AppendEventsContext(context.Background(), path, events...)
}

// AppendEventsContext is AppendEvents giving up its wait for the ledger's
// lock when ctx ends.
func AppendEventsContext(ctx context.Context, path string, events ...Event) error {
	if len(events) == 0 {
		return nil
	}
	var add bytes.Buffer
	for _, e := range events {
		line, err := json.Marshal(e)
		if err != nil {
			return err
		}
		add.Write(line)
		add.WriteByte('\n')
	}
	return WithLockContext(ctx, path, func() error {
		// O_NOFOLLOW: a ledger replaced by a symlink is not followed out of
		// the run directory.
		// O_NONBLOCK and a regular-file check: a FIFO planted as the ledger
		// would take the line into a pipe and lose it (and exit 0).
		f, err := openRegular(path, path, os.O_RDWR|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
		if IsNotRegular(err) {
			return err
		}
		if err != nil {
			return fmt.Errorf("append to ledger %s: %w", path, err)
		}
		defer f.Close()
		lead, err := repairTail(f)
		if err != nil {
			return fmt.Errorf("append to ledger %s: %w", path, err)
		}
		if err := refuseReadOnly(f, path); err != nil {
			return err
		}
		buf := add.Bytes()
		if lead {
			buf = append([]byte{'\n'}, buf...)
		}
		before, err := f.Seek(0, io.SeekEnd)
		if err != nil {
			return fmt.Errorf("append to ledger %s: %w", path, err)
		}
		if n, err := f.Write(buf); err != nil || n != len(buf) {
			// A full disk (ENOSPC) or a quota may take part of the line:
			// cut the ledger back to where it was, so no reader (okstra)
			// sees half a line as malformed JSON lines.
			_ = f.Truncate(before)
			if err == nil {
				err = io.ErrShortWrite
			}
			return fmt.Errorf("append to ledger %s: %w (the ledger was left as it was)", path, err)
		}
		return f.Close()
	})
}

// repairTail looks at the end of the ledger open in f (read-write,
// appending, under its lock). A ledger that ends in a newline, or is empty,
// is left alone. A last line without one is either complete (a writer that
// does not end its lines: lead is true and the append starts with a
// newline) or torn (a writer died mid-line: it is cut off).
func repairTail(f *os.File) (lead bool, err error) {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false, err
	}
	size := fi.Size()
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return false, err
	}
	if last[0] == '\n' {
		return false, nil
	}
	tail, start, err := lastLine(f, size)
	if err != nil {
		return false, err
	}
	if completeLine(tail) {
		return true, nil
	}
	return false, f.Truncate(start)
}

// lastLine reads the bytes after the last newline of the size-byte file f
// and the offset where they start.
func lastLine(f *os.File, size int64) ([]byte, int64, error) {
	for n := int64(4096); ; n *= 4 {
		from := max(size-n, 0)
		buf := make([]byte, size-from)
		if _, err := f.ReadAt(buf, from); err != nil {
			return nil, 0, err
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			return buf[i+1:], from + int64(i) + 1, nil
		}
		if from == 0 {
			return buf, 0, nil
		}
	}
}

// completeLine reports whether a ledger line without its newline is a whole
// JSON object, not one cut short.
func completeLine(line []byte) bool {
	line = bytes.TrimSpace(line)
	return len(line) > 0 && line[0] == '{' && json.Valid(line)
}

// ReadEvents reads the ledger. A missing ledger has no events. A line that
// is not a JSON object is an error naming its line number, except a last
// line still being written (see AppendEvents).
func ReadEvents(path, display string) ([]Event, error) {
	data, err := ReadRegular(path, display)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		if IsNotRegular(err) {
			return nil, err
		}
		return nil, fmt.Errorf("read ledger %s: %w", display, err)
	}
	// A last line with no newline that is not yet a JSON object is being
	// written (or was torn by a writer that died): it is not a checkpoint.
	if n := len(data); n > 0 && data[n-1] != '\n' {
		if i := bytes.LastIndexByte(data, '\n'); !completeLine(data[i+1:]) {
			data = data[:i+1]
		}
	}
	var out []Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, &Error{File: display, Field: fmt.Sprintf("line %d", n), Msg: "is not a checkpoint JSON object: " + err.Error(), Err: err}
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read ledger %s: %w", display, err)
	}
	return out, nil
}

// AppendLine appends one line (a newline is added) to the file at path,
// creating it 0600, never through a symlink or into anything but a
// regular file, and fsyncs it: for what must survive a crash, such as a
// gate's answer kept because its sidecar could not be written.
func AppendLine(path string, line []byte) error {
	return WithLock(path, func() error {
		f, err := openRegular(path, path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return err
		}
		defer f.Close()
		before, err := f.Seek(0, io.SeekEnd)
		if err != nil {
			return err
		}
		buf := append(append([]byte(nil), line...), '\n')
		if n, err := f.Write(buf); err != nil || n != len(buf) {
			_ = f.Truncate(before)
			if err == nil {
				err = io.ErrShortWrite
			}
			return fmt.Errorf("append to %s: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", path, err)
		}
		return f.Close()
	})
}
