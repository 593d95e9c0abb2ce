package vt

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
)

// The tmux differential tests replay a byte stream into this emulator and
// into a real tmux pane of the same size, then compare what `capture-pane -p`
// (text) and `capture-pane -p -e` (styles) show, and the cursor. tmux runs on
// a private socket in a temporary directory and is killed at cleanup.

// tmuxServer is a private tmux server for one test.
type tmuxServer struct {
	t    *testing.T
	sock string
	dir  string
}

var tmuxSessions atomic.Int64

// newTmux starts nothing yet (sessions start the server) but decides whether
// tmux is there: missing tmux skips the test, except under CI=true where it
// fails it.
func newTmux(t *testing.T) *tmuxServer {
	t.Helper()
	testenv.SkipShort(t, "the tmux differential")
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("tmux not found and CI=true: %v", err)
		}
		t.Skip("tmux not found")
	}
	dir := testenv.ShortDir(t)
	s := &tmuxServer{t: t, sock: filepath.Join(dir, "s"), dir: dir}
	// A session that lives as long as the test keeps the server up: tmux
	// exits with its last session, and a new session started while it is
	// exiting fails with "server exited unexpectedly".
	s.run("new-session", "-d", "-s", "keep", "-x", "20", "-y", "5", "exec sleep 3600")
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-S", s.sock, "kill-server").Run()
		_ = os.RemoveAll(dir)
	})
	return s
}

func (s *tmuxServer) run(args ...string) string {
	s.t.Helper()
	out, err := s.try(args...)
	if err != nil {
		s.t.Fatalf("%v", err)
	}
	return out
}

func (s *tmuxServer) try(args ...string) (string, error) {
	// No tmux command here takes long; a hung one fails the test instead of
	// the whole run.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", append([]string{"-S", s.sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("tmux %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// tmuxScreen is what tmux shows of a pane.
type tmuxScreen struct {
	plain, styled []string
	history       []string // the last 100 lines above the screen, oldest first
	x, y          int
	cursorOn      bool
}

// show replays data in a fresh cols×rows pane and captures it.
func (s *tmuxServer) show(data []byte, cols, rows int) tmuxScreen {
	s.t.Helper()
	n := tmuxSessions.Add(1)
	name := fmt.Sprintf("s%d", n)
	file := filepath.Join(s.dir, name+".bin")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		s.t.Fatalf("write replay file: %v", err)
	}
	// -opost: the bytes reach tmux exactly as recorded (no LF → CRLF).
	cmd := fmt.Sprintf("stty -opost -echo; cat %s; tmux -S %s wait-for -S %s; exec sleep 600", file, s.sock, name)
	newSession := []string{"new-session", "-d", "-s", name, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), cmd}
	s.run(newSession...)
	s.run("wait-for", name)
	sc := s.capture(name, cols)
	s.run("kill-session", "-t", name)
	return sc
}

// capture is what the pane of session name (cols wide) shows.
func (s *tmuxServer) capture(name string, cols int) tmuxScreen {
	s.t.Helper()
	var sc tmuxScreen
	sc.plain = strings.Split(strings.TrimSuffix(s.run("capture-pane", "-p", "-t", name), "\n"), "\n")
	sc.styled = strings.Split(strings.TrimSuffix(s.run("capture-pane", "-p", "-e", "-t", name), "\n"), "\n")
	var hs int
	fmt.Sscanf(s.run("display", "-p", "-t", name, "#{history_size}"), "%d", &hs)
	if hs = min(hs, 100); hs > 0 {
		h := strings.TrimSuffix(s.run("capture-pane", "-p", "-S", strconv.Itoa(-hs), "-E", "-1", "-t", name), "\n")
		sc.history = strings.Split(h, "\n")
	}
	var on int
	fmt.Sscanf(s.run("display", "-p", "-t", name, "#{cursor_x} #{cursor_y} #{cursor_flag}"), "%d %d %d", &sc.x, &sc.y, &on)
	sc.cursorOn = on == 1
	sc.x = min(sc.x, cols-1) // tmux puts a pending wrap one past the last column
	return sc
}

// normCell is a cell as both sides can express it.
type normCell struct {
	text   string
	fg, bg Color
	attr   Attr
	ul     Color
}

