package workers

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/state"
)

// execInProcess runs Exec in the test process. Only for invocations the
// preflight refuses: those start nothing and install no signal handler.
func execInProcess(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Exec(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// refused checks a refusal: the exit code, exactly one stderr line with the
// wrapper's prefix and every fragment, nothing on stdout, and no sidecar or
// log beside prompt.
func refused(t *testing.T, prompt string, code int, gotCode int, stdout, stderr string, fragments ...string) {
	t.Helper()
	if gotCode != code {
		t.Errorf("exit %d, want %d (stderr %q)", gotCode, code, stderr)
	}
	if !strings.HasSuffix(stderr, "\n") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr is not exactly one line: %q", stderr)
	}
	if !strings.HasPrefix(stderr, "cockpit worker exec: ") {
		t.Errorf("stderr %q lacks the wrapper prefix", stderr)
	}
	for _, f := range fragments {
		if !strings.Contains(stderr, f) {
			t.Errorf("stderr %q does not contain %q", stderr, f)
		}
	}
	if stdout != "" {
		t.Errorf("stdout %q", stdout)
	}
	if prompt != "" {
		noRunFiles(t, prompt)
	}
}

func TestPreflightCodes(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	prompt := abs(root, fixture.CodexPrompt)
	outside := t.TempDir()
	outsidePrompt := writeFile(t, outside, "p.md", "**Result Path:** r.md\n")
	noResult := writeFile(t, root, "prompts/no-result.md", "**Okstra Duty:** analysis\nno result header\n")
	escapes := writeFile(t, root, "prompts/escapes.md", "**Result Path:** ../../elsewhere.md\n")
	absEscapes := writeFile(t, root, "prompts/abs-escapes.md", "**Result Path:** "+filepath.Join(outside, "r.md")+"\n")
	notDir := writeFile(t, root, "afile", "x")
	if err := os.Symlink(outsidePrompt, filepath.Join(root, "link.md")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		want   []string
		prompt string // the prompt whose sidecar/log must not exist
	}{
		{"no args", nil, 64, []string{"expected 4 to 7 positional arguments, got 0", "usage:"}, ""},
		{"too few", []string{"codex", root, "gpt-6.1-sol"}, 64, []string{"got 3"}, ""},
		{"too many", codexArgs(root, "", "analyser", "5", "extra"), 64, []string{"got 8"}, prompt},
		{"unknown flag", codexArgs(root, "--fast"), 64, []string{"unknown flag --fast"}, prompt},
		{"flag twice", codexArgs(root, "--presentation", "live", "--presentation=quiet"), 64, []string{"--presentation is given twice"}, prompt},
		{"flag without value", codexArgs(root, "--session-id"), 64, []string{"--session-id needs a value"}, prompt},
		{"bad presentation", codexArgs(root, "--presentation", "loud"), 64, []string{`--presentation is "loud"`}, prompt},
		{"bad idle", codexArgs(root, "", "analyser", "ten"), 64, []string{`idle-timeout-s is "ten"`}, prompt},
		{"negative idle", codexArgs(root, "", "analyser", "-5"), 64, []string{`idle-timeout-s is "-5"`}, prompt},
		{"unknown provider", []string{"gpt", root, "gpt-6.1-sol", prompt}, 64, []string{`unknown provider "gpt"`, "codex"}, prompt},
		{"empty provider", []string{"", root, "gpt-6.1-sol", prompt}, 64, []string{"usage: cockpit worker exec <provider>"}, prompt},
		{"unknown role", codexArgs(root, "", "boss"), 64, []string{`unknown role "boss"`}, prompt},
		{"root missing", []string{"codex", filepath.Join(outside, "nope"), "gpt-6.1-sol", prompt}, 65, []string{"project-root", "does not exist"}, prompt},
		{"root is a file", []string{"codex", notDir, "gpt-6.1-sol", prompt}, 65, []string{"not a directory"}, prompt},
		{"root empty", []string{"codex", "", "gpt-6.1-sol", prompt}, 65, []string{"project-root is empty"}, prompt},
		{"model empty", []string{"codex", root, "", prompt}, 66, []string{"model-execution-value is empty"}, prompt},
		{"model unknown", []string{"codex", root, "gpt-7", prompt}, 66, []string{`unknown model "gpt-7" for provider codex`, "gpt-6.1-sol"}, prompt},
		{"model of another provider", []string{"claude", root, "gpt-6.1-sol", prompt}, 66, []string{"provider claude", "opus, sonnet"}, prompt},
		{"prompt empty", []string{"codex", root, "gpt-6.1-sol", ""}, 67, []string{"prompt-path is empty"}, ""},
		{"prompt missing", []string{"codex", root, "gpt-6.1-sol", "prompts/nope.md"}, 67, []string{"prompts/nope.md does not exist"}, abs(root, "prompts/nope.md")},
		{"prompt outside", []string{"codex", root, "gpt-6.1-sol", outsidePrompt}, 67, []string{"outside the project root"}, outsidePrompt},
		{"prompt symlink outside", []string{"codex", root, "gpt-6.1-sol", "link.md"}, 67, []string{"outside the project root"}, outsidePrompt},
		{"prompt dotdot", []string{"codex", root, "gpt-6.1-sol", "../x.md"}, 67, []string{"outside the project root"}, ""},
		{"prompt is a dir", []string{"codex", root, "gpt-6.1-sol", fixture.RunDir}, 67, []string{"not a regular file"}, ""},
		{"no Result Path", []string{"codex", root, "gpt-6.1-sol", noResult}, 67, []string{"has no **Result Path:** line"}, noResult},
		{"Result Path outside", []string{"codex", root, "gpt-6.1-sol", escapes}, 67, []string{"Result Path", "outside the project root"}, escapes},
		{"absolute Result Path outside", []string{"codex", root, "gpt-6.1-sol", absEscapes}, 67, []string{"Result Path", "outside the project root"}, absEscapes},
		{"worktree missing", codexArgs(root, "wt/none"), 68, []string{"worktree-path wt/none does not exist"}, prompt},
		{"worktree is a file", codexArgs(root, notDir), 68, []string{"is not a directory"}, prompt},
		{"worktree outside", codexArgs(root, outside), 68, []string{"outside the project root"}, prompt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errb := execInProcess(tc.args...)
			refused(t, tc.prompt, tc.code, code, out, errb, tc.want...)
		})
	}
}

