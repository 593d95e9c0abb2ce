package setup

import (
	"strings"
	"testing"
)

// TestSummaryWrapsOnWords: at any width a row's value wraps at its spaces,
// under itself, and never inside a word: no model name is split.
func TestSummaryWrapsOnWords(t *testing.T) {
	o := &Outcome{
		TaskKey: "dev-10860", TaskType: "implementation", RelatedTasks: []string{}, Workers: []string{"claude", "codex"},
		RoleModels: []string{"verifier=codex/gpt-6-astra", "implementer=codex/gpt-6-astra", "analyser=claude/claude-opus-4-7"},
	}
	texts, err := LoadTexts("en")
	if err != nil {
		t.Fatal(err)
	}
	for width := 30; width <= 90; width++ {
		sum := Summary(texts, o, SummaryStyle{}, width)
		for _, m := range o.RoleModels {
			if !strings.Contains(sum, m) {
				t.Fatalf("width %d: %q split:\n%s", width, m, sum)
			}
		}
		for _, l := range strings.Split(sum, "\n") {
			// Rows are label (17 cells here) and value; a value of one
			// word wider than the line may stay longer, whole.
			if displayWidth(l) > width && len(l) > 17 && strings.Contains(strings.TrimSpace(l[17:]), " ") && !strings.Contains(l, "render-bundle") {
				t.Fatalf("width %d: line of %d cells: %q", width, displayWidth(l), l)
			}
		}
	}
	sum := Summary(texts, o, SummaryStyle{}, 60)
	want := "Role models      verifier=codex/gpt-6-astra,\n                 implementer=codex/gpt-6-astra,\n                 analyser=claude/claude-opus-4-7\n"
	if !strings.Contains(sum, want) {
		t.Fatalf("at 60 columns the role models are not wrapped under themselves:\n%s", sum)
	}
	if !strings.Contains(sum, "Related tasks    (none)\n") {
		t.Fatalf("no related tasks:\n%s", sum)
	}
}

func TestStepNumbers(t *testing.T) {
	seen := map[string]bool{}
	whole := 0
	for _, id := range allSteps {
		n := StepNumber(id)
		if n == "" || seen[n] {
			t.Fatalf("step %s has number %q", id, n)
		}
		seen[n] = true
		if !strings.ContainsAny(n, "abc") {
			whole++
		}
	}
	if whole != TotalSteps {
		t.Fatalf("%d numbered steps, TotalSteps %d", whole, TotalSteps)
	}
}

// TestSummaryLongDirectiveNotCut (issue 17 item 9): a directive wider than
// the summary (Korean here) is shown whole in the render-bundle command,
// wrapped at its spaces, at 60 columns: no line is wider, no word is lost.
func TestSummaryLongDirectiveNotCut(t *testing.T) {
	dir := "결제 모듈의 환불 처리 흐름을 분석하고 중복 환불이 생기는 경로를 모두 찾아 보고서에 정리해 주세요"
	out, err := RunAnswers(testOptions("ko"), "a.json", []byte(`{"taskKey": "x", "directive": "`+dir+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	texts, _ := LoadTexts("ko")
	sum := Summary(texts, out, SummaryStyle{}, 58)
	cmd := sum[strings.Index(sum, "okstra render-bundle"):]
	for _, l := range strings.Split(sum, "\n") {
		if displayWidth(l) > 58 {
			t.Errorf("a line of %d columns: %q", displayWidth(l), l)
		}
	}
	for _, w := range strings.Fields(dir) {
		if !strings.Contains(cmd, w) {
			t.Errorf("the command lost %q:\n%s", w, cmd)
		}
	}
	if strings.Contains(cmd, "…") {
		t.Errorf("the command is cut:\n%s", cmd)
	}
}
