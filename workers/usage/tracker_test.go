package usage

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/okstra/cockpit/workers"
)

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func testHomes(t *testing.T) Homes {
	home := t.TempDir()
	return HomesFromEnv(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
}

// TestTrackCodexBySessionID: two codex workers in one directory; each
// rollout goes to the worker whose log printed its session id, whatever
// order the rollouts appear in.
func TestTrackCodexBySessionID(t *testing.T) {
	h := testHomes(t)
	dir := t.TempDir()
	start := time.Now()
	tr := NewTracker(workers.BuiltinCatalog(), h)
	ids := []string{"0199d2a4-6b1e-7c33-9f10-3e5d8c2b7a40", "0199d2a4-6b1e-7c33-9f10-3e5d8c2b7a41"}
	var watches []Watch
	for i, id := range ids {
		log := filepath.Join(dir, "w"+string(rune('a'+i))+".log")
		os.WriteFile(log, []byte("OpenAI Codex v0.155.0 (research preview)\r\n--------\r\nworkdir: "+dir+"\r\nmodel: gpt-6.1-sol\r\nsession id: "+id+"\r\n--------\r\n"), 0o644)
		watches = append(watches, tr.Add(Dispatch{ID: "d" + string(rune('1'+i)), Provider: "codex", Model: "gpt-6.1-sol", Log: log, Cwd: dir, Started: start})...)
	}
	day := h.CodexDayDir(start)
	if !slices.Contains(watches, Watch{Path: day, Dir: true}) {
		t.Fatalf("watches %v do not include the day directory %s", watches, day)
	}
	// The second worker's rollout appears first.
	second := filepath.Join(day, "rollout-2026-11-30T09-10-00-"+ids[1]+".jsonl")
	copyFile(t, "testdata/codex-rollout.jsonl", second)
	if changed, more := tr.Changed(second); !changed || len(more) != 1 || more[0].Path != second {
		t.Fatalf("Changed(second) = %v, %v", changed, more)
	}
	u := tr.Usage()
	if _, ok := u["d1"]; ok || u["d2"].Output != 2100 {
		t.Fatalf("usage = %+v, want d2 only", u)
	}
	first := filepath.Join(day, "rollout-2026-11-30T09-10-01-"+ids[0]+".jsonl")
	copyFile(t, "testdata/codex-rollout.jsonl", first)
	tr.Changed(first)
	if u := tr.Usage(); u["d1"].Output != 2100 || !u["d1"].Priced {
		t.Fatalf("usage = %+v, want d1 priced", u)
	}
	// An event on an associated rollout reads what it appended.
	f, _ := os.OpenFile(first, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":40000,"cached_input_tokens":20000,"output_tokens":3000}}}}` + "\n")
	f.Close()
	if changed, _ := tr.Changed(first); !changed {
		t.Fatal("no change after an append")
	}
	if u := tr.Usage(); u["d1"].Output != 3000 || u["d2"].Output != 2100 {
		t.Fatalf("usage = %+v", u)
	}
}

// TestTrackCodexByCwd: with no session id in the log, the one codex worker
// of a directory gets the rollout whose session_meta names that directory;
// a rollout of another directory is nobody's.
func TestTrackCodexByCwd(t *testing.T) {
	h := testHomes(t)
	start, _ := time.Parse(time.RFC3339, "2026-11-30T09:09:59Z")
	tr := NewTracker(workers.BuiltinCatalog(), h)
	tr.Add(Dispatch{ID: "d1", Provider: "codex", Model: "gpt-6.1-sol", Log: "/nonexistent.log", Cwd: "/elsewhere", Started: start})
	day := h.CodexDayDir(start)
	p := filepath.Join(day, "rollout-2026-11-30T09-10-00-0199d2a4-6b1e-7c33-9f10-3e5d8c2b7a40.jsonl")
	copyFile(t, "testdata/codex-rollout.jsonl", p) // its cwd is /home/dev/proj
	if changed, _ := tr.Changed(p); changed {
		t.Fatal("a rollout of another directory was taken")
	}
	tr.Add(Dispatch{ID: "d2", Provider: "codex", Model: "gpt-6.1-sol", Log: "/nonexistent.log", Cwd: "/home/dev/proj", Started: start})
	// Add looked at what the day directory holds already.
	if u := tr.Usage(); u["d2"].Cached != 14080 || len(u) != 1 {
		t.Fatalf("usage = %+v, want d2's", u)
	}
}

// TestTrackClaudeSession: a provider whose argv passes {sessionId} to
// claude without stream-json is read from the session transcript, which
// may appear after Add.
func TestTrackClaudeSession(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".cockpit"), 0o755)
	os.WriteFile(filepath.Join(root, ".cockpit", "providers.json"), []byte(`{"providers": {"claude": {"argv": ["claude", "-p", "--model", "{model}", "--session-id", "{sessionId}"]}}}`), 0o644)
	cat, err := workers.LoadCatalog(root)
	if err != nil {
		t.Fatal(err)
	}
	h := testHomes(t)
	tr := NewTracker(cat, h)
	id := "5b1f3c3e-2f4a-4d0e-9a59-0d3c2f6b8a11"
	w := tr.Add(Dispatch{ID: "d1", Provider: "claude", Model: "sonnet", Cwd: root, SessionID: id, Started: time.Now()})
	want := filepath.Join(h.Claude, "projects", notAlnum.Get().ReplaceAllString(root, "-"), id+".jsonl")
	if len(w) != 1 || w[0].Path != want {
		t.Fatalf("watches = %v, want %s", w, want)
	}
	copyFile(t, "testdata/claude-session.jsonl", want)
	if changed, _ := tr.Changed(want); !changed {
		t.Fatal("no change")
	}
	if u := tr.Usage()["d1"]; u.Output != 850 || !u.Priced || u.Source != "claude session" {
		t.Fatalf("usage = %+v", u)
	}
}

