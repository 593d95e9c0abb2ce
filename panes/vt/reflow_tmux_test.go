package vt

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// showResized replays data in a fresh cols×rows tmux pane, widens (or
// narrows) it to ncols, and returns what tmux shows then: the history and
// the screen, one string a line, trailing blanks trimmed.
func (s *tmuxServer) showResized(data []byte, cols, rows, ncols int) []string {
	s.t.Helper()
	n := tmuxSessions.Add(1)
	name := fmt.Sprintf("r%d", n)
	file := filepath.Join(s.dir, name+".bin")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		s.t.Fatalf("write replay file: %v", err)
	}
	cmd := fmt.Sprintf("stty -opost -echo; cat %s; tmux -S %s wait-for -S %s; exec sleep 600", file, s.sock, name)
	s.run("new-session", "-d", "-s", name, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), cmd)
	s.run("wait-for", name)
	s.run("set", "-t", name, "window-size", "manual")
	s.run("resize-window", "-t", name, "-x", strconv.Itoa(ncols), "-y", strconv.Itoa(rows))
	out := s.run("capture-pane", "-p", "-S", "-", "-E", "-", "-t", name)
	s.run("kill-session", "-t", name)
	return trimLines(strings.Split(strings.TrimSuffix(out, "\n"), "\n"))
}

func trimLines(ls []string) []string {
	for i := range ls {
		ls[i] = strings.TrimRight(ls[i], " ")
	}
	for len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// resized is what this emulator shows after the same: its scrollback and
// screen after data at cols×rows and a resize to ncols.
func resized(data []byte, cols, rows, ncols int) []string {
	e := New(cols, rows)
	_, _ = e.Write(data)
	e.Resize(ncols, rows)
	var ls []string
	for i := 0; i < e.ScrollbackLen(); i++ {
		ls = append(ls, string(e.AppendScrollback(nil, i, false)))
	}
	for y := 0; y < rows; y++ {
		ls = append(ls, string(e.AppendLine(nil, y, false)))
	}
	return trimLines(ls)
}

// reflowCases are redraws that CLIs do on a narrow pane: a spinner
// rewritten in place after a carriage return, erased and redrawn lines, and
// the line moves of a scroll region. A line that wrapped at the right
// margin is joined on reflow; a line whose continuation was erased whole,
// or moved away, no longer continues (tmux clears the wrap of the line
// above a whole-line erase or a line move).
var reflowCases = []struct {
	name string
	in   string
}{
	{"spinner rewritten after CR, longer than the pane", "⠋ thinking ░░░░░░░░░░░░░░\r⠙ thinking ░░░░░░░░░░░░░░\r⠹ thinking ░░░░░░░░░░░░░░\r\n$ "},
	{"spinner rewritten after CR, shorter", "⠋ thinking ░░░░░░░░░░░░░░\r⠙ thinking ░░░\r\n$ "},
	{"spinner erased to the end after CR", "⠋ thinking ░░░░░░░░░░░░░░\r\x1b[K⠙ thinking ░░░\r\x1b[K⠹ thinking ░░\r\n$ "},
	{"spinner erased whole after CR", "⠋ thinking ░░░░░░░░░░░░░░\r\x1b[2K⠙ thinking ░░░\r\n$ "},
	{"ink-style frames: erase lines, up, erase, column 1", "⠋ thinking ░░░░░░░░░░░░░░\n\x1b[2K\x1b[1A\x1b[2K\x1b[G⠙ thinking ░░░░░░░░░░░░░░\n\x1b[2K\x1b[1A\x1b[2K\x1b[G⠹ thinking ░░░\n$ "},
	{"erase from the start of a continuation", "abcdefghijklmnopqrstuvwxyz0123\x1b[1;1H\x1b[2B\x1b[1K\r\n$ "},
	{"erase below a wrapped line", "abcdefghijklmnopqrstuvwxyz0123\x1b[1;20H\x1b[J\r\n\r\n$ "},
	{"erase below from the line start", "first\r\nabcdefghijklmnopqrstuvwxyz0123\x1b[2;1H\x1b[J... redrawn\r\n$ "},
	{"a wrapped line at the top of the screen erased", "abcdefghijklmnopqrstuvwxyz0123\r\n1\r\n2\r\n3\r\n4\r\n5\r\n6\x1b[1;1H\x1b[2K\x1b[7;1H"},
	{"a long log line wraps and stays joined", "INFO a long log line that wraps over the narrow pane's margin twice over\r\nnext\r\n$ "},
	{"a wrapped line scrolled into history", "abcdefghijklmnopqrstuvwxyz0123456789\r\n1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\n8\r\n$ "},
	{"delete line under a wrapped line", "abcdefghijklmnopqrstuvwxyz0123\r\nnext\r\nlast\x1b[2;1H\x1b[M\x1b[5;1H$ "},
	{"insert line under a wrapped line", "abcdefghijklmnopqrstuvwxyz0123\r\nnext\x1b[2;1H\x1b[L\x1b[5;1H$ "},
	{"reverse index at the top under a wrapped line", "top\r\nabcdefghijklmnopqrstuvwxyz0123\r\nx\x1b[3;6r\x1b[3;1H\x1bM\x1bMnew\x1b[r\x1b[8;1H$ "},
	{"scroll down (SD) under a wrapped line", "top\r\nabcdefghijklmnopqrstuvwxyz0123\r\nx\x1b[3;7r\x1b[2T\x1b[r\x1b[8;1H$ "},
	{"delete lines in a region below a wrapped line", "abcdefghijklmnopqrstuvwxyz0123\r\nabcdefghijklmnopqrstuvwxyz0123\r\nx\r\ny\x1b[2;1H\x1b[2M\x1b[8;1H$ "},
}

// TestReflowMatchesTmux widens (and narrows) a narrow pane after each
// case, in this emulator and in tmux, and compares the whole history and
// screen.
func TestReflowMatchesTmux(t *testing.T) {
	tm := newTmux(t)
	for _, c := range reflowCases {
		for _, size := range [][2]int{{20, 60}, {20, 13}} {
			ours := resized([]byte(c.in), size[0], 8, size[1])
			theirs := tm.showResized([]byte(c.in), size[0], 8, size[1])
			if strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
				t.Errorf("%s, %d→%d columns:\nvt:\n%s\ntmux:\n%s", c.name, size[0], size[1], strings.Join(ours, "\n"), strings.Join(theirs, "\n"))
			}
		}
	}
}

// TestSpinnerRedrawsStayApart is the trial's case without tmux: a spinner
// redrawn after CR and an erase on a narrow pane keeps one frame a line
// when the pane is zoomed wider, while text that wrapped is joined.
func TestSpinnerRedrawsStayApart(t *testing.T) {
	in := "⠋ thinking ░░░░░░░░░░░░░░\r\x1b[K⠙ thinking ░░░░░░░░░░░░░░\r\x1b[K⠹ thinking ░░░\r\n$ "
	got := resized([]byte(in), 20, 8, 60)
	want := []string{"⠋ thinking ░░░░░░░░░", "⠙ thinking ░░░░░░░░░", "⠹ thinking ░░░", "$"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("zoomed spinner:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got = resized([]byte("abcdefghijklmnopqrstuvwxyz\r\n$ "), 20, 8, 60)
	if got[0] != "abcdefghijklmnopqrstuvwxyz" {
		t.Fatalf("a wrapped line is not joined: %q", got)
	}
}
