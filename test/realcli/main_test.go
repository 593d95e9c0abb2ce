package realcli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/mockllm"
	"github.com/okstra/cockpit/internal/realcli"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/state"
)

// cockpitBin is the cockpit built once for these tests (they run it as a
// user would: a binary of its own, the real CLIs on its PATH).
var cockpitBin string

func TestMain(m *testing.M) {
	code := func() int {
		if flag.Parse(); testing.Short() {
			return m.Run() // every test skips: no cockpit to build
		}
		dir, err := os.MkdirTemp("", "realcli-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		cockpitBin = filepath.Join(dir, "cockpit")
		build := exec.Command("go", "build", "-o", cockpitBin, "./cmd/cockpit")
		build.Dir = realcli.ModuleRoot()
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build the cockpit: %v\n%s", err, out)
			return 1
		}
		defer fixture.Cleanup()
		return testenv.Private(m).Run()
	}()
	os.Exit(code)
}

// Paths of the run the tests make, project-root-relative.
const (
	jobsFile    = fixture.RunDir + "/state/jobs-realcli.json"
	grokPrompt  = fixture.RunDir + "/prompts/grok-worker-feature-analysis-002.md"
	grokMeta    = fixture.RunDir + "/prompts/grok-worker-feature-analysis-002.meta.json"
	grokResult  = fixture.RunDir + "/worker-results/grok-worker-feature-analysis-002.md"
	idleSeconds = 300
)

// world is one test's run, mock and CLI home.
type world struct {
	t    *testing.T
	root string
	mock *mockllm.Server
	home *realcli.Home
	env  []string
}

// newWorld copies the fixture run into a git work tree, adds a Grok
// analyser to it, writes a jobs file with the four real CLIs' analysers
// (codex, antigravity = gemini, claude, grok), and sets up a mock and a
// private home for the CLIs. extraEnv is added to the cockpit's
// environment (and so to the workers').
func newWorld(t *testing.T, extraEnv ...string) *world {
	t.Helper()
	return newWorldServing(t, "", extraEnv...)
}

// newWorldServing is newWorld with a mock that says model served every
// request ("" echoes the model each request names).
func newWorldServing(t *testing.T, model string, extraEnv ...string) *world {
	t.Helper()
	testenv.SkipShort(t, "the real worker CLIs")
	bin := realcli.Require(t)
	mock, err := mockllm.Start(mockllm.Options{Lifetime: 10 * time.Minute, Model: model})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p := mock.Problems(); len(p) > 0 {
			t.Errorf("the mock got requests it could not answer: %q", p)
		}
		mock.Close()
	})
	root := fixture.Copy(t)
	if git, err := exec.LookPath("git"); err == nil {
		_ = os.Remove(filepath.Join(root, ".git"))
		if out, err := exec.Command(git, "init", "-q", root).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
	}
	addGrok(t, root)
	writeJobs(t, root, "codex", "antigravity", "claude", "grok")
	home, err := realcli.NewHome(filepath.Join(t.TempDir(), "home"), mock.URL(), bin)
	if err != nil {
		t.Fatal(err)
	}
	reg := filepath.Join(t.TempDir(), "registry")
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "COCKPIT_") {
			base = append(base, kv)
		}
	}
	env := home.Env(base, append([]string{"COCKPIT_REGISTRY=" + reg, "COLORTERM=truecolor"}, extraEnv...)...)
	return &world{t: t, root: root, mock: mock, home: home, env: env}
}

