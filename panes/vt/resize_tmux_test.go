package vt

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A resize in a recording: after Offset bytes the terminal became
// Cols×Rows (vtrecord's FILE.resize sidecar).
type resizeAt struct {
	Offset     int
	Cols, Rows int
}

// readResizes reads a recording's resize sidecar; none when it has none.
func readResizes(t *testing.T, file string) []resizeAt {
	t.Helper()
	data, err := os.ReadFile(file + ".resize")
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var rs []resizeAt
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r resizeAt
		if _, err := fmt.Sscanf(l, "%d %dx%d", &r.Offset, &r.Cols, &r.Rows); err != nil {
			t.Fatalf("%s.resize: %q: %v", file, l, err)
		}
		rs = append(rs, r)
	}
	return rs
}

// showWithResizes replays data in a fresh cols×rows tmux pane, resizing
// the window at each resize's offset (the bytes after it are fed once tmux
// has the new size, as a program's redraw after SIGWINCH comes), and
// captures the pane at the end.
func (s *tmuxServer) showWithResizes(data []byte, cols, rows int, rs []resizeAt) tmuxScreen {
	s.t.Helper()
	n := tmuxSessions.Add(1)
	name := fmt.Sprintf("z%d", n)
	var script strings.Builder
	script.WriteString("stty -opost -echo; ")
	prev := 0
	for i, r := range append(rs, resizeAt{Offset: len(data)}) {
		part := filepath.Join(s.dir, fmt.Sprintf("%s.%d.bin", name, i))
		if err := os.WriteFile(part, data[prev:r.Offset], 0o600); err != nil {
			s.t.Fatal(err)
		}
		prev = r.Offset
		fmt.Fprintf(&script, "cat %s; tmux -S %s wait-for -S %s-fed%d; ", part, s.sock, name, i)
		if i < len(rs) {
			fmt.Fprintf(&script, "tmux -S %s wait-for %s-go%d; ", s.sock, name, i)
		}
	}
	script.WriteString("exec sleep 600")
	s.run("new-session", "-d", "-s", name, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), script.String())
	s.run("set", "-t", name, "window-size", "manual")
	for i, r := range rs {
		s.run("wait-for", fmt.Sprintf("%s-fed%d", name, i))
		s.run("resize-window", "-t", name, "-x", strconv.Itoa(r.Cols), "-y", strconv.Itoa(r.Rows))
		s.run("wait-for", "-S", fmt.Sprintf("%s-go%d", name, i))
	}
	s.run("wait-for", fmt.Sprintf("%s-fed%d", name, len(rs)))
	sc := s.capture(name, rs[len(rs)-1].Cols)
	s.run("kill-session", "-t", name)
	return sc
}

// replayResizes feeds data to a fresh emulator with the resizes at their
// offsets.
func replayResizes(data []byte, cols, rows int, rs []resizeAt) *Emulator {
	e := New(cols, rows)
	prev := 0
	for _, r := range rs {
		_, _ = e.Write(data[prev:r.Offset])
		e.Resize(r.Cols, r.Rows)
		prev = r.Offset
	}
	_, _ = e.Write(data[prev:])
	return e
}

// TestTmuxResizeRecordings replays the recordings made with resizes (a
// FILE.resize sidecar beside testdata/vt/FILE.bin) into this emulator and
// into tmux, resizing both at the same bytes, and compares screen, cursor
// and history at the end.
func TestTmuxResizeRecordings(t *testing.T) {
	tm := newTmux(t)
	files, _ := filepath.Glob("../../testdata/vt/*.bin.resize")
	if len(files) == 0 {
		t.Fatal("no recording with resizes in testdata/vt")
	}
	for _, f := range files {
		bin := strings.TrimSuffix(f, ".resize")
		t.Run(strings.TrimSuffix(filepath.Base(bin), ".bin"), func(t *testing.T) {
			data, err := os.ReadFile(bin)
			if err != nil {
				t.Fatal(err)
			}
			m := regexp.MustCompile(`(\d+)x(\d+)`).FindStringSubmatch(filepath.Base(bin))
			if m == nil {
				t.Fatalf("the name of %s has no COLSxROWS", bin)
			}
			cols, _ := strconv.Atoi(m[1])
			rows, _ := strconv.Atoi(m[2])
			rs := readResizes(t, bin)
			e := replayResizes(data, cols, rows, rs)
			if d := compareTmux(e, tm.showWithResizes(data, cols, rows, rs), true); d != "" {
				t.Errorf("after %d bytes and %d resizes:\n%s", len(data), len(rs), d)
			}
		})
	}
}

// resizeCases are resizes of screens programs leave: an ink-style UI whose
// cursor sits on its input line above a footer, output with blank rows
// below, history to pull back, the alternate screen.
var resizeCases = []struct {
	name       string
	in         string
	cols, rows int
	to         []resizeAt // Offset -1: at the end of in
	after      string     // fed after the last resize
}{
	{"shorter: rows below the cursor go first, the footer too", "line 1\r\nline 2\r\n> input\r\nfooter a\r\nfooter b\x1b[3;8H", 20, 6, []resizeAt{{-1, 20, 3}}, "X"},
	{"shorter than the rows below the cursor: the top goes to history", "1\r\n2\r\n3\r\n4\r\n5\x1b[2;1H", 10, 5, []resizeAt{{-1, 10, 2}}, "Y"},
	{"taller: history comes back", "1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\n8", 10, 4, []resizeAt{{-1, 10, 7}}, "Z"},
	{"narrower with blank rows below: split lines push the top up", "a long line that splits\r\nshort\r\n> ", 24, 8, []resizeAt{{-1, 12, 8}}, "typed"},
	{"narrower and shorter at once", "\x1b[44m" + strings.Repeat("▄", 30) + "\x1b[m\r\n > prompt\r\n" + strings.Repeat("▀", 30) + "\r\nfoot left              foot right\r\n\x1b[2;11H", 34, 9, []resizeAt{{-1, 20, 6}}, "\x1b[4B\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[G redrawn"},
	{"wider: wrapped lines join", "0123456789abcdefghij0123456789\r\n$ ", 10, 5, []resizeAt{{-1, 30, 5}}, "ok"},
	{"alternate screen, shorter with the cursor low", "\x1b[?1049h\x1b[H1\r\n2\r\n3\r\n4\r\n5\r\n6\x1b[5;1H", 10, 6, []resizeAt{{-1, 10, 3}}, "A\x1b[?1049l"},
	{"two resizes", "one\r\ntwo\r\nthree\r\nfour\r\nfive", 12, 6, []resizeAt{{-1, 8, 4}, {-1, 12, 8}}, "!"},
}

// TestTmuxResizes compares resizes of those screens with tmux: screen,
// cursor and history after the resizes and what the program draws after.
func TestTmuxResizes(t *testing.T) {
	tm := newTmux(t)
	for _, c := range resizeCases {
		data := []byte(c.in)
		var rs []resizeAt
		for _, r := range c.to {
			rs = append(rs, resizeAt{len(data), r.Cols, r.Rows})
		}
		data = append(data, c.after...)
		e := replayResizes(data, c.cols, c.rows, rs)
		if d := compareTmux(e, tm.showWithResizes(data, c.cols, c.rows, rs), true); d != "" {
			t.Errorf("%s:\n%s", c.name, d)
		}
	}
}
