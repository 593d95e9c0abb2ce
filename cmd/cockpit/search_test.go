package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
)

// searchLead prints 200 numbered lines and waits.
const searchLead = `#!/bin/sh
i=1
while [ $i -le 200 ]; do printf 'history line %03d\n' $i; i=$((i+1)); done
exec sleep 600
`

// styledScreen is the visible screen with its styles (capture-pane -e).
func (s *tmuxSession) styledScreen() string {
	s.t.Helper()
	out, err := s.cmd("capture-pane", "-p", "-e", "-t", "0").Output()
	if err != nil {
		s.t.Fatalf("capture-pane -e: %v", err)
	}
	return string(out)
}

// styledLine is the styled screen line whose text holds text.
func (s *tmuxSession) styledLine(text string) string {
	for _, l := range strings.Split(s.styledScreen(), "\n") {
		if strings.Contains(stripSGR(l), text) {
			return l
		}
	}
	return ""
}

// stripSGR drops SGR sequences.
func stripSGR(l string) string {
	var b strings.Builder
	for i := 0; i < len(l); i++ {
		if l[i] == 0x1b && i+1 < len(l) && l[i+1] == '[' {
			j := i + 2
			for j < len(l) && (l[j] < 0x40 || l[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(l[i])
	}
	return b.String()
}

// buffer is tmux's newest paste buffer ("" when there is none).
func (s *tmuxSession) buffer() string {
	out, err := s.cmd("show-buffer").Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// sendHex types raw bytes into the cockpit's terminal (mouse reports).
func (s *tmuxSession) sendHex(seq string) {
	s.t.Helper()
	args := []string{"send-keys", "-t", "0", "-H"}
	for i := 0; i < len(seq); i++ {
		args = append(args, fmt.Sprintf("%02x", seq[i]))
	}
	if out, err := s.cmd(args...).CombinedOutput(); err != nil {
		s.t.Fatalf("send-keys -H: %v: %s", err, out)
	}
}

// TestSearchAndCopyInTmux drives scroll mode's search and copy in a real
// terminal: a backward search paints its matches (the current one apart)
// and n moves the current one up; a keyboard selection and a mouse drag
// reach tmux's paste buffer through OSC 52 (set-clipboard on), and a
// double click copies a word.
func TestSearchAndCopyInTmux(t *testing.T) {
	t.Parallel() // waits on other processes most of its time
	root, env := paneRun(t)
	l := openLead(t, root, env, fixture.PathWith(fixture.FakeBin(t)), 100, 30, func(string) string { return searchLead })
	s := l.s
	if out, err := s.cmd("set-option", "-s", "set-clipboard", "on").CombinedOutput(); err != nil {
		t.Fatalf("set-clipboard: %v: %s", err, out)
	}
	s.waitFor("history line 200", 20*time.Second)

	// Scroll mode (the prefix first: from typing or navigating alike),
	// then ?line 19 searches up from the bottom.
	s.keys("C-b", "[", "?")
	s.waitFor("?", 5*time.Second)
	s.typeText("line 19")
	s.keys("Enter")
	// tmux writes each attribute as its own SGR: black on cyan (46) for a
	// match, bold black on magenta (45) for the current one.
	const match, current = "\x1b[46mline 19", "\x1b[45mline 19"
	s.waitScreen("the search count", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "[?line 19 10/10]") })
	waitFor(t, "the painted matches", 5*time.Second, func() bool {
		return strings.Contains(s.styledLine("history line 199"), current) && strings.Contains(s.styledLine("history line 190"), match)
	})
	if l := s.styledLine("history line 189"); strings.Contains(l, match) || strings.Contains(l, current) {
		t.Fatalf("a line without a match is painted: %q", l)
	}
	// n goes on upwards: 198 is current, 199 a plain match.
	s.keys("n")
	s.waitFor("[?line 19 9/10]", 5*time.Second)
	waitFor(t, "n to move the current match", 5*time.Second, func() bool {
		return strings.Contains(s.styledLine("history line 198"), current) && strings.Contains(s.styledLine("history line 199"), match)
	})

	// Keyboard: v at the match, e w e to the end of "line 198", y copies
	// through OSC 52 into tmux's buffer and leaves scroll mode.
	s.keys("v", "e", "w", "e", "y")
	waitFor(t, "the keyboard copy in tmux's buffer", 5*time.Second, func() bool { return s.buffer() == "line 198" })
	s.waitFor("copied 8 chars", 5*time.Second)
	if scr := s.screen(); strings.Contains(scr, "SCROLL") {
		t.Fatalf("y did not leave scroll mode:\n%s", scr)
	}

	// Mouse: a drag over "line 200" (SGR reports, 1-based cells) copies it.
	row := -1
	for i, line := range strings.Split(s.screen(), "\n") {
		if strings.Contains(line, "history line 200") {
			row = i
		}
	}
	if row < 0 {
		t.Fatalf("no history line 200 on screen:\n%s", s.screen())
	}
	col := strings.Index(strings.Split(s.screen(), "\n")[row], "line 200")
	y := row + 1
	s.sendHex(fmt.Sprintf("\x1b[<0;%d;%dM\x1b[<32;%d;%dM\x1b[<32;%d;%dM\x1b[<0;%d;%dm", col+1, y, col+4, y, col+8, y, col+8, y))
	waitFor(t, "the mouse copy in tmux's buffer", 5*time.Second, func() bool { return s.buffer() == "line 200" })
	s.waitFor("copied 8 chars", 5*time.Second)
	// A double click copies the word under it.
	click := fmt.Sprintf("\x1b[<0;%d;%dM\x1b[<0;%d;%dm", col-3, y, col-3, y)
	s.sendHex(click + click)
	waitFor(t, "the double click's word in tmux's buffer", 5*time.Second, func() bool { return s.buffer() == "history" })
}
