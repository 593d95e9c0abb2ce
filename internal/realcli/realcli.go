// Package realcli sets up the real worker CLIs (claude, codex, gemini,
// grok: the npm packages pinned in testdata/realcli) for tests that run them
// offline against internal/mockllm. It owns two things: finding the pinned
// CLIs (Bin, Require) and building a private home in which every CLI talks
// to the mock and to nothing else (NewHome, Home.Env). It starts no process
// of its own and touches nothing outside the directories it is given.
//
// The traps each CLI sets on a fresh machine (docs/WORKERS.md, "Real CLIs
// offline"), and what the home does about them:
//
//   - claude: ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY; ~/.claude.json with
//     hasCompletedOnboarding (interactive claude otherwise checks a fixed
//     internet address and exits), the mock key approved, and the projects
//     given to TrustClaudeProject trusted; telemetry, the autoupdater and
//     nonessential traffic off. It does not set IS_SANDBOX: as root claude
//     refuses --permission-mode bypassPermissions, and whether to lift that
//     is the caller's decision (Home.Env's extra variables).
//   - codex: CODEX_HOME/config.toml naming a model provider "mock" with the
//     Responses wire API at the mock and its key in MOCK_API_KEY.
//   - gemini: GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL, and
//     ~/.gemini/settings.json selecting the API-key auth (with the base URL
//     alone gemini picks another auth type and refuses it).
//   - grok: GROK_API_KEY and GROK_BASE_URL (OpenAI Chat at <mock>/v1).
//
// Every variable of the caller's environment that could point a CLI
// elsewhere (ANTHROPIC_*, OPENAI_*, CODEX_*, GEMINI_*, GOOGLE_*, GROK_*,
// XAI_*, CLAUDE_*, the outer terminal's TMUX*) is dropped.
package realcli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Names are the real CLIs the package sets up, by the program name the
// cockpit's catalog runs.
var Names = []string{"claude", "codex", "gemini", "grok"}

// EnvBin names a directory holding the CLIs, used instead of the pinned
// install (for trying other versions).
const EnvBin = "COCKPIT_REALCLI_BIN"

// InstallHint is what to do when the pinned CLIs are missing.
const InstallHint = "run npm ci in testdata/realcli"

// APIKey is the key every CLI is given; the mock accepts any.
const APIKey = "sk-mock-0123456789abcdefghij"

// ModuleRoot is the absolute path of the cockpit module in the source tree.
func ModuleRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("realcli: cannot locate its own source file")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// PinnedDir is testdata/realcli, where package.json and package-lock.json
// pin the CLIs' versions.
func PinnedDir() string { return filepath.Join(ModuleRoot(), "testdata", "realcli") }

// Bin returns the directory holding the CLIs: $COCKPIT_REALCLI_BIN when set,
// else testdata/realcli/node_modules/.bin. It is an error naming what to do
// when that directory lacks one of names (all of Names when none is given).
func Bin(names ...string) (string, error) {
	dir := os.Getenv(EnvBin)
	from := EnvBin + "=" + dir
	if dir == "" {
		dir = filepath.Join(PinnedDir(), "node_modules", ".bin")
		from = dir
	}
	if len(names) == 0 {
		names = Names
	}
	var missing []string
	for _, n := range names {
		st, err := os.Stat(filepath.Join(dir, n))
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("real CLI %s not found in %s: %s", strings.Join(missing, ", "), from, InstallHint)
	}
	return dir, nil
}

// Require returns Bin(names...) for a test. When a CLI is missing the test
// fails under CI=true (CI installs them) and is skipped otherwise, with a
// line saying what to run.
func Require(t testing.TB, names ...string) string {
	t.Helper()
	dir, err := Bin(names...)
	if err == nil {
		return dir
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%v (CI=true: the real CLIs must be installed; .ci/run does it)", err)
	}
	t.Skipf("%v", err)
	return ""
}

// Home is a private home directory set up for the real CLIs and a mock.
type Home struct {
	// Dir is the home directory (HOME).
	Dir string
	// MockURL is the mock's base URL, http://127.0.0.1:<port>.
	MockURL string
	// Bin is the directory of the CLIs, put first on PATH; "" leaves PATH.
	Bin string
}

// Paths inside a Home.
func (h *Home) ClaudeJSON() string     { return filepath.Join(h.Dir, ".claude.json") }
func (h *Home) ClaudeDir() string      { return filepath.Join(h.Dir, ".claude") }
func (h *Home) CodexHome() string      { return filepath.Join(h.Dir, ".codex") }
func (h *Home) GeminiDir() string      { return filepath.Join(h.Dir, ".gemini") }
func (h *Home) GeminiSettings() string { return filepath.Join(h.GeminiDir(), "settings.json") }
func (h *Home) TempDir() string        { return filepath.Join(h.Dir, "tmp") }

