package workers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/okstra/cockpit/internal/lazyre"
)

// DefaultLogLimit is the size at which a worker's log is rotated:
// <prompt>.log becomes <prompt>.log.1 (replacing an older one) and a fresh
// <prompt>.log starts, so a worker keeps at most twice this on disk.
// EnvLogLimit (bytes) changes it; tests shorten it. See DECISIONS.md.
const DefaultLogLimit = 64 << 20

// EnvLogLimit is the variable that sets the log rotation size in bytes.
const EnvLogLimit = "COCKPIT_LOG_LIMIT"

// logFile is a worker's log: created 0600, never through a symlink, rotated
// at limit bytes.
type logFile struct {
	path  string
	limit int64
	f     *os.File
	n     int64
	err   error // the first write error, reported once
}

// openLog creates (truncates) the log at path. A symlink planted there is
// removed, not followed: the log is always a regular file of its own, so
// worker output never lands outside the project through it.
func openLog(path string, limit int64) (*logFile, error) {
	l := &logFile{path: path, limit: limit}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		st, lerr := os.Lstat(path)
		if lerr != nil || st.Mode().IsRegular() {
			return nil, err
		}
		if st.IsDir() {
			return nil, fmt.Errorf("%s is a directory", path)
		}
		// A symlink, FIFO or socket where the log goes: replace it.
		if rerr := os.Remove(path); rerr != nil {
			return nil, fmt.Errorf("%s is %s and cannot be replaced: %w", path, fileKind(st.Mode()), rerr)
		}
		if f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600); err != nil {
			return nil, err
		}
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is %s", path, fileKind(st.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	// An existing log keeps its mode through O_TRUNC: make it private too.
	_ = f.Chmod(0o600)
	l.f = f
	return l, nil
}

func (l *logFile) Write(p []byte) (int, error) {
	if l.f == nil {
		return len(p), nil
	}
	if l.limit > 0 && l.n > 0 && l.n+int64(len(p)) > l.limit {
		l.rotate()
	}
	n, err := l.f.Write(p)
	l.n += int64(n)
	if err != nil && l.err == nil {
		l.err = err
	}
	return len(p), nil
}

func (l *logFile) rotate() {
	_ = l.f.Close()
	// rename replaces whatever is at .1, a planted symlink included, without
	// following it.
	if err := os.Rename(l.path, l.path+".1"); err != nil && l.err == nil {
		l.err = err
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		l.f = nil
		if l.err == nil {
			l.err = err
		}
		return
	}
	l.f, l.n = f, 0
}

func (l *logFile) Close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}

// Bounds of what the wrapper keeps of the CLI's output in memory.
const (
	headKeep   = 64 << 10 // the start, where CLIs print their session id
	tailKeep   = 16 << 10 // the end, where the last error line is
	maxLineLen = 300      // the longest error line a reason carries
)

// transcript keeps the head and the tail of the CLI's output.
type transcript struct {
	mu   sync.Mutex
	head []byte
	tail []byte
}

func (t *transcript) add(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if room := headKeep - len(t.head); room > 0 {
		t.head = append(t.head, p[:min(room, len(p))]...)
	}
	t.tail = append(t.tail, p...)
	if over := len(t.tail) - tailKeep; over > 0 {
		t.tail = append(t.tail[:0], t.tail[over:]...)
	}
}

func (t *transcript) snapshot() (head, tail []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.head), bytes.Clone(t.tail)
}

// escRE matches terminal escape sequences: CSI, OSC (BEL or ST ended), and
// other two-byte escapes.
var escRE = &lazyre.Regexp{Pattern: `\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P^_][^\x1b]*\x1b\\|\x1b[@-Z\\-_]|\x1b[ -/][0-~]`}

// plainLines turns raw terminal output into its lines of text: escapes
// removed, a carriage return keeping what was drawn after it, other control
// characters dropped, invalid UTF-8 replaced.
func plainLines(raw []byte) []string {
	s := escRE.Get().ReplaceAllString(strings.ToValidUTF8(string(raw), "\uFFFD"), "")
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimRight(line, "\r")
		if i := strings.LastIndexByte(line, '\r'); i >= 0 {
			line = line[i+1:]
		}
		line = strings.Map(func(r rune) rune {
			if r < 0x20 && r != '\t' || r == 0x7f {
				return -1
			}
			return r
		}, line)
		out = append(out, strings.Join(strings.Fields(line), " "))
	}
	return out
}

