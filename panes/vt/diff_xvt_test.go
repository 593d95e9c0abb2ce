package vt

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/okstra/cockpit/panes/refvt"
	"github.com/okstra/cockpit/panes/term"
)

// compareWithXVT feeds s to both emulators and returns the differences of
// the styled screens and cursors ("" when equal).
func compareWithXVT(s string, cols, rows int) string {
	e := New(cols, rows)
	r := refvt.NewEmulator(cols, rows)
	defer r.Close()
	_, _ = e.Write([]byte(s))
	_, _ = r.Write([]byte(s))
	var diffs []string
	for y := 0; y < rows; y++ {
		a := string(e.AppendLine(nil, y, true))
		b := string(r.AppendLine(nil, y, true))
		if a != b {
			diffs = append(diffs, fmt.Sprintf("row %d:\n  vt  %q\n  xvt %q", y, a, b))
		}
	}
	if a, b := e.Cursor(), r.Cursor(); a != b {
		diffs = append(diffs, fmt.Sprintf("cursor vt %+v xvt %+v", a, b))
	}
	return strings.Join(diffs, "\n")
}

// corpusXVTBugs are the corpus entries that hit a listed x/vt bug: they
// must differ (and TestXVTBugs pins the bug itself).
var corpusXVTBugs = map[int]string{3: "wide char in the last column is dropped"}

func TestDiffXVTCorpus(t *testing.T) {
	for i, s := range diffCorpus {
		d := compareWithXVT(s, 80, 24)
		if bug, ok := corpusXVTBugs[i]; ok {
			if d == "" {
				t.Errorf("corpus[%d] should hit the x/vt bug %q but matches", i, bug)
			}
			continue
		}
		if d != "" {
			t.Errorf("corpus[%d] %q differs from x/vt:\n%s", i, s, d)
		}
	}
}

// TestDiffXVTRandom compares fuzz-generated streams (the x/vt-safe subset)
// with a fixed seed, so plain `go test` covers what the fuzzer does.
func TestDiffXVTRandom(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 50
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < n; i++ {
		in := make([]byte, 4+rng.IntN(40))
		for j := range in {
			in[j] = byte(rng.IntN(256))
		}
		s := fuzzStream(in, true)
		if d := compareWithXVT(string(s), fuzzCols, fuzzRows); d != "" {
			t.Fatalf("stream %q differs from x/vt:\n%s", s, d)
		}
	}
}

// FuzzDiffXVT: any stream of the x/vt-safe generator must give the screen
// x/vt gives. The seeds run in plain `go test`.
func FuzzDiffXVT(f *testing.F) {
	for _, s := range []string{"", "\x00\x01\x02\x03", "hello world \x07\x08", "\x06\x30\x30\x07\x07\x03\x0a\x63\x0c",
		"\x17\x01\x05\x0f\x0f\x0f\x0f\x0f\x0f\x0f\x0f\x0f\x0f\x0f\x0f\x0f\x0f\x0f\x0f\x0f\x0f\x0f\x0f\x0f\x0f",
		"\x0f\x03\x01\x1a\x10\x00\x09\x0b\x0d\x02\x0e\x02\x12\x00\x13\x01\x16\x04\x1c\x05"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s := fuzzStream(in, true)
		if d := compareWithXVT(string(s), fuzzCols, fuzzRows); d != "" {
			t.Fatalf("stream %q differs from x/vt:\n%s", s, d)
		}
	})
}

