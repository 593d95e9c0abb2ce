package usage

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/okstra/cockpit/internal/lazyre"
)

// Homes are where the CLIs keep their files, resolved the way each CLI
// resolves them.
type Homes struct {
	Claude string // $CLAUDE_CONFIG_DIR, else ~/.claude
	Codex  string // $CODEX_HOME, else ~/.codex
	Kimi   string // $KIMI_SHARE_DIR, else ~/.kimi
	Gemini string // $GEMINI_CLI_HOME/.gemini, else ~/.gemini
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
	gemini := filepath.Join(home, ".gemini")
	if v := getenv("GEMINI_CLI_HOME"); v != "" {
		gemini = filepath.Join(v, ".gemini")
	}
	return Homes{Claude: pick("CLAUDE_CONFIG_DIR", ".claude"), Codex: pick("CODEX_HOME", ".codex"), Kimi: pick("KIMI_SHARE_DIR", ".kimi"), Gemini: gemini}
}

var notAlnum = &lazyre.Regexp{Pattern: `[^A-Za-z0-9]`}

// ClaudeProjectDir is claude's directory of the sessions started in cwd:
// <claude home>/projects/<cwd with every character that is not a letter or
// a digit replaced by '-'>.
func (h Homes) ClaudeProjectDir(cwd string) string {
	return filepath.Join(h.Claude, "projects", notAlnum.Get().ReplaceAllString(cwd, "-"))
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
// ("session id: 0199a213-81c0-7800-8aa1-bbab2a035a53"), in text with its
// terminal escapes removed: under a PTY codex writes the label in bold,
// "\x1b[1msession id:\x1b[0m 0199…".
var codexSessionRE = &lazyre.Regexp{Pattern: `session id: ([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})`}

// CodexSessionFromLog reads the session id codex exec printed near the
// top of its log (the first 32 KiB); "" when it is not there (yet).
func CodexSessionFromLog(log string) string {
	f, err := os.Open(log)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 32<<10)
	n, _ := io.ReadFull(f, buf)
	if m := codexSessionRE.Get().FindSubmatch(StripEscapes(buf[:n])); m != nil {
		return strings.ToLower(string(m[1]))
	}
	return ""
}

// codexRerouteRE finds the line codex exec prints when the API answered
// with another model than it asked for (the response's OpenAI-Model
// header): "model rerouted: gpt-6.1-sol -> gpt-6-luna", in text with its
// terminal escapes removed. codex 0.171 keeps only the model it asked for
// in its rollout.
var codexRerouteRE = &lazyre.Regexp{Pattern: `model rerouted: (\S+) -> (\S+)`}

var kwRerouted = []byte("rerouted:")

// CodexRerouteFromLog returns the model codex exec last said its requests
// were rerouted to, read from its log; "" when it said none.
func CodexRerouteFromLog(log string) string {
	f, err := os.Open(log)
	if err != nil {
		return ""
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	last := ""
	for {
		line, err := r.ReadSlice('\n')
		if bytes.Contains(line, kwRerouted) {
			if m := codexRerouteRE.Get().FindSubmatch(StripEscapes(line)); m != nil {
				last = string(m[2])
			}
		}
		if err == bufio.ErrBufferFull {
			continue // a long line: its rest comes as the next slices
		}
		if err != nil {
			return last
		}
	}
}

// StripEscapes returns b without its terminal escape sequences: CSI
// (ESC [ … final byte), OSC, DCS, APC, PM and SOS strings (ended by BEL
// or ESC \), and the other ESC sequences (ESC =, ESC ( B). A sequence cut off at the end of
// b is dropped. b is not changed; when it holds no ESC it is returned as
// is.
func StripEscapes(b []byte) []byte {
	i := bytes.IndexByte(b, 0x1b)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i >= 0 {
		out = append(out, b[:i]...)
		b = b[i+1:]
		if len(b) == 0 {
			break
		}
		switch c := b[0]; c {
		case '[':
			j := 1
			for j < len(b) && (b[j] < 0x40 || b[j] > 0x7e) {
				j++
			}
			b = b[min(j+1, len(b)):]
		case ']', 'P', '_', '^', 'X':
			j := 1
			for j < len(b) && b[j] != 0x07 && !(b[j] == 0x1b && j+1 < len(b) && b[j+1] == '\\') {
				j++
			}
			switch {
			case j >= len(b):
				b = nil
			case b[j] == 0x07:
				b = b[j+1:]
			default:
				b = b[j+2:]
			}
		default: // ESC, intermediates (ESC ( B), a final byte
			j := 0
			for j < len(b) && b[j] >= 0x20 && b[j] <= 0x2f {
				j++
			}
			b = b[min(j+1, len(b)):]
		}
		i = bytes.IndexByte(b, 0x1b)
	}
	return append(out, b...)
}

// firstLine reads path's first line, of any length up to maxLine; ok is
// false when the file holds no whole line (yet).
func firstLine(path string) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.LimitReader(f, maxLine), 64<<10)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil, false
	}
	return line, true
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

// ReadRolloutMeta reads a rollout's first line, of any length (codex
// 0.171's session_meta line carries the base instructions: over 20 KiB);
// ok is false when it is not (yet) a whole session_meta line.
func ReadRolloutMeta(path string) (RolloutMeta, bool) {
	line, ok := firstLine(path)
	if !ok {
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