func TestPreflightUnreadablePrompt(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a mode-000 file")
	}
	t.Parallel()
	root := fixture.Copy(t)
	prompt := abs(root, fixture.CodexPrompt)
	if err := os.Chmod(prompt, 0); err != nil {
		t.Fatal(err)
	}
	code, out, errb := execInProcess(codexArgs(root)...)
	refused(t, prompt, 67, code, out, errb, "unreadable")
}

func TestPreflightBadProviders(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	file := writeFile(t, root, ".cockpit/providers.json", `{"providers": {"codex": {"argv": "codex"}}}`)
	prompt := abs(root, fixture.CodexPrompt)
	code, out, errb := execInProcess(codexArgs(root)...)
	refused(t, prompt, 64, code, out, errb, "load provider catalog", file, "providers.codex.argv")
}

func TestPreflightRoleNotSupported(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	writeFile(t, root, ".cockpit/providers.json", `{"providers": {"codex": {"roles": ["analyser"]}}}`)
	prompt := abs(root, fixture.CodexPrompt)
	code, out, errb := execInProcess(codexArgs(root, "", "verifier")...)
	refused(t, prompt, 64, code, out, errb, `provider "codex" does not support role "verifier"`, "it runs: analyser")
}

// TestPreflightThroughProcess checks one refusal end to end: the exit status
// of the process and its single stderr line.
func TestPreflightThroughProcess(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	w := runWrapper(t, wrapperEnv(t), "codex", root, "gpt-7", abs(root, fixture.CodexPrompt))
	if w.code != 66 || strings.Count(w.stderr.String(), "\n") != 1 || w.stdout.String() != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", w.code, w.stdout, w.stderr)
	}
	noRunFiles(t, abs(root, fixture.CodexPrompt))
}

