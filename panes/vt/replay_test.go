package vt

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestReplay(t *testing.T) {
	in := "one\r\ntwo\r\n\x1b[1;31mthree\x1b[0m"
	var out bytes.Buffer
	st, err := Replay(&out, strings.NewReader(in), ReplayOptions{Cols: 10, Rows: 2})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if got := out.String(); got != "two\nthree\n" {
		t.Fatalf("plain replay = %q", got)
	}
	if st.Bytes != int64(len(in)) || st.Seconds < 0 {
		t.Fatalf("stats = %+v", st)
	}
	out.Reset()
	if _, err := Replay(&out, strings.NewReader(in), ReplayOptions{Cols: 10, Rows: 2, ANSI: true, Scrollback: true}); err != nil {
		t.Fatalf("replay: %v", err)
	}
	if got := out.String(); got != "one\ntwo\n\x1b[0;1;31mthree\x1b[0m\n" {
		t.Fatalf("ANSI scrollback replay = %q", got)
	}
	out.Reset()
	if _, err := Replay(&out, strings.NewReader("x"), ReplayOptions{}); err != nil {
		t.Fatalf("replay: %v", err)
	}
	if got := out.String(); got != "x"+strings.Repeat("\n", 24) {
		t.Fatalf("default size replay = %q, want 24 rows", got)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errors.New("bad disk") }

func TestReplayErrors(t *testing.T) {
	if _, err := Replay(failWriter{}, strings.NewReader("x"), ReplayOptions{}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("write error = %v", err)
	}
	if _, err := Replay(&bytes.Buffer{}, failReader{}, ReplayOptions{}); err == nil || !strings.Contains(err.Error(), "bad disk") {
		t.Fatalf("read error = %v", err)
	}
}
