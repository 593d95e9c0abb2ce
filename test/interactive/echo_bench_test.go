package interactive

import (
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/realcli"
	"github.com/okstra/cockpit/internal/testenv"
)

// BenchmarkClaudeEcho types keys into the real claude (against the mock)
// as the cockpit's lead and into the same claude in a plain tmux pane of
// the lead pane's size, in the same run, and measures each key's echo: from
// the key written on the terminal's PTY to the screen read off that PTY
// (through an emulator, as a person's terminal) showing it on claude's
// input line. The cockpit runs `cockpit open --lead -- claude` on its PTY;
// the plain pane is seen through a tmux client attached on its own PTY
// (status line off, so the pane is the client's whole screen). One op is
// one key in each, the two in alternating order, at a typing pace (60-120
// ms between keys); after 40 keys the line is erased (not timed).
//
//	COCKPIT_REALCLI_BIN=... go test -run '^$' -bench ClaudeEcho -benchtime 200x ./test/interactive/
//
// It reports the p50 and p99 of each, their ratios, and the 1-minute load
// average when it ended (docs/PERFORMANCE.md).
func BenchmarkClaudeEcho(b *testing.B) {
	testenv.SkipShort(b, "the real claude in tmux end to end")
	bin := realcli.Require(b, "claude")
	root, homes, reg := setup(b, bin)
	ckEnv := append(userEnv(homes[0].Env(nil)), "TERM=xterm-256color", "COLORTERM=truecolor", "COCKPIT_REGISTRY="+reg)
	ck := startTerm(b, root, ckEnv, cols1, rows1+chrome,
		cockpitBin, "open", "--project-root", root, "--run-manifest", fixture.RunManifest, "--lead", "--", "claude")
	var rows int
	ck.waitFor(b, 60*time.Second, "the lead pane", func(scr []string) bool {
		_, r, _, ok := findLead(scr, cols1, "")
		rows = r
		return ok
	})
	tm := newTmux(b)
	tm.start("tm", root, paneEnv(userEnv(homes[1].Env(nil))), cols1, rows, "claude")
	tm.run("set", "-t", "tm", "status", "off")
	plain := startTerm(b, root, []string{"TERM=xterm-256color", "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH")}, cols1, rows,
		"tmux", "-S", tm.sock, "attach", "-t", "tm")
	terms := [2]*vtTerm{ck, plain}
	for _, v := range terms {
		v.waitFor(b, 90*time.Second, "claude's prompt", func(scr []string) bool {
			return hasRow(scr, "❯") && strings.Contains(strings.Join(scr, "\n"), "auto mode on")
		})
		waitSettled(b, v)
	}

	// What is on claude's input lines, kept across the runs of "keys"
	// (the testing package runs it with b.N = 1 first).
	const keys, maxTyped = "abcdefghijklmnopqrstuvwxyz", 40
	rng := rand.New(rand.NewPCG(1, 2))
	typed := ""
	b.Run("keys", func(b *testing.B) {
		var lat [2][]time.Duration
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			if len(typed) == maxTyped {
				for _, v := range terms {
					v.write(b, []byte(strings.Repeat("\x7f", len(typed))))
					v.waitFor(b, 10*time.Second, "the input line erased", func(scr []string) bool { return hasRow(scr, "❯") })
				}
				typed = ""
			}
			key := keys[len(typed)%len(keys)]
			typed += string(key)
			want := "❯\u00a0" + typed // claude's prompt, a no-break space after it
			for k := range terms {
				j := (len(typed) + k) % 2
				time.Sleep(60*time.Millisecond + time.Duration(rng.Int64N(int64(60*time.Millisecond))))
				v := terms[j]
				v.expect(func(scr []string) bool { return hasRow(scr, want) })
				b.StartTimer()
				t0 := time.Now()
				v.write(b, []byte{key})
				select {
				case at := <-v.seen:
					lat[j] = append(lat[j], at.Sub(t0))
				case <-time.After(5 * time.Second):
					b.Fatalf("%s: key %q never showed (no row %q); screen:\n%s", [2]string{"cockpit", "tmux"}[j], key, want, strings.Join(v.screen(), "\n"))
				}
				b.StopTimer()
			}
		}
		ck50, ck99 := percentile(lat[0], 0.5), percentile(lat[0], 0.99)
		tm50, tm99 := percentile(lat[1], 0.5), percentile(lat[1], 0.99)
		b.ReportMetric(ms(ck50), "cockpit-p50-ms")
		b.ReportMetric(ms(ck99), "cockpit-p99-ms")
		b.ReportMetric(ms(tm50), "tmux-p50-ms")
		b.ReportMetric(ms(tm99), "tmux-p99-ms")
		b.ReportMetric(ms(ck50)/ms(tm50), "p50-ratio")
		b.ReportMetric(ms(ck99)/ms(tm99), "p99-ratio")
		b.ReportMetric(load1(), "load1")
		b.ReportMetric(0, "ns/op") // the typing pace makes ns/op meaningless
	})
}

// hasRow reports whether a row of scr, its blanks trimmed, is want.
func hasRow(scr []string, want string) bool {
	for _, l := range scr {
		if strings.TrimSpace(l) == want {
			return true
		}
	}
	return false
}

// waitSettled waits until v's screen has not changed for settled (claude
// adds lines to its first screen as it loads).
func waitSettled(b *testing.B, v *vtTerm) {
	b.Helper()
	deadline := time.Now().Add(60 * time.Second)
	last, since := "", time.Now()
	for time.Now().Before(deadline) {
		s := strings.Join(v.screen(), "\n")
		if s != last {
			last, since = s, time.Now()
		} else if time.Since(since) >= settled {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatalf("the screen kept changing for a minute:\n%s", last)
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// load1 is the 1-minute load average (0 where /proc/loadavg is not).
func load1() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(data))[0], 64)
	return f
}
