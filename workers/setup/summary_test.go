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