// normScreen parses styled lines (ours or tmux's) into cells, trimming
// trailing blanks whatever their style (tmux does not capture them). The lines
// go through one emulator because tmux's -e output carries the style from one
// line into the next.
func normScreen(lines []string, cols, rows int) [][]normCell {
	e := New(cols, rows)
	// tmux -e switches to line drawing with SO/SI: G1 is DEC graphics.
	_, _ = e.Write([]byte("\x1b[?7l\x1b)0"))
	for i, l := range lines {
		if i >= rows {
			break
		}
		if i > 0 {
			_, _ = e.Write([]byte("\r\n"))
		}
		_, _ = e.Write([]byte(l))
	}
	out := make([][]normCell, rows)
	for y := 0; y < rows; y++ {
		var cells []normCell
		for x := 0; x < cols; x++ {
			c := e.Cell(x, y)
			if c.Attr&AttrWideCont != 0 {
				continue
			}
			ul, _, _ := e.CellStyle(c)
			a := c.Attr & attrStyle
			if a&AttrRapidBlink != 0 {
				a = a&^AttrRapidBlink | AttrBlink // tmux has one blink
			}
			cells = append(cells, normCell{text: e.CellText(c), fg: c.Fg, bg: c.Bg, attr: a, ul: ul})
		}
		for len(cells) > 0 && strings.TrimSpace(cells[len(cells)-1].text) == "" {
			cells = cells[:len(cells)-1]
		}
		out[y] = cells
	}
	return out
}

// diffTmux compares our emulator after data with tmux's pane; "" when equal.
func diffTmux(tm *tmuxServer, data []byte, cols, rows int) string {
	return diffTmuxHistory(tm, data, cols, rows, true)
}

// diffTmuxHistory is diffTmux, comparing the scrollback with tmux's history
// only when history is set.
func diffTmuxHistory(tm *tmuxServer, data []byte, cols, rows int, history bool) string {
	e := New(cols, rows)
	_, _ = e.Write(data)
	return compareTmux(e, tm.show(data, cols, rows), history)
}

// compareTmux compares the emulator's screen, cursor and (with history)
// newest scrollback lines with what tmux showed; "" when equal.
func compareTmux(e *Emulator, sc tmuxScreen, history bool) string {
	cols, rows := e.Size()
	var d []string
	var mine []string
	for y := 0; y < rows; y++ {
		mine = append(mine, string(e.AppendLine(nil, y, true)))
	}
	a, b := normScreen(mine, cols, rows), normScreen(sc.styled, cols, rows)
	for y := 0; y < rows; y++ {
		ours := decToASCII(strings.TrimRight(string(e.AppendLine(nil, y, false)), " "))
		theirs := ""
		if y < len(sc.plain) {
			theirs = decToASCII(strings.TrimRight(sc.plain[y], " "))
		}
		if ours != theirs {
			d = append(d, fmt.Sprintf("row %d text:\n  vt   %q\n  tmux %q", y, ours, theirs))
			continue
		}
		if fmt.Sprint(a[y]) != fmt.Sprint(b[y]) {
			styled := ""
			if y < len(sc.styled) {
				styled = sc.styled[y]
			}
			d = append(d, fmt.Sprintf("row %d style:\n  vt   %q\n  tmux %q", y, mine[y], styled))
		}
	}
	// The newest scrollback lines against tmux's history.
	if n := len(sc.history); history && n > 0 && !e.Modes().AltScreen {
		if e.ScrollbackLen() < n {
			d = append(d, fmt.Sprintf("scrollback has %d lines, tmux history %d", e.ScrollbackLen(), n))
		} else {
			for k := 0; k < n; k++ {
				ours := decToASCII(strings.TrimRight(string(e.AppendScrollback(nil, e.ScrollbackLen()-n+k, false)), " "))
				theirs := decToASCII(strings.TrimRight(sc.history[k], " "))
				if ours != theirs {
					d = append(d, fmt.Sprintf("scrollback line -%d:\n  vt   %q\n  tmux %q", n-k, ours, theirs))
					break
				}
			}
		}
	}
	c := e.Cursor()
	if c.X != sc.x || c.Y != sc.y || c.Visible != sc.cursorOn {
		d = append(d, fmt.Sprintf("cursor vt %d,%d visible %v; tmux %d,%d visible %v", c.X, c.Y, c.Visible, sc.x, sc.y, sc.cursorOn))
	}
	return strings.Join(d, "\n")
}