// TestTrackKimi: a new session directory under kimi's directory of the
// worker's cwd is tied to it; its wire.jsonl is then followed.
func TestTrackKimi(t *testing.T) {
	h := testHomes(t)
	tr := NewTracker(workers.BuiltinCatalog(), h)
	cwd := "/home/dev/proj"
	w := tr.Add(Dispatch{ID: "k1", Provider: "kimi", Model: "kimi-k2-thinking", Cwd: cwd, Started: time.Now().Add(-time.Second)})
	work := h.KimiWorkDir(cwd)
	if len(w) != 1 || w[0] != (Watch{Path: work, Dir: true}) {
		t.Fatalf("watches = %v", w)
	}
	sess := filepath.Join(work, "3f2a0c1e-0000-4000-8000-00000000000a")
	os.MkdirAll(sess, 0o755)
	changed, more := tr.Changed(sess)
	if !changed || len(more) != 1 || more[0].Path != filepath.Join(sess, "wire.jsonl") {
		t.Fatalf("Changed(session dir) = %v, %v", changed, more)
	}
	copyFile(t, "testdata/kimi-wire.jsonl", more[0].Path)
	tr.Changed(more[0].Path)
	if u := tr.Usage()["k1"]; u.Input != 6100 || u.Output != 950 || u.Priced {
		t.Fatalf("usage = %+v", u)
	}
}

// TestTrackNone: providers that leave no evidence the cockpit reads
// (grok) add nothing to watch.
func TestTrackNone(t *testing.T) {
	tr := NewTracker(workers.BuiltinCatalog(), testHomes(t))
	for _, p := range []string{"grok"} {
		if w := tr.Add(Dispatch{ID: p, Provider: p, Log: "/x.log"}); len(w) != 0 {
			t.Errorf("%s: watches %v", p, w)
		}
	}
}

// TestSettledStopsWaiting: a codex worker that ended without a rollout
// takes one last look (and finds one written meanwhile), or stops waiting:
// a later rollout in its directory is not offered to it.
func TestSettledStopsWaiting(t *testing.T) {
	h := testHomes(t)
	start, _ := time.Parse(time.RFC3339, "2026-11-30T09:09:59Z")
	tr := NewTracker(workers.BuiltinCatalog(), h)
	day := h.CodexDayDir(start)
	tr.Add(Dispatch{ID: "late", Provider: "codex", Model: "gpt-6.1-sol", Log: "/nonexistent.log", Cwd: "/home/dev/proj", Started: start})
	// Written with no event seen (the watch was not in place yet).
	copyFile(t, "testdata/codex-rollout.jsonl", filepath.Join(day, "rollout-2026-11-30T09-10-00-0199d2a4-6b1e-7c33-9f10-3e5d8c2b7a40.jsonl"))
	if w := tr.Settled("late"); len(w) != 1 || tr.Usage()["late"].Output != 2100 {
		t.Fatalf("Settled = %v, usage %+v; want the rollout found", w, tr.Usage())
	}
	tr.Add(Dispatch{ID: "gone", Provider: "codex", Model: "gpt-6.1-sol", Log: "/nonexistent.log", Cwd: "/home/dev/other", Started: start})
	tr.Settled("gone")
	p := filepath.Join(day, "rollout-2026-11-30T09-20-00-0199d2a4-6b1e-7c33-9f10-3e5d8c2b7a49.jsonl")
	os.WriteFile(p, []byte(`{"type":"session_meta","payload":{"id":"0199d2a4-6b1e-7c33-9f10-3e5d8c2b7a49","cwd":"/home/dev/other"}}`+"\n"), 0o644)
	if changed, _ := tr.Changed(p); changed {
		t.Fatal("a settled worker took a rollout written after it ended")
	}
	if _, ok := tr.Usage()["gone"]; ok {
		t.Fatal("usage for a settled worker without evidence")
	}
}