// editJSON rewrites a JSON file of the copy through fn.
func editJSON(t *testing.T, root, rel string, fn func(m map[string]any)) {
	t.Helper()
	p := filepath.Join(root, rel)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

const codexMeta = fixture.RunDir + "/prompts/codex-worker-feature-analysis-002.meta.json"

// TestPreflightInvocationMetadata: every mismatch between the wrapper's
// arguments, the invocation metadata and the run manifest is refused with 64
// before anything starts.
func TestPreflightInvocationMetadata(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, root string) // changes the copy
		args func(root string) []string      // nil: the codex job's own arguments
		want []string
	}{
		{
			name: "matches",
			want: nil,
		},
		{
			name: "provider",
			args: func(root string) []string {
				return []string{"antigravity", root, "gemini-3.1-pro", abs(root, fixture.CodexPrompt), "", "analyser", "", "--invocation-metadata", codexMeta}
			},
			want: []string{"assigns codex/gpt-6.1-sol", "antigravity/gemini-3.1-pro"},
		},
		{
			name: "model",
			args: func(root string) []string {
				return []string{"codex", root, "gpt-6-astra", abs(root, fixture.CodexPrompt), "", "analyser", "", "--invocation-metadata", codexMeta}
			},
			want: []string{"assigns codex/gpt-6.1-sol", "codex/gpt-6-astra"},
		},
		{
			name: "role against duty",
			args: func(root string) []string {
				return []string{"codex", root, "gpt-6.1-sol", abs(root, fixture.CodexPrompt), "", "verifier", "", "--invocation-metadata", codexMeta}
			},
			want: []string{`duty "analysis" belongs to role analyser`, "role argument is verifier"},
		},
		{
			name: "role missing",
			args: func(root string) []string {
				return []string{"codex", root, "gpt-6.1-sol", abs(root, fixture.CodexPrompt), "--invocation-metadata", codexMeta}
			},
			want: []string{"role is missing"},
		},
		{
			name: "prompt path",
			edit: func(t *testing.T, root string) {
				data, _ := os.ReadFile(abs(root, fixture.CodexPrompt))
				writeFile(t, root, fixture.RunDir+"/prompts/copy.md", string(data))
			},
			args: func(root string) []string {
				return []string{"codex", root, "gpt-6.1-sol", fixture.RunDir + "/prompts/copy.md", "", "analyser", "", "--invocation-metadata", codexMeta}
			},
			want: []string{"prompt.path", "is not the prompt", "prompts/copy.md"},
		},
		{
			name: "role execution",
			edit: func(t *testing.T, root string) {
				editJSON(t, root, codexMeta, func(m map[string]any) { m["roleExecutionRef"] = "role-execution-099" })
			},
			want: []string{`role execution "role-execution-099" is not in the run manifest`},
		},
		{
			name: "role execution of another worker",
			edit: func(t *testing.T, root string) {
				editJSON(t, root, codexMeta, func(m map[string]any) { m["roleExecutionRef"] = "role-execution-003" })
			},
			want: []string{`invocation "invocation-001" belongs to "role-execution-002", not "role-execution-003"`},
		},
		{
			name: "participant",
			edit: func(t *testing.T, root string) {
				editJSON(t, root, codexMeta, func(m map[string]any) { m["participantRef"] = "participant-009" })
			},
			want: []string{`participant "participant-009" does not match`},
		},
		{
			name: "invocation",
			edit: func(t *testing.T, root string) {
				editJSON(t, root, codexMeta, func(m map[string]any) { m["invocationRef"] = "invocation-099" })
			},
			want: []string{`invocation "invocation-099" is not in the run manifest`},
		},
		{
			name: "execution label",
			edit: func(t *testing.T, root string) {
				editJSON(t, root, codexMeta, func(m map[string]any) { m["executionLabel"] = "Codex analyser · gpt-6-astra" })
			},
			want: []string{`execution label "Codex analyser · gpt-6-astra" does not match`},
		},
		{
			name: "runner",
			edit: func(t *testing.T, root string) {
				editJSON(t, root, codexMeta, func(m map[string]any) {
					m["modelAssignment"].(map[string]any)["runner"] = "native-session"
				})
			},
			want: []string{`runner "native-session" does not match the run manifest's "cli-wrapper"`},
		},
		{
			name: "manifest binding",
			edit: func(t *testing.T, root string) {
				editJSON(t, root, fixture.RunManifest, func(m map[string]any) {
					re := m["roleExecutions"].([]any)[1].(map[string]any)
					re["binding"].(map[string]any)["resolvedExecutionValue"] = "gpt-6-astra"
				})
			},
			want: []string{`model "gpt-6.1-sol" does not match the run manifest's "gpt-6-astra"`},
		},
		{
			name: "v1 manifest",
			edit: func(t *testing.T, root string) {
				editJSON(t, root, fixture.RunManifest, func(m map[string]any) { m["executionIdentityVersion"] = 1 })
			},
			want: []string{"--invocation-metadata needs a v2 run manifest", "executionIdentityVersion 1"},
		},
		{
			name: "v1 metadata",
			edit: func(t *testing.T, root string) {
				editJSON(t, root, codexMeta, func(m map[string]any) { delete(m, "executionIdentityVersion") })
			},
			want: []string{"invocation metadata is invalid", "not v2 invocation metadata"},
		},
		{
			name: "malformed metadata",
			edit: func(t *testing.T, root string) { writeFile(t, root, codexMeta, "{not json") },
			want: []string{"invocation metadata is invalid", "malformed JSON"},
		},
		{
			name: "metadata missing",
			edit: func(t *testing.T, root string) { _ = os.Remove(filepath.Join(root, codexMeta)) },
			want: []string{"invocation metadata is invalid", "does not exist"},
		},
		{
			name: "manifest outside the root",
			edit: func(t *testing.T, root string) {
				editJSON(t, root, codexMeta, func(m map[string]any) {
					m["contractSource"].(map[string]any)["runManifestPath"] = "../elsewhere/run-manifest.json"
				})
			},
			want: []string{"contractSource.runManifestPath", "outside the project root"},
		},
		{
			name: "manifest missing",
			edit: func(t *testing.T, root string) { _ = os.Remove(filepath.Join(root, fixture.RunManifest)) },
			want: []string{"contractSource.runManifestPath", "does not exist"},
		},
		{
			name: "metadata outside the root",
			args: func(root string) []string {
				out := writeFile(t, t.TempDir(), "m.json", "{}")
				return []string{"codex", root, "gpt-6.1-sol", abs(root, fixture.CodexPrompt), "", "analyser", "", "--invocation-metadata", out}
			},
			want: []string{"--invocation-metadata", "outside the project root"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := fixture.Copy(t)
			if tc.edit != nil {
				tc.edit(t, root)
			}
			args := []string{"codex", root, "gpt-6.1-sol", abs(root, fixture.CodexPrompt), "", "analyser", "", "--invocation-metadata", codexMeta}
			if tc.args != nil {
				args = tc.args(root)
			}
			prompt := abs(root, fixture.CodexPrompt)
			a, perr := parseExecArgs(args)
			if perr == nil {
				_, perr = preflight(a)
			}
			if tc.want == nil {
				if perr != nil {
					t.Fatalf("refused a matching invocation: %v", perr)
				}
				return
			}
			code, out, errb := execInProcess(args...)
			refused(t, prompt, 64, code, out, errb, tc.want...)
		})
	}
}

