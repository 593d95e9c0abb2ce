package markdown

import (
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// TestRenderLook holds the look of a result file with every block and
// inline the renderer knows, in color and without, at 76 columns (what
// the result view gives an 80-column screen). -update rewrites the goldens:
// do so only for a change of look that is meant, and read the diff.
func TestRenderLook(t *testing.T) {
	md, err := os.ReadFile("testdata/result-look.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		color bool
	}{{"color", true}, {"plain", false}} {
		t.Run(c.name, func(t *testing.T) {
			lines := Render(string(md), 76, c.color)
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > 76 {
					t.Errorf("line %d is %d cells wide, over 76: %q", i+1, w, l)
				}
			}
			golden.RequireEqual(t, strings.Join(lines, "\n")+"\n")
		})
	}
}

// plainLines renders src without color, trailing spaces trimmed.
func plainLines(src string, width int) []string {
	lines := Render(src, width, false)
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

func TestRenderBlocks(t *testing.T) {
	for _, c := range []struct {
		name, src string
		width     int
		want      []string
	}{
		{"paragraph joins and wraps", "one two\nthree four five", 9, []string{"one two", "three", "four five"}},
		{"hard break", "one  \ntwo\\\nthree", 40, []string{"one", "two", "three"}},
		{"atx heading", "## Findings ##\ntext", 40, []string{"## Findings", "", "text"}},
		{"setext heading", "Title\n=====\n\nSub\n---", 40, []string{"# Title", "", "## Sub"}},
		{"rule", "a\n\n***\n\nb", 8, []string{"a", "", "────────", "", "b"}},
		{"fenced code verbatim", "```go\nif x {\n\treturn  1\n}\n```", 40, []string{"  if x {", "      return  1", "  }"}},
		{"code cut at width", "```\nabcdefghijklmn\n```", 8, []string{"  abcdef", "  ghijkl", "  mn"}},
		{"indented code", "    a := 1\n\n    b := 2\n\ntext", 40, []string{"  a := 1", "", "  b := 2", "", "text"}},
		{"unclosed fence runs to the end", "```\nx\n\ny", 40, []string{"  x", "", "  y"}},
		{"tight bullets", "- one\n- two\n  - nested\n- three", 40, []string{"• one", "• two", "  ◦ nested", "• three"}},
		{"loose bullets", "- one\n\n- two", 40, []string{"• one", "", "• two"}},
		{"item wraps under its text", "- one two three", 9, []string{"• one two", "  three"}},
		{"ordered from its start, aligned", "8. eight\n9. nine\n10. ten", 40, []string{" 8. eight", " 9. nine", "10. ten"}},
		{"ordered keeps its delimiter", "1) one\n2) two", 40, []string{"1) one", "2) two"}},
		{"tasks", "- [x] done\n- [ ] open", 40, []string{"• [x] done", "• [ ] open"}},
		{"lazy continuation", "- one\ntwo", 40, []string{"• one two"}},
		{"a list ends at a paragraph after a blank", "- one\n\nafter", 40, []string{"• one", "", "after"}},
		{"quote", "> quoted **text**\n> > inner", 40, []string{"│ quoted text", "│", "│ │ inner"}},
		{"quote lazy line", "> one\ntwo", 40, []string{"│ one two"}},
		{"table", "| a | b |\n|:-:|--:|\n| 1 | 22 |", 40, []string{"a │  b", "──┼───", "1 │ 22"}},
		{"table cell wraps", "| k | v |\n|---|---|\n| x | one two three |", 11, []string{"k │ v", "──┼────────", "x │ one two", "  │ three"}},
		{"not a table without a delimiter row", "a | b\nc | d", 40, []string{"a | b c | d"}},
		{"html is dropped to its text", "<div>\nsome <b>bold</b> <!-- c --> text\n</div>", 40, []string{"some bold text"}},
		{"empty", "", 40, []string{""}},
		{"controls dropped, bad UTF-8 shown", "a\x1b[31mred\x1b[m\r\nb\xffc\u0085d", 40, []string{"a[31mred[m b\ufffdcd"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := plainLines(c.src, c.width)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("Render(%q, %d):\n got %q\nwant %q", c.src, c.width, got, c.want)
			}
		})
	}
}

// TestCodeNarrowerThanACharacter: a code line in a column narrower than
// its wide characters (deep in a list, in a narrow view) keeps every
// character, one a line, rather than vanishing; Render cuts what is over.
func TestCodeNarrowerThanACharacter(t *testing.T) {
	got := (&renderer{}).code([]string{"한국어", "", "ab"}, 3)
	if want := []string{"  한", "  국", "  어", "", "  a", "  b"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("code at width 3: got %q, want %q", got, want)
	}
}

