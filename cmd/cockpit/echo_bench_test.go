package main

// Issue 20's keystroke echo against tmux, through the real binary
// (docs/PERFORMANCE.md, "Attached screens: keystroke → echo"):
//
//	go test ./cmd/cockpit -run '^$' -bench EchoVsTmux -benchtime 1000x -count 3
//
// (1,000 keys a run: the p99 of 300 is the third slowest key, and the
// ratio of two such figures moves by ±40% between runs of one tree.)

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/panes/vt"
	"github.com/okstra/cockpit/tui/attach"
)

// echoTarget is one program under the keystroke benchmark: `cat` under the
// cockpit or under tmux, on its own user terminal.
type echoTarget struct {
	name string
	u    *userTerm
	line int // the line being typed
	x, y int // where the next key's echo goes
	n    int // keys typed on this line
	lat  []time.Duration
}

// echoLineKeys is how many timed keys go on one line before Enter: short
// enough not to wrap in the lead pane.
const echoLineKeys = 16

// newLine types Enter (unless first) and a marker for the next line, untimed,
// and finds where the marker's echo ends on the screen: the next keys' echo
// goes there, one column each.
func (t *echoTarget) newLine(b *testing.B, first bool) {
	b.Helper()
	if !first {
		// Enter, and cat's copy of the line out before the next marker's
		// echo (else the two could interleave).
		prev := fmt.Sprintf("#%04d:", t.line)
		hit := t.u.watch(func(screen string) bool { return strings.Count(screen, prev) >= 2 })
		t.u.typeText(b, "\r")
		t.u.await(b, t.name+" printing line "+prev, hit, 30*time.Second)
	}
	t.line++
	marker := fmt.Sprintf("#%04d:", t.line)
	hit := t.u.watch(func(screen string) bool { return strings.Contains(screen, marker) })
	t.u.typeText(b, marker)
	t.u.await(b, t.name+" echoing the line marker "+marker, hit, 30*time.Second)
	t.u.mu.Lock()
	defer t.u.mu.Unlock()
	x, y, ok := findCells(t.u.emu, marker)
	if !ok {
		b.Fatalf("%s: %s left the screen:\n%s", t.name, marker, t.u.screenLocked())
	}
	t.x, t.y, t.n = x+len(marker), y, 0
}

// findCells is the cell position of s (ASCII) on e's screen.
func findCells(e *vt.Emulator, s string) (x, y int, ok bool) {
	cols, rows := e.Size()
	for y := range rows {
	cell:
		for x := 0; x+len(s) <= cols; x++ {
			for i := range len(s) {
				if e.CellText(e.Cell(x+i, y)) != s[i:i+1] {
					continue cell
				}
			}
			return x, y, true
		}
	}
	return 0, 0, false
}

// key types one key and times it until its echo is in its cell of the
// user terminal's screen (checked after every read of the terminal), after
// a pause at a typing pace; a full line is ended first, before the pause.
func (t *echoTarget) key(b *testing.B, k byte, pause func()) {
	b.Helper()
	if t.n == echoLineKeys {
		t.newLine(b, false)
	}
	pause()
	x, y, want := t.x+t.n, t.y, string(k)
	hit := t.u.watchEmu(func(e *vt.Emulator) bool { return e.CellText(e.Cell(x, y)) == want })
	t0 := time.Now()
	t.u.typeText(b, want)
	at := t.u.await(b, fmt.Sprintf("%s echoing %q at %d,%d", t.name, want, x, y), hit, 30*time.Second)
	t.lat = append(t.lat, at.Sub(t0))
	t.n++
}

