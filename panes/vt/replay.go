package vt

import (
	"bufio"
	"fmt"
	"io"
	"time"
)

// ReplayOptions says how Replay shows a stream.
type ReplayOptions struct {
	Cols, Rows int  // screen size; 0 means 80×24
	ANSI       bool // keep styles (SGR and OSC 8) in the output
	Scrollback bool // print the scrollback lines before the screen
}

// ReplayStats measures the emulator alone, not the reading of the input.
type ReplayStats struct {
	Bytes   int64
	Seconds float64
	MBps    float64 // 1e6 bytes per second
}

// Replay feeds the whole of r to a fresh emulator and writes to w the screen
// a pane would show afterwards, one line per row (trailing blank rows
// included), preceded by the scrollback with opt.Scrollback. It is the
// library side of `cockpit replay <file>`.
func Replay(w io.Writer, r io.Reader, opt ReplayOptions) (ReplayStats, error) {
	if opt.Cols <= 0 {
		opt.Cols = 80
	}
	if opt.Rows <= 0 {
		opt.Rows = 24
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return ReplayStats{}, fmt.Errorf("read replay input: %w", err)
	}
	e := New(opt.Cols, opt.Rows)
	start := time.Now()
	_, _ = e.Write(data)
	secs := time.Since(start).Seconds()
	st := ReplayStats{Bytes: int64(len(data)), Seconds: secs}
	if secs > 0 {
		st.MBps = float64(len(data)) / secs / 1e6
	}
	bw := bufio.NewWriter(w)
	var line []byte
	if opt.Scrollback {
		for i := 0; i < e.ScrollbackLen(); i++ {
			line = append(e.AppendScrollback(line[:0], i, opt.ANSI), '\n')
			if _, err := bw.Write(line); err != nil {
				return st, fmt.Errorf("write replay output: %w", err)
			}
		}
	}
	for y := 0; y < opt.Rows; y++ {
		line = append(e.AppendLine(line[:0], y, opt.ANSI), '\n')
		if _, err := bw.Write(line); err != nil {
			return st, fmt.Errorf("write replay output: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("write replay output: %w", err)
	}
	return st, nil
}
