package workers

import (
	"os"
	"path/filepath"
	"strings"
)

// Prompt anchor headers the cockpit reads.
const (
	resultPathHeader = "**Result Path:**"
	dutyHeader       = "**Okstra Duty:**"
	invocationHeader = "**Invocation:**"
)

// PromptHeader returns the value of the first `**<Name>:** value` line of a
// prompt, where header is the bold part ("**Result Path:**"). A leading list
// marker and backticks around the value are dropped.
func PromptHeader(prompt, header string) (string, bool) {
	for line := range strings.Lines(prompt) {
		line = strings.TrimSpace(line)
		line = strings.TrimPrefix(line, "- ")
		rest, ok := strings.CutPrefix(line, header)
		if !ok {
			continue
		}
		v := strings.Trim(strings.TrimSpace(rest), "`")
		return strings.TrimSpace(v), true
	}
	return "", false
}

// PromptResultPath returns the prompt's Result Path, as written (usually
// project-root-relative), or "" when the prompt has none.
func PromptResultPath(prompt string) string {
	v, _ := PromptHeader(prompt, resultPathHeader)
	return v
}

// resolveResultPath turns a Result Path into an absolute path the way a
// worker CLI should: absolute as is; relative against the project root the
// wrapper exports as COCKPIT_PROJECT_ROOT, else against the working
// directory (the project root or the worktree).
func resolveResultPath(p string) (string, error) {
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	base := os.Getenv(EnvProjectRoot)
	if base == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		base = wd
	}
	return filepath.Join(base, p), nil
}
