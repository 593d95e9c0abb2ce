package usage

import (
	"bufio"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Homes are where the CLIs keep their files, resolved the way each CLI
// resolves them.
type Homes struct {
	Claude string // $CLAUDE_CONFIG_DIR, else ~/.claude
	Codex  string // $CODEX_HOME, else ~/.codex
	Kimi   string // $KIMI_SHARE_DIR, else ~/.kimi
}

// HomesFromEnv resolves Homes from getenv (os.Getenv) and the home
// directory.
func HomesFromEnv(getenv func(string) string) Homes {
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	pick := func(env, dflt string) string {
		if v := getenv(env); v != "" {
			return v
		}
		return filepath.Join(home, dflt)
	}
	return Homes{Claude: pick("CLAUDE_CONFIG_DIR", ".claude"), Codex: pick("CODEX_HOME", ".codex"), Kimi: pick("KIMI_SHARE_DIR", ".kimi")}
}

var notAlnum = regexp.MustCompile(`[^A-Za-z0-9]`)

// ClaudeProjectDir is claude's directory of the sessions started in cwd:
// <claude home>/projects/<cwd with every character that is not a letter or
// a digit replaced by '-'>.
func (h Homes) ClaudeProjectDir(cwd string) string {
	return filepath.Join(h.Claude, "projects", notAlnum.ReplaceAllString(cwd, "-"))
}

// ClaudeSession is the session transcript of session id started in cwd.
func (h Homes) ClaudeSession(cwd, id string) string {
	return filepath.Join(h.ClaudeProjectDir(cwd), id+".jsonl")
}

// FindClaudeSession looks for session id's transcript under any project
// directory (the worker may have run in a worktree); "" when none.
func (h Homes) FindClaudeSession(id string) string {
	m, _ := filepath.Glob(filepath.Join(h.Claude, "projects", "*", id+".jsonl"))
	if len(m) == 0 {
		return ""
	}
	return m[0]
}

// CodexDayDir is codex's directory of the rollouts started on t's local
// date: <codex home>/sessions/YYYY/MM/DD.
func (h Homes) CodexDayDir(t time.Time) string {
	t = t.Local()
	return filepath.Join(h.Codex, "sessions", t.Format("2006"), t.Format("01"), t.Format("02"))
}

// KimiWorkDir is kimi-cli's directory of the sessions started in cwd:
// <kimi home>/sessions/<md5 of cwd>.
func (h Homes) KimiWorkDir(cwd string) string {
	sum := md5.Sum([]byte(cwd))
	return filepath.Join(h.Kimi, "sessions", hex.EncodeToString(sum[:]))
}

// codexSessionRE finds the session id codex exec prints in its header
// ("session id: 0199a213-81c0-7800-8aa1-bbab2a035a53").
var codexSessionRE = regexp.MustCompile(`session id: ([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})`)

// CodexSessionFromLog reads the session id codex exec printed near the
// top of its log; "" when it is not there (yet).
func CodexSessionFromLog(log string) string {
	f, err := os.Open(log)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 32<<10)
	n, _ := f.Read(buf)
	if m := codexSessionRE.FindSubmatch(buf[:n]); m != nil {
		return strings.ToLower(string(m[1]))
	}
	return ""
}

// IsRollout says whether name is a codex rollout file name.
func IsRollout(name string) bool {
	b := filepath.Base(name)
	return strings.HasPrefix(b, "rollout-") && strings.HasSuffix(b, ".jsonl")
}

// RolloutMeta is the session_meta line that opens a rollout.
type RolloutMeta struct {
	ID  string
	Cwd string
	At  time.Time
}

// ReadRolloutMeta reads a rollout's first line; ok is false when it is
// not (yet) a session_meta line.
func ReadRolloutMeta(path string) (RolloutMeta, bool) {
	f, err := os.Open(path)
	if err != nil {
		return RolloutMeta{}, false
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 16<<10)
	line, err := r.ReadSlice('\n')
	if err != nil {
		return RolloutMeta{}, false
	}
	var l struct {
		Type    string `json:"type"`
		Payload struct {
			ID        string `json:"id"`
			Cwd       string `json:"cwd"`
			Timestamp string `json:"timestamp"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &l) != nil || l.Type != "session_meta" {
		return RolloutMeta{}, false
	}
	at, _ := time.Parse(time.RFC3339Nano, l.Payload.Timestamp)
	return RolloutMeta{ID: strings.ToLower(l.Payload.ID), Cwd: l.Payload.Cwd, At: at}, true
}