func TestRenderInlines(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"**strong** and *em* and _em_ and ~~gone~~", "strong and em and em and gone"},
		{"***both***", "both"},
		{"**a *b* c** and *a **b** c*", "a b c and a b c"},
		{"snake_case_name and 5 * 3 * 2", "snake_case_name and 5 * 3 * 2"},
		{`\*not\* \_em\_ a\b`, `*not* _em_ a\b`},
		{"`a | *b*` and `` `x` ``", "a | *b* and `x`"},
		{"unclosed `tick and **star", "unclosed `tick and **star"},
		{"[text](https://x.org/a_(b)) [same](same) [anchor](#a)", "text (https://x.org/a_(b)) same anchor"},
		{`[t](<a b> "title")`, "t (a b)"},
		{"![alt *x*](i.png)", "[image: alt x] i.png"},
		{"<https://x.org> <me@x.org> <notalink>", "https://x.org me@x.org"},
		{"see https://x.org/a. and (www.x.org)", "see https://x.org/a. and (www.x.org)"},
		{"&amp; &lt;b&gt; &copy; &#65; &#x263A; &bogus; & alone", "& <b> © A ☺ &bogus; & alone"},
		{"a <span class=\"x>y\">b</span> c <3", "a b c <3"},
		{"[not a link] and [x]", "[not a link] and [x]"},
	} {
		if got := strings.Join(plainLines(c.src, 200), "\n"); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.src, got, c.want)
		}
	}
}

// TestRenderStyles checks that styles reach the text they mark, and that
// every line closes what it opens.
func TestRenderStyles(t *testing.T) {
	lines := Render("# Title\n\n**bold** `code` [link](u) ~~x~~ *it*\n\n```\ncode\n```", 40, true)
	got := strings.Join(lines, "\n")
	for _, want := range []string{
		"\x1b[1;30;46m Title \x1b[m",
		"\x1b[1mbold\x1b[m",
		"\x1b[33mcode\x1b[m",
		"\x1b[4;34mlink\x1b[m \x1b[90m(u)\x1b[m",
		"\x1b[9mx\x1b[m",
		"\x1b[3mit\x1b[m",
		"  \x1b[37mcode\x1b[m",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%q", want, got)
		}
	}
	for _, l := range lines {
		if strings.Contains(l, "\x1b[") && !strings.HasSuffix(l, "\x1b[m") {
			t.Errorf("line does not close its style: %q", l)
		}
	}
	if strings.Contains(strings.Join(Render("**bold**", 40, false), ""), "\x1b") {
		t.Error("an escape without color")
	}
}

// TestRenderWidth: no line is wider than asked, at any width, even for
// wide characters, long words, code and tables.
func TestRenderWidth(t *testing.T) {
	md, err := os.ReadFile("testdata/result-look.md")
	if err != nil {
		t.Fatal(err)
	}
	for w := 8; w <= 130; w++ {
		for _, color := range []bool{false, true} {
			for i, l := range Render(string(md), w, color) {
				if lw := ansi.StringWidth(l); lw > w {
					t.Fatalf("width %d, color %v: line %d is %d wide: %q", w, color, i+1, lw, l)
				}
			}
		}
	}
}

// FuzzRender: any input renders without a panic, within the width.
func FuzzRender(f *testing.F) {
	for _, s := range []string{"# h\n- a\n  - b\n> q\n```\nc\n```\n| a | b |\n|---|---|\n| 1 | 2 |", "**a *b** c*", "[a](b", "<a href='x", "&#xFFFFFF;", "1. \n2)", "\t- x\n\t\t- y", "`` ` ``", "*\n*\n*", "> - a\nb"} {
		f.Add(s, 20)
	}
	f.Fuzz(func(t *testing.T, s string, w int) {
		w = 8 + abs(w)%120
		for _, l := range Render(s, w, true) {
			if lw := ansi.StringWidth(l); lw > w {
				t.Fatalf("width %d: a line %d wide: %q", w, lw, l)
			}
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// BenchmarkRender renders the look file (a result with every construct,
// ≈4 KB) and a 1 MB paragraph of openers that never close, which a
// search without bounds would make quadratic.
func BenchmarkRender(b *testing.B) {
	md, err := os.ReadFile("testdata/result-look.md")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, src string }{
		{"look", string(md)},
		{"unclosed-1MB", strings.Repeat("**a *b [c `d _e ~~f ", 1<<20/20)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.src)))
			for b.Loop() {
				Render(c.src, 100, true)
			}
		})
	}
}