// checkpoints are the prefixes of data compared: about a quarter, half and
// three quarters in (moved forward to the next ESC, so no sequence is cut)
// and the whole stream.
func checkpoints(data []byte) []int {
	var cps []int
	for _, f := range []int{1, 2, 3} {
		at := len(data) * f / 4
		if i := bytes.IndexByte(data[at:], 0x1b); i >= 0 {
			at += i
		}
		if len(cps) == 0 || at > cps[len(cps)-1] {
			cps = append(cps, at)
		}
	}
	return append(cps, len(data))
}

type recording struct {
	name       string
	cols, rows int
}

// recordings lists testdata/vt/*.bin from the `rec NAME COLSxROWS` lines of
// testdata/vt/record.sh, the script that made them.
func recordings(t *testing.T) []recording {
	t.Helper()
	f, err := os.Open("../../testdata/vt/record.sh")
	if err != nil {
		t.Fatalf("open record.sh: %v", err)
	}
	defer f.Close()
	re := regexp.MustCompile(`^rec (\S+) (\d+)x(\d+) `)
	var recs []recording
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := re.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		c, _ := strconv.Atoi(m[2])
		r, _ := strconv.Atoi(m[3])
		recs = append(recs, recording{m[1], c, r})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read record.sh: %v", err)
	}
	return recs
}

func TestTmuxRecordings(t *testing.T) {
	tm := newTmux(t)
	recs := recordings(t)
	if len(recs) < 20 {
		t.Fatalf("only %d recordings listed, want ≥ 20", len(recs))
	}
	for _, r := range recs {
		t.Run(r.name, func(t *testing.T) {
			data, err := os.ReadFile("../../testdata/vt/" + r.name + ".bin")
			if err != nil {
				t.Fatalf("read recording: %v", err)
			}
			if len(data) == 0 {
				t.Fatal("empty recording")
			}
			for _, cp := range checkpoints(data) {
				if d := diffTmux(tm, data[:cp], r.cols, r.rows); d != "" {
					t.Errorf("after %d of %d bytes:\n%s", cp, len(data), d)
				}
			}
		})
	}
}

func TestTmuxStreams(t *testing.T) {
	tm := newTmux(t)
	size := 4 << 20
	if testing.Short() {
		size = 256 << 10
	}
	for name, data := range map[string][]byte{
		"log":     GenLog(size),
		"repaint": GenRepaint(size/2, benchCols, benchRows),
	} {
		for _, cp := range checkpoints(data) {
			if d := diffTmux(tm, data[:cp], benchCols, benchRows); d != "" {
				t.Errorf("%s stream after %d bytes:\n%s", name, cp, d)
			}
		}
	}
}

// decToASCII maps DEC special graphics glyphs back to the bytes that select
// them: tmux's `capture-pane -p` prints line drawing as those bytes (its -e
// output switches charsets with SO/SI, so styled comparisons see glyphs).
func decToASCII(s string) string {
	return decReplacer.Replace(s)
}

var decReplacer = func() *strings.Replacer {
	var pairs []string
	for i, r := range decSpecial {
		if r != ' ' {
			pairs = append(pairs, string(r), string(rune(0x5f+i)))
		}
	}
	return strings.NewReplacer(pairs...)
}()

// tmuxDepartures are places where tmux departs from xterm (and this
// emulator follows xterm). Each pins both sides with `capture-pane -p`.
var tmuxDepartures = []struct {
	name       string
	in         string
	cols, rows int
	vt, tmux   string // plain screens, rows joined by '\n'
}{
	{"EL at a pending wrap erases nothing and keeps the wrap", "abcde\x1b[KX", 5, 2, "abcdX\n", "abcde\nX"},
	{"BS at a pending wrap lands on the last column", "abcde\bX", 5, 2, "abcXe\n", "abcdX\n"},
	{"capture-pane -p prints DEC line drawing as ASCII", "\x1b(0lqk\x1b(B", 5, 1, "┌─┐", "lqk"},
}