// errorWordRE recognises a line that reports a failure.
var errorWordRE = &lazyre.Regexp{Pattern: `(?i)\b(error|errors|fail(ed|s|ure)?|cannot|can't|could not|unable|not supported|not (inside|running|allowed|found|trusted)|refus\w*|invalid|denied|forbidden|unauthori[sz]ed|must|missing|exceeded|panic|fatal)\b`}

// strongErrorRE recognises a line that announces an error outright
// ("ERROR …", "Error: …", "fatal: …"): it wins over a later line that only
// mentions a failure (Ink's "Read about how to prevent this error").
var strongErrorRE = &lazyre.Regexp{Pattern: `(?i)^\W{0,4}(error|fatal|panic)\b|\b\w*Error:`}

// stackLineRE recognises the frames of a stack trace, which are never the
// message.
var stackLineRE = &lazyre.Regexp{Pattern: `^(at |-\s|\(|[\w$.<>\[\]]+\s*\(.*:\d+(:\d+)?\)$)|\.(js|ts|mjs|cjs|go|py|rs):\d+|^\^+$|^[│|╭╰─╮╯\s]+$`}

// lastErrorLine is the line of the CLI's output that says why it failed:
// the last line announcing an error, else the last line naming a failure,
// else the last line with text — never a stack frame. A JSON event (stream-json) that reports an error gives
// its message. "" when the output has no text.
func lastErrorLine(raw []byte) string {
	lines := plainLines(raw)
	lastText, lastFailure := "", ""
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if l == "" {
			continue
		}
		if msg, ok := jsonError(l); ok {
			if msg != "" {
				return clip(msg)
			}
			continue
		}
		if stackLineRE.Get().MatchString(l) {
			continue
		}
		if strongErrorRE.Get().MatchString(l) {
			return clip(l)
		}
		if lastText == "" {
			lastText = l
		}
		if lastFailure == "" && errorWordRE.Get().MatchString(l) {
			lastFailure = l
		}
	}
	if lastFailure != "" {
		return clip(lastFailure)
	}
	return clip(lastText)
}

// jsonError reads a JSON line: ok when it is a JSON object (a stream-json
// event), with the message of an error it reports ("" when it reports
// none).
func jsonError(line string) (msg string, ok bool) {
	if !strings.HasPrefix(line, "{") {
		return "", false
	}
	var ev map[string]any
	if json.Unmarshal([]byte(line), &ev) != nil {
		return "", false
	}
	isErr, _ := ev["is_error"].(bool)
	if r, _ := ev["result"].(string); isErr && r != "" {
		return r, true
	}
	switch e := ev["error"].(type) {
	case string:
		return e, true
	case map[string]any:
		if m, _ := e["message"].(string); m != "" {
			return m, true
		}
	}
	if t, _ := ev["type"].(string); t == "error" {
		if m, _ := ev["message"].(string); m != "" {
			return m, true
		}
	}
	return "", true
}

// clip bounds a reason line, cutting at a rune boundary.
func clip(s string) string {
	if len(s) <= maxLineLen {
		return s
	}
	cut := maxLineLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// sessionLineRE finds the session id a CLI prints about itself
// ("session id: 0199a213-…", codex's header; escapes removed first).
var sessionLineRE = &lazyre.Regexp{Pattern: `(?i)session[ _-]?id"?\s*[:=]\s*"?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`}

// printedSessionID is the session id the CLI printed near the start of its
// output, or "".
func printedSessionID(head []byte) string {
	for _, l := range plainLines(head) {
		if m := sessionLineRE.Get().FindStringSubmatch(l); m != nil {
			return strings.ToLower(m[1])
		}
	}
	return ""
}

// logLimit is the rotation size from EnvLogLimit, else DefaultLogLimit.
func logLimit() (int64, error) {
	v := os.Getenv(EnvLogLimit)
	if v == "" {
		return DefaultLogLimit, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 4096 {
		return 0, errors.New(EnvLogLimit + " is " + strconv.Quote(v) + "; expected a size in bytes, at least 4096")
	}
	return n, nil
}