// TestSettledFreezes: a settled worker keeps its figures when a new
// attempt of its prompt starts the log again; the new attempt's worker
// reads the new log alone.
func TestSettledFreezes(t *testing.T) {
	tr := NewTracker(workers.BuiltinCatalog(), testHomes(t))
	log := filepath.Join(t.TempDir(), "w.md.log")
	line := func(id string, in int) string {
		return `{"type":"assistant","message":{"id":"` + id + `","model":"claude-sonnet-4-6","usage":{"input_tokens":` + strconv.Itoa(in) + `,"output_tokens":1}}}` + "\r\n"
	}
	os.WriteFile(log, []byte(line("a", 5000)), 0o644)
	tr.Add(Dispatch{ID: "d1", Provider: "claude", Model: "sonnet", Log: log})
	// Its last line arrives with no event seen before it ends.
	f, _ := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line("b", 1000))
	f.Close()
	tr.Settled("d1")
	if u := tr.Usage()["d1"]; u.Input != 6000 {
		t.Fatalf("settled usage = %+v, want the last line read", u)
	}
	os.WriteFile(log, []byte(line("c", 7)), 0o644) // the next attempt
	tr.Add(Dispatch{ID: "d2", Provider: "claude", Model: "sonnet", Log: log})
	tr.Changed(log)
	if u := tr.Usage(); u["d1"].Input != 6000 || u["d2"].Input != 7 {
		t.Fatalf("usage = %+v", u)
	}
}

// TestRelocateClaudeSession: a claude worker read from its transcript
// whose CLI turns out to run in a worktree is followed there, live; one
// whose transcript was found stays where it is, and a stream-json worker
// is not moved.
func TestRelocateClaudeSession(t *testing.T) {
	h := testHomes(t)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".cockpit"), 0o755)
	os.WriteFile(workers.ProjectProvidersFile(root), []byte(`{"providers": {"claude": {"argv": ["claude", "-p", "--model", "{model}", "--session-id", "{sessionId}"]}}}`), 0o644)
	cat, err := workers.LoadCatalog(root)
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTracker(cat, h)
	id := "5b1f3c3e-2f4a-4d0e-9a59-0d3c2f6b8a11"
	tr.Add(Dispatch{ID: "c1", Provider: "claude", Model: "sonnet", Cwd: root, SessionID: id})
	wt := filepath.Join(root, "wt")
	w := tr.Relocate("c1", wt)
	want := h.ClaudeSession(wt, id)
	if len(w) != 1 || w[0] != (Watch{Path: want}) {
		t.Fatalf("Relocate = %v, want a watch of %s", w, want)
	}
	copyFile(t, filepath.Join(realDir, realClaudeID+".jsonl"), want)
	if changed, _ := tr.Changed(want); !changed {
		t.Fatal("the worktree's transcript was not read")
	}
	if u := tr.Usage()["c1"]; u.Output != 2*mockOut || u.CostSource != CostCLI {
		t.Fatalf("usage = %+v", u)
	}
	if w := tr.Relocate("c1", filepath.Join(root, "other")); w != nil {
		t.Fatalf("a found transcript moved: %v", w)
	}
	b := NewTracker(workers.BuiltinCatalog(), h)
	b.Add(Dispatch{ID: "s1", Provider: "claude", Model: "sonnet", Log: filepath.Join(realDir, "claude-stream.log"), Cwd: root})
	if w := b.Relocate("s1", wt); w != nil || b.Usage()["s1"].Output != 2*mockOut {
		t.Fatalf("a stream-json worker relocated: %v, %+v", w, b.Usage())
	}
	if w := tr.Relocate("nobody", wt); w != nil {
		t.Fatalf("Relocate of an unknown id = %v", w)
	}
}
