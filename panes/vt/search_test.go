package vt

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/panes/term"
)

func m(l0, c0, l1, c1 int) term.Match {
	return term.Match{Start: term.Pos{Line: l0, Col: c0}, End: term.Pos{Line: l1, Col: c1}}
}

func wantMatches(t *testing.T, e *Emulator, query string, want ...term.Match) {
	t.Helper()
	got := e.Search(nil, query)
	if !slices.Equal(got, want) {
		t.Fatalf("Search(%q) = %v, want %v", query, got, want)
	}
}

func TestSearchLiteralSmartCase(t *testing.T) {
	e := New(20, 4)
	feed(t, e, "Error: disk\r\nerror again\r\n\x1b[31mERROR\x1b[0m x.y*\r\n")
	// No upper case: any case.
	wantMatches(t, e, "error", m(0, 0, 0, 5), m(1, 0, 1, 5), m(2, 0, 2, 5))
	// An upper-case letter: exact.
	wantMatches(t, e, "Error", m(0, 0, 0, 5))
	wantMatches(t, e, "ERROR", m(2, 0, 2, 5))
	// Literal: no pattern characters.
	wantMatches(t, e, "x.y*", m(2, 6, 2, 10))
	wantMatches(t, e, "x*")
	wantMatches(t, e, "")
	// Overlapping occurrences are each found.
	e = New(20, 2)
	feed(t, e, "aaaa")
	wantMatches(t, e, "aa", m(0, 0, 0, 2), m(0, 1, 0, 3), m(0, 2, 0, 4))
}

func TestSearchFoldsUnicode(t *testing.T) {
	e := New(30, 3)
	feed(t, e, "ΣΟΦΊΑ σοφία\r\n\u212a kelvin\r\n")
	wantMatches(t, e, "σοφία", m(0, 0, 0, 5), m(0, 6, 0, 11))
	wantMatches(t, e, "Σ", m(0, 0, 0, 1))
	// KELVIN SIGN folds with k.
	wantMatches(t, e, "k", m(1, 0, 1, 1), m(1, 2, 1, 3))
}

func TestSearchScrollbackNumbering(t *testing.T) {
	e := New(10, 3, WithScrollback(5))
	for i := range 12 {
		feed(t, e, fmt.Sprintf("line %d\r\n", i))
	}
	// 12 lines and the cursor's empty row: 10 went up, 5 were dropped.
	if e.ScrollbackLen() != 5 || e.ScrollbackDropped() != 5 {
		t.Fatalf("scrollback %d dropped %d", e.ScrollbackLen(), e.ScrollbackDropped())
	}
	// Line numbers count from the first line ever kept: "line 7" is line 7
	// whether in the scrollback or on the screen.
	wantMatches(t, e, "line 7", m(7, 0, 7, 6))
	wantMatches(t, e, "line 11", m(11, 0, 11, 7))
	wantMatches(t, e, "line 2")
	if got := e.Text(term.Pos{Line: 9, Col: 2}, term.Pos{Line: 11, Col: 4}, false); got != "ne 9\nline 10\nline" {
		t.Fatalf("Text across scrollback and screen = %q", got)
	}
	// Lines no longer kept are left out.
	if got := e.Text(term.Pos{Line: 0, Col: 3}, term.Pos{Line: 6, Col: 6}, false); got != "line 5\nline 6" {
		t.Fatalf("Text from dropped lines = %q", got)
	}
}