func TestTmuxDepartures(t *testing.T) {
	tm := newTmux(t)
	for _, d := range tmuxDepartures {
		e := New(d.cols, d.rows)
		_, _ = e.Write([]byte(d.in))
		if got := screenText(e); got != d.vt {
			t.Errorf("%s: vt shows %q, want %q", d.name, got, d.vt)
		}
		sc := tm.show([]byte(d.in), d.cols, d.rows)
		var rows []string
		for y := 0; y < d.rows; y++ {
			row := ""
			if y < len(sc.plain) {
				row = strings.TrimRight(sc.plain[y], " ")
			}
			rows = append(rows, row)
		}
		if got := strings.Join(rows, "\n"); got != d.tmux {
			t.Errorf("%s: tmux shows %q, pinned %q", d.name, got, d.tmux)
		}
	}
	// Rapid blink: tmux keeps one blink attribute.
	sc := tm.show([]byte("\x1b[6mX"), 5, 1)
	if len(sc.styled) == 0 || !strings.Contains(sc.styled[0], "\x1b[5m") || strings.Contains(sc.styled[0], "6") {
		t.Errorf("tmux styled capture of SGR 6 = %q, pinned ESC[5m", sc.styled)
	}
	// Trailing blanks with a background are not captured by tmux.
	sc = tm.show([]byte("a\x1b[44m   \x1b[0m"), 8, 1)
	if len(sc.styled) == 0 || strings.Contains(sc.styled[0], " ") {
		t.Errorf("tmux styled capture = %q, pinned without the trailing blue blanks", sc.styled)
	}
}

// TestTmuxResets compares RIS and DECCOLM with tmux: the screen, the cursor
// and (for DECCOLM, whose clear is ED 2's) the history. Where tmux departs
// from xterm and a VT100 — RIS keeps tmux's history, DECCOLM keeps its
// margins — both sides are pinned.
func TestTmuxResets(t *testing.T) {
	tm := newTmux(t)
	lines := ""
	for i := range 9 {
		lines += fmt.Sprintf("\x1b[3%dmline %d\x1b[m\r\n", i%8, i)
	}
	for _, tc := range []struct {
		name    string
		in      string
		history bool
	}{
		{"DECCOLM set after output", lines + "abc\x1b[?3hX", true},
		{"DECCOLM reset after output", lines + "abc\x1b[5;7H\x1b[?3lX\r\nY", true},
		{"DECCOLM at a pending wrap", lines + "0123456789012345678\x1b[?3hX", true},
		{"DECCOLM on the alternate screen", lines + "\x1b[?1049habc\r\ndef\x1b[?3hX\x1b[?1049l", true},
		{"DECCOLM with origin mode", lines + "\x1b[?6h\x1b[?3hX", true},
		{"RIS after output", lines + "abc\x1b[31m\x1bcX\r\nY", false},
		{"RIS on the alternate screen", lines + "\x1b[?1049habc\x1bcX", false},
	} {
		if d := diffTmuxHistory(tm, []byte(tc.in), 20, 5, tc.history); d != "" {
			t.Errorf("%s:\n%s", tc.name, d)
		}
	}

	// RIS: xterm's full reset clears the saved lines; tmux keeps them.
	in := lines + "abc\x1bcX"
	e := New(20, 5)
	_, _ = e.Write([]byte(in))
	if n := e.ScrollbackLen(); n != 0 {
		t.Errorf("RIS kept %d scrollback lines, want none", n)
	}
	if sc := tm.show([]byte(in), 20, 5); len(sc.history) < 9 || sc.history[0] != "line 0" {
		t.Errorf("tmux history after RIS = %q, pinned: kept, from \"line 0\"", sc.history)
	}

	// DECCOLM resets the margins (VT100, xterm); tmux keeps them.
	in = "\x1b[2;3r\x1b[?3hX\r\nY\r\nZ\r\nW"
	e = New(20, 5)
	_, _ = e.Write([]byte(in))
	if got, want := screenText(e), "X\nY\nZ\nW\n"; got != want {
		t.Errorf("DECCOLM with margins: vt shows %q, want %q", got, want)
	}
	sc := tm.show([]byte(in), 20, 5)
	if got, pinned := strings.Join(sc.plain, "\n"), "X\nZ\nW\n\n"; strings.TrimRight(got, "\n") != strings.TrimRight(pinned, "\n") {
		t.Errorf("DECCOLM with margins: tmux shows %q, pinned %q", got, pinned)
	}
}