// BenchmarkEchoVsTmux types keys into `cat` under `cockpit open --lead --
// cat` (the real binary: the client on a real 160×48 PTY, the background
// engine it starts, cat in the lead pane) and under `tmux new-session cat`
// (a private server, attached on the same kind of PTY), alternating one key
// to each, and times each key from the write on the terminal's master until
// its echo (the pane's line discipline echoes; cat reads lines) is in its
// cell of that terminal's screen, read through panes/vt after every read.
// The cockpit runs twice, each its own engine: as `open` runs it (the
// client hands its terminal to the engine, DECISIONS 85) and with the
// client relaying the terminal's bytes (attach.NoTTYEnv: the path of a
// client that cannot hand it over, and the one before DECISIONS 85).
// Keys come at a typing pace: 20–40 ms after the previous echo. One
// iteration is one key to each. Reported: p50 and p99 of each, the
// cockpit/tmux ratios (x-tmux-p50, x-tmux-p99, and relay-x-tmux-p50/p99
// for the relay); the load average.
func BenchmarkEchoVsTmux(b *testing.B) {
	const cols, rows = 160, 48
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			b.Fatal("tmux is not installed (CI installs it: .ci/run)")
		}
		b.Skip("tmux is not installed: the benchmark compares with it")
	}
	cockpit := &echoTarget{name: "cockpit", u: newUserTerm(b, cols, rows)}
	relay := &echoTarget{name: "cockpit (relay)", u: newUserTerm(b, cols, rows)}
	tmux := &echoTarget{name: "tmux", u: newUserTerm(b, cols, rows)}

	// The cockpit: `open` starts the engine (registered in a private
	// registry, stopped when the benchmark ends) with cat in the lead pane.
	reg := engineRegistry(b)
	for _, t := range []*echoTarget{cockpit, relay} {
		root, env := paneRun(b)
		env = append(clientEnv(), append(env, "COCKPIT_REGISTRY="+reg, "PATH="+fixture.PathWith(fixture.FakeBin(b)))...)
		if t == relay {
			env = append(env, attach.NoTTYEnv+"=1")
		} else {
			env = append(env, envEngineProfile+"="+os.Getenv(envEngineProfile)) // the handed-over one's
		}
		open := startOnTerminal(b, t.u, env, cockpitBin, "open", "--project-root", root, "--run-manifest", fixture.RunManifest, "--lead", "--", "cat")
		open.Dir = root
		b.Cleanup(func() { detach(b, t.u, open) })
	}

	// tmux on a private socket in a (short) directory of its own.
	dir := testenv.ShortDir(b)
	sock, conf := filepath.Join(dir, "tmux.sock"), filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g escape-time 0\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	tm := startOnTerminal(b, tmux.u, clientEnv(), "tmux", "-S", sock, "-f", conf, "new-session", "cat")
	b.Cleanup(func() {
		_ = exec.Command("tmux", "-S", sock, "kill-server").Run()
		waitExit(b, tm, "tmux's client after kill-server")
	})

	// Type only once each screen is up (before, the terminal is still in
	// cooked mode and echoes by itself).
	all := []*echoTarget{cockpit, relay, tmux}
	for _, t := range []*echoTarget{cockpit, relay} {
		t.u.await(b, t.name+"'s lead pane", t.u.watch(func(s string) bool { return strings.Contains(s, "1 lead") }), time.Minute)
	}
	tmux.u.await(b, "tmux's status line", tmux.u.watch(func(s string) bool { return strings.Contains(s, "[0] 0:") }), time.Minute)
	for _, t := range all {
		t.newLine(b, true)
	}
	rng := rand.New(rand.NewPCG(20, 11))
	pause := func() { time.Sleep(20*time.Millisecond + time.Duration(rng.Int64N(int64(20*time.Millisecond)))) }
	// Warm up: a line of keys each, untimed.
	for i := range echoLineKeys {
		for _, t := range all {
			t.key(b, 'a'+byte(i), pause)
		}
	}
	for _, t := range all {
		t.lat = nil
	}
	i := 0
	for b.Loop() {
		for _, t := range all {
			t.key(b, 'a'+byte(i%26), pause)
		}
		i++
	}
	p50t, p99t := percentileDur(tmux.lat, 0.5), percentileDur(tmux.lat, 0.99)
	for _, t := range []*echoTarget{cockpit, relay} {
		name := "cockpit"
		if t == relay {
			name = "relay"
		}
		p50, p99 := percentileDur(t.lat, 0.5), percentileDur(t.lat, 0.99)
		b.ReportMetric(ms(p50), name+"-p50-ms")
		b.ReportMetric(ms(p99), name+"-p99-ms")
		prefix := ""
		if t == relay {
			prefix = "relay-"
		}
		b.ReportMetric(float64(p50)/float64(p50t), prefix+"x-tmux-p50")
		b.ReportMetric(float64(p99)/float64(p99t), prefix+"x-tmux-p99")
	}
	b.ReportMetric(ms(p50t), "tmux-p50-ms")
	b.ReportMetric(ms(p99t), "tmux-p99-ms")
	b.ReportMetric(loadAvg(), "load")
	b.ReportMetric(0, "ns/op") // the typing pace makes ns/op meaningless
}