func TestSearchAcrossSoftWrap(t *testing.T) {
	e := New(10, 4)
	// "hello world" wraps after "hello worl"; "foo " wraps exactly at its
	// blank, which is text.
	feed(t, e, "hello world\r\n123456foo bar\r\n")
	wantMatches(t, e, "world", m(0, 6, 1, 1))
	wantMatches(t, e, "foo bar", m(2, 6, 3, 3))
	if got := e.Text(term.Pos{Line: 0, Col: 6}, term.Pos{Line: 1, Col: 1}, false); got != "world" {
		t.Fatalf("Text across the wrap = %q", got)
	}
	if got := e.Text(term.Pos{Line: 0, Col: 0}, term.Pos{Line: 3, Col: 3}, false); got != "hello world\n123456foo bar" {
		t.Fatalf("Text of two wrapped lines = %q", got)
	}
	// Scrolled into the scrollback, the lines still join.
	feed(t, e, strings.Repeat("\r\n", 6))
	wantMatches(t, e, "world", m(0, 6, 1, 1))
	wantMatches(t, e, "foo bar", m(2, 6, 3, 3))
	if got := e.Text(term.Pos{Line: 1, Col: 0}, term.Pos{Line: 2, Col: 1 << 20}, true); got != "hello world\n123456foo bar" {
		t.Fatalf("Text of lines 1-2 (V) = %q", got)
	}
	// The alternate screen is never joined to the scrollback.
	e = New(10, 2)
	feed(t, e, "0123456789abcdefghijkl")
	wantMatches(t, e, "9a", m(0, 9, 1, 1))
	feed(t, e, "\x1b[?1049h\x1b[Hmnop")
	wantMatches(t, e, "9m")
	wantMatches(t, e, "9a")
	wantMatches(t, e, "mnop", m(1, 0, 1, 4))
}

func TestSearchWideCharacters(t *testing.T) {
	e := New(10, 4)
	// 日本 takes columns 0-3; the next wide character does not fit in
	// column 9 of the second line and wraps, leaving that cell blank.
	feed(t, e, "日本 abc\r\n12345678x語y\r\ne\u0301té\r\n")
	wantMatches(t, e, "本 a", m(0, 2, 0, 6))
	wantMatches(t, e, "abc", m(0, 5, 0, 8))
	// The wrap skips the blank a wide character left: x語 is one word.
	wantMatches(t, e, "x語y", m(1, 8, 2, 3))
	// A combining mark is part of its cell.
	wantMatches(t, e, "e\u0301t", m(3, 0, 3, 2))
	if got := e.Text(term.Pos{Line: 0, Col: 3}, term.Pos{Line: 0, Col: 6}, false); got != "本 a" {
		t.Fatalf("Text from a wide character's right half = %q", got)
	}
	if got := e.Text(term.Pos{Line: 1, Col: 7}, term.Pos{Line: 2, Col: 3}, false); got != "8x語y" {
		t.Fatalf("Text across a wide wrap = %q", got)
	}
}

func TestTextTrimsAndJoins(t *testing.T) {
	e := New(12, 4)
	feed(t, e, "one   \r\n\r\ntwo  three\r\n")
	got := e.Text(term.Pos{Line: 0, Col: 0}, term.Pos{Line: 2, Col: 12}, false)
	if got != "one\n\ntwo  three" {
		t.Fatalf("Text = %q", got)
	}
	// Reversed ends give the same text.
	if got2 := e.Text(term.Pos{Line: 2, Col: 12}, term.Pos{Line: 0, Col: 0}, false); got2 != got {
		t.Fatalf("reversed Text = %q", got2)
	}
	if got := e.Text(term.Pos{Line: 2, Col: 5}, term.Pos{Line: 2, Col: 7}, true); got != "two  three" {
		t.Fatalf("line Text = %q", got)
	}
}