// sandboxed is the environment a user running as root in a container
// sets so that claude accepts --permission-mode bypassPermissions there
// (IS_SANDBOX=1). The cockpit never sets it; these tests decide to, as that
// user would, except where they check the refusal.
func sandboxed() []string {
	if realcli.IsRoot() {
		return []string{"IS_SANDBOX=1"}
	}
	return nil
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// addGrok adds a Grok analyser to the run manifest: role execution,
// invocation, prompt and invocation metadata, cloned from the Claude
// analyser's.
func addGrok(t *testing.T, root string) {
	t.Helper()
	mp := filepath.Join(root, fixture.RunManifest)
	var m map[string]any
	readJSON(t, mp, &m)
	var re, inv map[string]any
	for _, r := range m["roleExecutions"].([]any) {
		if r.(map[string]any)["roleExecutionRef"] == "role-execution-004" {
			re = clone(r.(map[string]any))
		}
	}
	for _, i := range m["invocations"].([]any) {
		if i.(map[string]any)["invocationRef"] == "invocation-003" {
			inv = clone(i.(map[string]any))
		}
	}
	re["roleExecutionRef"], re["participantRef"], re["provider"] = "role-execution-007", "participant-006", "grok"
	re["rosterRole"], re["executionLabel"] = "Grok worker", "Grok analyser · grok-code-fast-1"
	re["binding"] = map[string]any{"runner": "cli-wrapper", "resolvedExecutionValue": "grok-code-fast-1"}
	inv["invocationRef"], inv["roleExecutionRef"] = "invocation-006", "role-execution-007"
	m["roleExecutions"] = append(m["roleExecutions"].([]any), re)
	m["invocations"] = append(m["invocations"].([]any), inv)
	writeJSON(t, mp, m)

	claude, err := os.ReadFile(filepath.Join(root, fixture.ClaudePrompt))
	if err != nil {
		t.Fatal(err)
	}
	prompt := strings.NewReplacer("invocation-003", "invocation-006", "claude-worker", "grok-worker").Replace(string(claude))
	if err := os.WriteFile(filepath.Join(root, grokPrompt), []byte(prompt), 0o644); err != nil {
		t.Fatal(err)
	}
	var md map[string]any
	readJSON(t, filepath.Join(root, strings.TrimSuffix(fixture.ClaudePrompt, ".md")+".meta.json"), &md)
	md["invocationRef"], md["roleExecutionRef"], md["participantRef"] = "invocation-006", "role-execution-007", "participant-006"
	md["executionLabel"] = "Grok analyser · grok-code-fast-1"
	md["modelAssignment"] = map[string]any{"provider": "grok", "modelExecutionValue": "grok-code-fast-1", "runner": "cli-wrapper"}
	md["prompt"] = map[string]any{"path": grokPrompt}
	md["promptDigest"] = state.Digest([]byte(prompt))
	md["result"] = map[string]any{"path": grokResult}
	writeJSON(t, filepath.Join(root, grokMeta), md)

	// The roster, as okstra records it in team-state.
	tp := filepath.Join(root, fixture.TeamState)
	var ts map[string]any
	readJSON(t, tp, &ts)
	ts["workers"] = append(ts["workers"].([]any), map[string]any{"role": "Grok worker", "workerId": "grok", "provider": "grok", "model": "grok-code-fast-1"})
	writeJSON(t, tp, ts)
}

func clone(m map[string]any) map[string]any {
	data, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return out
}

// writeJobs writes jobsFile with the initial analysers of providers, each
// under an idle limit a working CLI stays well within.
func writeJobs(t *testing.T, root string, providers ...string) {
	t.Helper()
	var jf map[string]any
	readJSON(t, filepath.Join(root, fixture.JobsInitial), &jf)
	byProvider := map[string]map[string]any{}
	for _, j := range jf["jobs"].([]any) {
		byProvider[j.(map[string]any)["provider"].(string)] = j.(map[string]any)
	}
	byProvider["grok"] = map[string]any{
		"invocationRef": "invocation-006", "roleExecutionRef": "role-execution-007", "participantRef": "participant-006",
		"role": "analyser", "provider": "grok", "modelExecutionValue": "grok-code-fast-1",
		"executionLabel": "Grok analyser · grok-code-fast-1", "promptPath": grokPrompt, "resultPath": grokResult, "metadataPath": grokMeta,
	}
	var jobs []any
	for _, p := range providers {
		j := byProvider[p]
		j["idleTimeoutSeconds"] = idleSeconds
		jobs = append(jobs, j)
	}
	jf["jobs"] = jobs
	writeJSON(t, filepath.Join(root, jobsFile), jf)
}

// result is a finished cockpit command.
type result struct {
	code           int
	stdout, stderr string
}

// cockpit runs a cockpit command on the run with the world's environment.
func (w *world) cockpit(ctx context.Context, args ...string) result {
	w.t.Helper()
	return w.raw(ctx, append(args, "--project-root", w.root, "--run-manifest", fixture.RunManifest)...)
}

// raw runs the cockpit with args as given.
func (w *world) raw(ctx context.Context, args ...string) result {
	w.t.Helper()
	cmd := exec.CommandContext(ctx, cockpitBin, args...)
	cmd.Dir, cmd.Env = w.root, w.env
	cmd.WaitDelay = 10 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
	if err != nil && r.code == 0 {
		w.t.Fatalf("cockpit %s: %v\nstderr: %s", strings.Join(args, " "), err, r.stderr)
	}
	return r
}

// job is what the tests check of one worker.
type job struct {
	provider, cli, prompt string
}

var jobsByProvider = map[string]job{
	"codex":       {"codex", "codex", fixture.CodexPrompt},
	"antigravity": {"antigravity", "gemini", fixture.AntigravityPrompt},
	"claude":      {"claude", "claude", fixture.ClaudePrompt},
	"grok":        {"grok", "grok", grokPrompt},
}

func (j job) result() string {
	if j.provider == "grok" {
		return grokResult
	}
	return strings.Replace(j.prompt, "/prompts/", "/worker-results/", 1)
}

func (w *world) sidecar(j job) *state.Sidecar {
	w.t.Helper()
	sc, err := state.ReadSidecar(filepath.Join(w.root, state.SidecarPath(j.prompt)), "sidecar")
	if err != nil || sc == nil {
		w.t.Fatalf("%s: sidecar: %v", j.provider, err)
	}
	return sc
}

func (w *world) log(j job) string {
	data, _ := os.ReadFile(filepath.Join(w.root, state.LogPath(j.prompt)))
	return string(data)
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// checkCompleted asserts one real worker did its work through the
// cockpit: its result file holds what the mock's tool call wrote, its
// sidecar says completed exit 0 (not an idle timeout), its log holds the
// transcript, and the mock served its conversation a tool call and then
// the final text.
func (w *world) checkCompleted(t *testing.T, j job, d *state.Dispatch) {
	t.Helper()
	sc := w.sidecar(j)
	if sc.Status != state.StatusCompleted || sc.ExitCode == nil || *sc.ExitCode != 0 {
		t.Fatalf("%s: sidecar %s exit %v reason %q\nlog tail:\n%s", j.provider, sc.Status, sc.ExitCode, sc.Reason, tail(w.log(j)))
	}
	if d != nil && (d.Status != state.StatusCompleted || d.Reason != "") {
		t.Errorf("%s: dispatch %s is %s (%q)", j.provider, d.DispatchID, d.Status, d.Reason)
	}
	got, err := os.ReadFile(filepath.Join(w.root, j.result()))
	if err != nil || strings.TrimSpace(string(got)) != strings.TrimSpace(mockllm.ResultContent(j.result())) {
		t.Errorf("%s: result %s: %v %q", j.provider, j.result(), err, got)
	}
	if log := w.log(j); !strings.Contains(log, mockllm.FinalText) {
		t.Errorf("%s: the log lacks the transcript's final text:\n%s", j.provider, tail(log))
	}
	ex := w.mock.For(j.result())
	if len(ex) < 2 || ex[0].Kind != mockllm.KindTool || ex[len(ex)-1].Kind != mockllm.KindText {
		t.Errorf("%s: the mock's exchanges for %s: %+v", j.provider, j.result(), ex)
	}
	// The served model, read from the CLI's own evidence (docs/OKSTRA.md,
	// "Served-model attestation"): what the mock echoed is the bound
	// model, so verified; grok leaves nothing naming one.
	if got, want := compact(t, sc.ServedModelAttestation), servedAttestation[j.provider]; got != want {
		t.Errorf("%s: servedModelAttestation\n got %s\nwant %s", j.provider, got, want)
	}
	if !uuidRE.MatchString(sc.SessionID) {
		t.Errorf("%s: sidecar sessionId %q is not a session UUID", j.provider, sc.SessionID)
	}
	// The sidecar's session id is the one the CLI's own files are filed
	// under (seed 004: what maps a session back to its worker).
	switch j.provider {
	case "claude":
		if !strings.Contains(w.log(j), `"session_id":"`+sc.SessionID+`"`) {
			t.Errorf("claude did not run under the issued session id %s", sc.SessionID)
		}
	case "codex":
		// codex exec takes no id: the sidecar records the one it printed,
		// which names its rollout.
		if m, _ := filepath.Glob(filepath.Join(w.home.CodexHome(), "sessions", "*", "*", "*", "rollout-*-"+sc.SessionID+".jsonl")); len(m) != 1 {
			t.Errorf("codex: no rollout named by the sidecar's session id %s (%v)", sc.SessionID, m)
		}
	case "antigravity":
		// gemini --session-id: its chat recording carries the issued id.
		chats, _ := filepath.Glob(filepath.Join(w.home.GeminiDir(), "tmp", "*", "chats", "session-*.jsonl"))
		found := false
		for _, c := range chats {
			data, _ := os.ReadFile(c)
			found = found || strings.Contains(string(data), `"sessionId":"`+sc.SessionID+`"`)
		}
		if !found {
			t.Errorf("gemini: no chat recording of the issued session id %s among %v", sc.SessionID, chats)
		}
	}
}

// servedAttestation is each real CLI's attestation against the mock
// echoing the model asked for: claude-code 2.1.332 asks for sonnet as
// claude-sonnet-5-5.
var servedAttestation = map[string]string{
	"claude":      `{"observedModel":"claude-sonnet-5-5","normalizedModelRef":"sonnet","level":"verified","source":"stream-json"}`,
	"codex":       `{"observedModel":"gpt-6.1-sol","normalizedModelRef":"gpt-6.1-sol","level":"verified","source":"rollout"}`,
	"antigravity": `{"observedModel":"gemini-3.1-pro","normalizedModelRef":"gemini-3.1-pro","level":"verified","source":"chat-recording"}`,
	"grok":        `{"observedModel":null,"normalizedModelRef":null,"level":"unknown","source":"unavailable"}`,
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("compact %q: %v", raw, err)
	}
	return b.String()
}

func tail(s string) string {
	if len(s) > 3000 {
		s = s[len(s)-3000:]
	}
	return s
}

// dispatchOutput is what worker-dispatch and team await print.
type dispatchOutput struct {
	Dispatches    []state.Dispatch `json:"dispatches"`
	ProgressLines []string         `json:"progressLines"`
}

func (o dispatchOutput) of(t *testing.T, j job) *state.Dispatch {
	t.Helper()
	for i, d := range o.Dispatches {
		if d.PromptPath == j.prompt {
			return &o.Dispatches[i]
		}
	}
	t.Fatalf("no dispatch of %s in %+v", j.prompt, o.Dispatches)
	return nil
}

// events follows `cockpit events --json` of a served run.
type events struct {
	mu    sync.Mutex
	lines []map[string]any
	cmd   *exec.Cmd
}

func (w *world) follow(t *testing.T) *events {
	t.Helper()
	cmd := exec.Command(cockpitBin, "events", "--json", "--project-root", w.root, "--run-manifest", fixture.RunManifest)
	cmd.Dir, cmd.Env = w.root, w.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ev := &events{cmd: cmd}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				ev.mu.Lock()
				ev.lines = append(ev.lines, m)
				ev.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	return ev
}

// seen reports whether an event named name whose data satisfies match was
// printed.
func (e *events) seen(name string, match func(data map[string]any) bool) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, l := range e.lines {
		if l["event"] == name {
			if d, _ := l["data"].(map[string]any); match(d) {
				return true
			}
		}
	}
	return false
}

// lastUsage is the last usage event of dispatch id, or nil.
func (e *events) lastUsage(id string) map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	var last map[string]any
	for _, l := range e.lines {
		if d, _ := l["data"].(map[string]any); l["event"] == "usage" && d["dispatchId"] == id {
			last = d
		}
	}
	return last
}

// waitFor polls cond until it holds or timeout passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