// TestFixtureConsistent: the fixture's jobs, metadata and manifest agree,
// as state and the wrapper's preflight check them.
func TestFixtureConsistent(t *testing.T) {
	t.Parallel()
	root := fixture.Copy(t)
	run, err := state.LoadRun(root, fixture.RunManifest)
	if err != nil {
		t.Fatal(err)
	}
	if !run.Manifest.IsV2() || run.Manifest.TerminalBackend != state.BackendCLIWrapper {
		t.Fatalf("manifest v2 %v backend %q", run.Manifest.IsV2(), run.Manifest.TerminalBackend)
	}
	if _, err := os.Stat(filepath.Join(root, fixture.LeadEvents)); err == nil {
		t.Errorf("%s exists; the first dispatch creates it", fixture.LeadEvents)
	}
	// The roster is team-state's workers[], as okstra's prepare writes it.
	ts, err := state.ReadTeamState(filepath.Join(root, fixture.TeamState), fixture.TeamState)
	if err != nil {
		t.Fatal(err)
	}
	cat := BuiltinCatalog()
	kinds := map[string]state.DispatchKind{fixture.JobsInitial: state.DispatchInitial, fixture.JobsReverify: state.ReverifyKind(1), fixture.JobsReportWriter: state.DispatchReportWriter}
	counts := map[string]int{fixture.JobsInitial: 3, fixture.JobsReverify: 1, fixture.JobsReportWriter: 1}
	rosters := map[string]bool{}
	for file, kind := range kinds {
		jf, jobs, err := state.LoadJobs(run, file, kind)
		if err != nil {
			t.Fatal(err)
		}
		if jf.DispatchKind != kind || len(jobs) != counts[file] {
			t.Fatalf("%s: kind %q, %d jobs", file, jf.DispatchKind, len(jobs))
		}
		for _, j := range jobs {
			roster, err := state.RosterFor(run.Manifest, ts, j.Job)
			if err != nil {
				t.Fatal(err)
			}
			rosters[roster] = true
			if j.IdleTimeoutSeconds <= 0 {
				t.Errorf("%s: %s has no idle timeout", file, j.InvocationRef)
			}
			if err := cat.CheckModel(j.Provider, j.ModelExecutionValue); err != nil {
				t.Errorf("%s: %v", file, err)
			}
			md, err := state.ReadInvocationMetadata(j.Metadata, j.MetadataPath)
			if err != nil {
				t.Fatal(err)
			}
			if err := run.Manifest.CheckIdentity(md.Identity(j.Role)); err != nil {
				t.Errorf("%s: %v", j.MetadataPath, err)
			}
			if !md.PromptMatches(run.Root, j.Prompt) {
				t.Errorf("%s: prompt.path %s is not the job's prompt", j.MetadataPath, md.Prompt.Path)
			}
			data, _ := os.ReadFile(j.Prompt)
			if PromptResultPath(string(data)) != j.ResultPath {
				t.Errorf("%s: Result Path %q, job %q", j.PromptPath, PromptResultPath(string(data)), j.ResultPath)
			}
			for _, h := range []string{"**Okstra Duty:** " + md.DutyID, "**Invocation:** " + j.InvocationRef, "**Errors log path:**", "**Fake Behaviour:** ok"} {
				if !strings.Contains(string(data), h) {
					t.Errorf("%s lacks %q", j.PromptPath, h)
				}
			}
			a, perr := parseExecArgs(ExecArgs(root, j, PresentationQuiet))
			if perr == nil {
				_, perr = preflight(a)
			}
			if perr != nil {
				t.Errorf("%s: preflight refused the fixture job: %v", j.PromptPath, perr)
			}
		}
	}
	for _, r := range []string{"Codex worker", "Antigravity worker", "Claude worker", "Report writer worker"} {
		if !rosters[r] {
			t.Errorf("no job has roster role %q", r)
		}
	}
	fixture.SetTerminalBackend(t, root, state.BackendCockpitPane)
	run, err = state.LoadRun(root, fixture.RunManifest)
	if err != nil || run.Manifest.TerminalBackend != state.BackendCockpitPane {
		t.Fatalf("flipped backend: %v, %v", err, run)
	}
}