// TestSearchAgreesWithPlainText checks Search against a naive search of
// each line's plain text on random content (ASCII, Latin, wide, colours),
// with no line wrapped, so columns are the plain text's widths.
func TestSearchAgreesWithPlainText(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "Beta", "gamma", "δέλτα", "語句", "needle", "NEEDLE", "x"}
	e := New(80, 10, WithScrollback(100))
	for range 150 {
		var b strings.Builder
		w := 0
		for w < 60 {
			word := words[rng.IntN(len(words))]
			if rng.IntN(3) == 0 {
				fmt.Fprintf(&b, "\x1b[3%dm%s\x1b[0m ", rng.IntN(8), word)
			} else {
				b.WriteString(word + " ")
			}
			w += stringWidth(word) + 1
		}
		feed(t, e, b.String()+"\r\n")
	}
	base := int(e.ScrollbackDropped())
	for _, q := range []string{"needle", "NEEDLE", "語", "δέλτα a", "beta"} {
		var want []term.Match
		total := e.ScrollbackLen() + 10
		for k := range total {
			var txt []byte
			if k < e.ScrollbackLen() {
				txt = e.AppendScrollback(nil, k, false)
			} else {
				txt = e.AppendLine(nil, k-e.ScrollbackLen(), false)
			}
			s, qq := string(txt), q
			if !hasUpper(q) {
				s, qq = strings.ToLower(s), strings.ToLower(q)
			}
			for from := 0; ; {
				i := strings.Index(s[from:], qq)
				if i < 0 {
					break
				}
				c0 := stringWidth(s[:from+i])
				want = append(want, m(base+k, c0, base+k, c0+stringWidth(qq)))
				from += i + 1
			}
		}
		got := e.Search(nil, q)
		if !slices.Equal(got, want) {
			t.Fatalf("Search(%q): %d matches, naive %d\n got %v\nwant %v", q, len(got), len(want), got, want)
		}
		if len(got) == 0 {
			t.Fatalf("Search(%q) found nothing: the test content is wrong", q)
		}
	}
}

func stringWidth(s string) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

// searchContent is issue 12's worst case: a full 10,000-line scrollback of
// 200-column lines (plus the screen), mostly ASCII with ~10% non-ASCII
// lines and colours, every fifth line soft-wrapped into the next.
func searchContent(rows int) []byte {
	rng := rand.New(rand.NewPCG(12, 12))
	words := []string{"the", "worker", "dispatch", "token", "cost", "result", "error", "pane", "scrollback", "gate", "lead", "phase", "model", "batch"}
	var b strings.Builder
	for i := range 10000 + rows {
		w := 0
		var line strings.Builder
		limit := 200
		if i%5 == 0 {
			limit = 260 // wraps into the next row
		}
		for w < limit-16 {
			word := words[rng.IntN(len(words))]
			if i%10 == 3 && rng.IntN(4) == 0 {
				word = "語句ü"
			}
			if rng.IntN(8) == 0 {
				fmt.Fprintf(&line, "\x1b[3%dm%s\x1b[0m ", rng.IntN(8), word)
			} else {
				line.WriteString(word + " ")
			}
			w += stringWidth(word) + 1
		}
		if i%997 == 0 {
			line.WriteString("NeedleInHaystack")
		}
		b.WriteString(line.String())
		b.WriteString("\r\n")
	}
	return []byte(b.String())
}

// BenchmarkSearch times one query over 10,000 lines × 200 columns of
// scrollback plus a 200×50 screen (issue 12: ≤ 20 ms).
func BenchmarkSearch(b *testing.B) {
	e := New(200, 50, WithScrollback(10000))
	_, _ = e.Write(searchContent(50))
	if e.ScrollbackLen() != 10000 {
		b.Fatalf("scrollback %d lines", e.ScrollbackLen())
	}
	for _, q := range []struct{ name, query string }{
		{"rare", "NeedleInHaystack"}, // exact case, ~12 matches
		{"fold", "needleinhaystack"}, // smart case: folded text
		{"common", "worker"},         // thousands of matches
		{"none", "zebra"},            // no match
		{"wide", "語句"},               // non-ASCII query
	} {
		b.Run(q.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var dst []term.Match
			b.ReportAllocs()
			c0 := threadCPU()
			for b.Loop() {
				dst = e.Search(dst[:0], q.query)
			}
			// CPU time of the searching thread: what other processes on a
			// shared machine disturb least (see benchEmulator).
			b.ReportMetric(float64(threadCPU()-c0)/1e6/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(len(dst)), "matches")
		})
	}
}

