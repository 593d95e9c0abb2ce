package usage

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/workers"
)

// TestSimLeavesClaudeShape: the sim provider writes, beside its prompt,
// usage the tracker reads as a claude session, priced at the sim's price.
func TestSimLeavesClaudeShape(t *testing.T) {
	dir := t.TempDir()
	prompt := filepath.Join(dir, "w.prompt.md")
	text := "**Result Path:** " + filepath.Join(dir, "result.md") + "\n"
	os.WriteFile(prompt, []byte(text), 0o644)
	t.Setenv(workers.EnvPromptPath, prompt)
	if code := workers.RunSim([]string{"--model", "sim-ok-50ms"}, strings.NewReader(text), io.Discard, io.Discard); code != 0 {
		t.Fatalf("sim exit %d", code)
	}
	tr := NewTracker(workers.BuiltinCatalog(), testHomes(t))
	w := tr.Add(Dispatch{ID: "s1", Provider: "sim", Model: "sim-ok-50ms", Prompt: prompt, Started: time.Now()})
	if len(w) != 1 || w[0].Path != SimUsagePath(prompt) {
		t.Fatalf("watches = %v", w)
	}
	u := tr.Usage()["s1"]
	// One message at the start and one per tool line (5), each with
	// (90+30n)×scale output tokens, scale 10–19 by the model's name.
	scale := u.Output / (6*90 + 30*21)
	if u.Source != "claude session" || u.Model != "sim-ok-50ms" || !u.Priced || u.CostUSD <= 0 || scale < 10 || scale > 19 || u.Output != scale*(6*90+30*21) {
		t.Fatalf("usage = %+v", u)
	}
}
