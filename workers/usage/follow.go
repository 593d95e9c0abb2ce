package usage

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
)

// maxLine bounds one JSONL line: a longer line (a huge tool result) is
// skipped, not buffered without limit.
const maxLine = 8 << 20

// Follower reads one append-only JSONL file incrementally: each Update
// reads what was appended since the last one and hands every complete line
// to its parser. A last line without its newline is kept for the next
// Update (a writer may be half-way through it); a file that shrank was
// started again (a new attempt), so parsing restarts from its beginning.
type Follower struct {
	Path  string
	acc   accumulator
	off   int64
	part  []byte // the torn tail: bytes after the last newline
	skip  bool   // dropping an over-long line until its newline
	buf   []byte
	reset func() accumulator
}

// NewFollower follows path with the parser of format.
func NewFollower(path string, format Format) *Follower {
	mk := format.accumulator
	return &Follower{Path: path, acc: mk(), reset: mk}
}

// Update reads the bytes appended since the last call. changed says
// whether any complete line was parsed. A missing file is not an error
// (the CLI has not written it yet).
func (f *Follower) Update() (changed bool, err error) {
	file, err := os.Open(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return false, err
	}
	if st.Size() < f.off {
		f.off, f.part, f.skip, f.acc = 0, nil, false, f.reset()
		changed = true
	}
	if st.Size() == f.off {
		return changed, nil
	}
	if _, err := file.Seek(f.off, io.SeekStart); err != nil {
		return changed, err
	}
	if f.buf == nil {
		f.buf = make([]byte, 64<<10)
	}
	for {
		n, rerr := file.Read(f.buf)
		if n > 0 {
			f.off += int64(n)
			if f.feed(f.buf[:n]) {
				changed = true
			}
		}
		if rerr == io.EOF {
			return changed, nil
		}
		if rerr != nil {
			return changed, rerr
		}
	}
}

// feed splits chunk into lines, joining the torn tail of the last chunk.
func (f *Follower) feed(chunk []byte) bool {
	changed := false
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			if !f.skip {
				f.part = append(f.part, chunk...)
				if len(f.part) > maxLine {
					f.part, f.skip = nil, true
				}
			}
			return changed
		}
		line := chunk[:i]
		chunk = chunk[i+1:]
		if f.skip {
			f.skip = false
			continue
		}
		if len(f.part) > 0 {
			f.part = append(f.part, line...)
			line = f.part
		}
		if f.acc.line(bytes.TrimRight(line, "\r")) {
			changed = true
		}
		f.part = f.part[:0]
	}
	return changed
}

// Totals is what the file says so far, by model.
func (f *Follower) Totals() Totals { return f.acc.totals() }

// Offset is how far the file has been read.
func (f *Follower) Offset() int64 { return f.off }