// BenchmarkSearchTmux times tmux 3.x's copy-mode search over the same
// content (searchContent in a 200×50 pane with history-limit 10000):
// `send-keys -X search-backward-text <query>`, a literal search that marks
// every match, as Search does. Each op is a tmux client round trip; the
// "roundtrip" case (`send-keys -X cursor-up`) measures that alone, to
// subtract. server-cpu-ms/op is the tmux server's CPU time per op (from
// /proc, 10 ms ticks), to compare with BenchmarkSearch's cpu-ms/op.
func BenchmarkSearchTmux(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux not found")
	}
	dir := b.TempDir()
	path := writeStreamFile(b, searchContent(50))
	sock, conf := filepath.Join(dir, "sock"), filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g history-limit 10000\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	tmux := func(args ...string) {
		b.Helper()
		if out, err := exec.Command("tmux", append([]string{"-S", sock, "-f", conf}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("tmux %v: %v: %s", args, err, out)
		}
	}
	tmux("new-session", "-d", "-x", "200", "-y", "50", "cat "+path+"; tmux -S "+sock+" wait-for -S done; sleep 600")
	b.Cleanup(func() { _ = exec.Command("tmux", "-S", sock, "kill-server").Run() })
	tmux("wait-for", "done")
	tmux("copy-mode", "-t", "0")
	out, err := exec.Command("tmux", "-S", sock, "display-message", "-p", "#{pid}").Output()
	if err != nil {
		b.Fatalf("tmux server pid: %v", err)
	}
	stat := "/proc/" + strings.TrimSpace(string(out)) + "/stat"
	// serverCPU is the tmux server's user+system time (clock ticks of
	// 10 ms), which a loaded machine disturbs less than the wall clock.
	serverCPU := func() time.Duration {
		data, err := os.ReadFile(stat)
		if err != nil {
			b.Fatalf("tmux server stat: %v", err)
		}
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
		ut, _ := strconv.Atoi(f[11])
		st, _ := strconv.Atoi(f[12])
		return time.Duration(ut+st) * 10 * time.Millisecond
	}
	for _, q := range []struct{ name, query string }{
		{"roundtrip", ""},
		{"rare", "NeedleInHaystack"},
		{"fold", "needleinhaystack"},
		{"common", "worker"},
		{"none", "zebra"},
		{"wide", "語句"},
	} {
		b.Run(q.name, func(b *testing.B) {
			args := []string{"send-keys", "-t", "0", "-X", "search-backward-text", q.query}
			if q.query == "" {
				args = []string{"send-keys", "-t", "0", "-X", "cursor-up"}
			}
			c0 := serverCPU()
			for b.Loop() {
				tmux(args...)
			}
			b.ReportMetric(float64(serverCPU()-c0)/1e6/float64(b.N), "server-cpu-ms/op")
		})
	}
}

// TestASCIIText checks the eight-bytes-at-a-time text of a run against the
// byte-by-byte rule, on every ASCII byte in every position.
func TestASCIIText(t *testing.T) {
	for _, fold := range []bool{false, true} {
		for c := range 0x80 {
			for pos := range 11 {
				p := []byte("aZ@[`{ 0~Ab")
				p[pos] = byte(c)
				want := make([]byte, len(p))
				for i, b := range p {
					switch {
					case b == 0:
						want[i] = ' '
					case fold:
						want[i] = lowerASCII[b]
					default:
						want[i] = b
					}
				}
				if !asciiText(p, fold) || string(p) != string(want) {
					t.Fatalf("fold %v, byte %#x at %d: %q, want %q", fold, c, pos, p, want)
				}
			}
		}
	}
	for pos := range 11 {
		p := []byte("abcdefghijk")
		p[pos] = 0xc3
		if asciiText(p, true) {
			t.Fatalf("non-ASCII at %d taken as ASCII", pos)
		}
	}
}