// NewHome makes dir (created if missing) a home in which every CLI of Names
// talks to the mock at mockURL, and returns it. bin is the CLIs' directory
// (Bin), or "".
func NewHome(dir, mockURL, bin string) (*Home, error) {
	h := &Home{Dir: dir, MockURL: strings.TrimRight(mockURL, "/"), Bin: bin}
	if err := os.MkdirAll(h.CodexHome(), 0o700); err != nil {
		return nil, fmt.Errorf("make the cli home: %w", err)
	}
	if err := os.MkdirAll(h.GeminiDir(), 0o700); err != nil {
		return nil, fmt.Errorf("make the cli home: %w", err)
	}
	if err := os.MkdirAll(h.TempDir(), 0o700); err != nil {
		return nil, fmt.Errorf("make the cli home: %w", err)
	}
	claude := map[string]any{
		"hasCompletedOnboarding":        true,
		"bypassPermissionsModeAccepted": true,
		// claude asks once whether to use an API key from the environment;
		// it remembers the answer by the key's last 20 characters.
		"customApiKeyResponses": map[string]any{"approved": []string{APIKey[len(APIKey)-20:]}, "rejected": []string{}},
		"projects":              map[string]any{},
	}
	if err := writeJSON(h.ClaudeJSON(), claude); err != nil {
		return nil, err
	}
	codex := fmt.Sprintf(`# Written by internal/realcli: codex talks to the mock LLM only.
model_provider = "mock"

[model_providers.mock]
name = "mock"
base_url = %q
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0
`, h.MockURL+"/v1")
	if err := os.WriteFile(filepath.Join(h.CodexHome(), "config.toml"), []byte(codex), 0o600); err != nil {
		return nil, fmt.Errorf("write codex config: %w", err)
	}
	gemini := map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":  map[string]any{"usageStatisticsEnabled": false},
		"general":  map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
	}
	if err := writeJSON(h.GeminiSettings(), gemini); err != nil {
		return nil, err
	}
	return h, nil
}

// TrustClaudeProject records dir as a trusted folder in ~/.claude.json, so
// interactive claude does not open its folder-trust dialog there.
func (h *Home) TrustClaudeProject(dir string) error {
	data, err := os.ReadFile(h.ClaudeJSON())
	if err != nil {
		return fmt.Errorf("read %s: %w", h.ClaudeJSON(), err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("read %s: %w", h.ClaudeJSON(), err)
	}
	projects, _ := m["projects"].(map[string]any)
	if projects == nil {
		projects = map[string]any{}
	}
	projects[dir] = map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true, "allowedTools": []any{}}
	m["projects"] = projects
	return writeJSON(h.ClaudeJSON(), m)
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err == nil {
		err = os.WriteFile(path, append(data, '\n'), 0o600)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// dropPrefixes are the caller's variables that could point a CLI at a real
// account or at the outer terminal.
var dropPrefixes = []string{"ANTHROPIC_", "OPENAI_", "CODEX_", "GEMINI_", "GOOGLE_", "GROK_", "XAI_", "CLAUDE_", "KIMI_", "TMUX", "IS_SANDBOX"}

// dropNames are single variables replaced by the home's.
var dropNames = []string{"HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "MOCK_API_KEY", "TERM_PROGRAM", "KITTY_WINDOW_ID", "NO_COLOR"}

// Vars are the variables the home sets, KEY=VALUE.
func (h *Home) Vars() []string {
	return []string{
		"HOME=" + h.Dir,
		// claude leaves $TMPDIR/claude-<uid> (its file-watch probes) behind:
		// in the home, the test's temporary directory takes it away.
		"TMPDIR=" + h.TempDir(),
		"XDG_CONFIG_HOME=" + filepath.Join(h.Dir, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(h.Dir, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(h.Dir, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(h.Dir, ".local", "state"),
		// claude
		"ANTHROPIC_BASE_URL=" + h.MockURL,
		"ANTHROPIC_API_KEY=" + APIKey,
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		// codex
		"CODEX_HOME=" + h.CodexHome(),
		"MOCK_API_KEY=" + APIKey,
		// gemini
		"GEMINI_API_KEY=" + APIKey,
		"GOOGLE_GEMINI_BASE_URL=" + h.MockURL,
		"GEMINI_CLI_NO_RELAUNCH=true",
		// grok
		"GROK_API_KEY=" + APIKey,
		"GROK_BASE_URL=" + h.MockURL + "/v1",
	}
}

// Env returns base (os.Environ() when nil) with the home's variables in
// place of the caller's, the CLIs' directory first on PATH, and then extra
// (KEY=VALUE, e.g. "IS_SANDBOX=1" for a test that decides to lift claude's
// root check) appended, later entries winning.
func (h *Home) Env(base []string, extra ...string) []string {
	if base == nil {
		base = os.Environ()
	}
	out := make([]string, 0, len(base)+24)
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		if slices.Contains(dropNames, k) || slices.ContainsFunc(dropPrefixes, func(p string) bool { return strings.HasPrefix(k, p) }) {
			continue
		}
		if k == "PATH" && h.Bin != "" {
			kv = "PATH=" + h.Bin + string(os.PathListSeparator) + v
		}
		out = append(out, kv)
	}
	out = append(out, h.Vars()...)
	out = append(out, extra...)
	return dedupe(out)
}

// dedupe keeps the last value of every key, in the order of first sight.
func dedupe(env []string) []string {
	last := map[string]string{}
	var keys []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := last[k]; !ok {
			keys = append(keys, k)
		}
		last[k] = kv
	}
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, last[k])
	}
	return out
}

// IsRoot reports whether the process runs as root, where claude refuses
// --permission-mode bypassPermissions unless IS_SANDBOX=1.
func IsRoot() bool { return os.Geteuid() == 0 }