// xvtBugs are the places where x/vt v0.1.0 departs from xterm and this
// emulator does not follow it (docs/EMULATOR.md, "x/vt bugs"). Each case pins
// both sides: what this emulator shows and what x/vt shows, so a fixed x/vt
// or a regression here both fail.
var xvtBugs = []struct {
	name       string
	in         string
	cols, rows int
	vt, xvt    string // styled screens, rows joined by '\n', then " @x,y"
}{
	{"wide char in the last column is dropped", "abcd漢", 5, 3, "abcd\n漢\n @2,1", "abcd\n\n @4,0"},
	{"NEL (ESC E) is ignored", "ab\x1bEc", 5, 3, "ab\nc\n @1,1", "abc\n\n @3,0"},
	{"insert mode (IRM) is ignored", "abc\r\x1b[4hX", 5, 3, "Xabc\n\n @1,0", "Xbc\n\n @1,0"},
	{"DECOM does not home the cursor", "\x1b[3;3H\x1b[?6hX", 5, 3, "X\n\n @1,0", "\n\n  X @3,2"},
	{"entering 1049 homes the cursor", "\x1b[3;3H\x1b[?1049hX", 5, 3, "\n\n  X @3,2", "X\n\n @1,0"},
	{"an explicit 0 count moves nothing", "\x1b[3;3H\x1b[0AX", 5, 3, "\n  X\n @3,1", "\n\n  X @3,2"},
	{"a combining mark after a cursor move replaces the cell under the cursor", "ab\x1b[D\u0301", 5, 3, "a\u0301b\n\n @1,0", "a\u0301\n\n @1,0"},
	{"ED 1 erases the whole cursor line", "abcdef\x1b[1;3H\x1b[1J", 6, 3, "   def\n\n @2,0", "\n\n @2,0"},
	{"DECSTR is ignored", "\x1b[31m\x1b[!pX", 5, 3, "X\n\n @1,0", "\x1b[0;31mX\x1b[0m\n\n @1,0"},
	{"DECRC restores cursor visibility", "\x1b[?25l\x1b8", 5, 3, "\n\n @0,0 hidden", "\n\n @0,0"},
	{"IL in a region below row 1 moves the cursor down by the region top", "\x1b[2;4r\x1b[2;1H\x1b[LX", 5, 5, "\nX\n\n\n @1,1", "\n\nX\n\n @1,2"},
	{"ICH shifting a wide character destroys it", "😀한\r\x1b[@", 6, 2, " 😀한\n @0,0", "  한\n @0,0"},
	{"ED 2 ignores the current background", "\x1b[44m\x1b[2J", 3, 2, "\x1b[0;44m   \x1b[0m\n\x1b[0;44m   \x1b[0m @0,0", "\n @0,0"},
	{"EL 2 keeps a pending wrap", "abcde\x1b[2KX", 5, 3, "    X\n\n @4,0", "\nX\n @1,1"},
	{"DECRC keeps a pending wrap", "abcde\x1b8X", 5, 3, "Xbcde\n\n @1,0", "abcde\nX\n @1,1"},
	{"DECSC does not save a pending wrap", "abcde\x1b7\x1b[H\x1b8X", 5, 3, "abcde\nX\n @1,1", "abcdX\n\n @4,0"},
	{"DCH does nothing outside the scroll region", "\x1b[2;3r\x1b[1;1Habc\r\x1b[P", 5, 5, "bc\n\n\n\n @0,0", "abc\n\n\n\n @0,0"},
	{"a wide char ending in the last column sets no pending wrap", "abc漢X", 5, 3, "abc漢\nX\n @1,1", "abc X\n\n @4,0"},
	{"the scroll region belongs to one screen", "top\x1b[?1049h\x1b[2;3r\x1b[?1049l\x1b[5;1H\nX", 5, 5, "top\n\n\n\nX @1,4", "\n\n\n\nX @1,4"},
	{"CUD from above the region passes its bottom margin", "\x1b[3;4r\x1b[1;1H\x1b[9BX", 5, 5, "\n\n\nX\n @1,3", "\n\n\n\nX @1,4"},
	{"a wide char over the left half of another leaves a stale placeholder", "😀😀x\rｶ漢", 6, 1, "ｶ漢 x @3,0", "ｶ漢x @3,0"},
	{"REP repeats only ASCII", "é\x1b[2b", 5, 2, "ééé\n @3,0", "é\n @1,0"},
	{"a combining mark defeats the DEC graphics mapping", "\x1b(0q\u0301", 5, 2, "─\u0301\n @1,0", "q\u0301\n @1,0"},
}

func screenWithCursor(e term.Emulator) string {
	c := e.Cursor()
	s := fmt.Sprintf("%s @%d,%d", styledText(e), c.X, c.Y)
	if !c.Visible {
		s += " hidden"
	}
	return s
}

func TestXVTBugs(t *testing.T) {
	for _, bug := range xvtBugs {
		e := New(bug.cols, bug.rows)
		r := refvt.NewEmulator(bug.cols, bug.rows)
		_, _ = e.Write([]byte(bug.in))
		_, _ = r.Write([]byte(bug.in))
		if got := screenWithCursor(e); got != bug.vt {
			t.Errorf("%s: vt shows %q, want %q", bug.name, got, bug.vt)
		}
		if got := screenWithCursor(r); got != bug.xvt {
			t.Errorf("%s: x/vt shows %q, pinned %q (fixed upstream? update docs/EMULATOR.md)", bug.name, got, bug.xvt)
		}
		_ = r.Close()
	}
}

func TestTitleWithSemicolon(t *testing.T) {
	// x/vt drops an OSC 0/2 title that contains ';'.
	e := New(5, 1)
	r := refvt.NewEmulator(5, 1)
	defer r.Close()
	in := []byte("\x1b]2;a;b\a")
	_, _ = e.Write(in)
	_, _ = r.Write(in)
	if e.Title() != "a;b" || r.Title() != "" {
		t.Fatalf("titles: vt %q, x/vt %q (pinned \"\")", e.Title(), r.Title())
	}
}
