package attach

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// echoModel shows the last key typed after "last:" and notes when each key
// reached Update.
type echoModel struct {
	last    string
	arrived *atomic.Int64 // unix nanoseconds of the last key's Update
}

func (m echoModel) Init() tea.Cmd { return nil }

func (m echoModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		m.arrived.Store(time.Now().UnixNano())
		m.last = k.Text
	}
	return m, nil
}

func (m echoModel) View() tea.View {
	v := tea.NewView("last:" + m.last + "\nan attached screen, benchmarked")
	v.AltScreen = true
	return v
}

// echoRig types on a terminal and times until the key shows on its screen.
type echoRig struct {
	tt      *terminal
	arrived atomic.Int64
	stop    func()         // ends the program (and client)
	stats   func() Stats   // attach only
	seen    chan time.Time // when the expected key showed
	want    atomic.Value   // string
}

func newEchoRig(b *testing.B, attach bool, fps int) *echoRig {
	r := &echoRig{seen: make(chan time.Time, 1)}
	r.want.Store("")
	tt := newTerminal(b, 80, 24)
	r.tt = tt
	// Watch cell (5,0): each read of the terminal is parsed, then checked.
	model := echoModel{arrived: &r.arrived}
	if attach {
		hc, cc := socketPair(b)
		s := NewSession(hc, Params{Cols: 80, Rows: 24, Env: testEnv}, model, tea.WithFPS(fps))
		hostDone := make(chan struct{})
		clientDone := make(chan struct{})
		go func() { defer close(hostDone); _, _ = s.Run(context.Background()) }()
		go func() {
			defer close(clientDone)
			_, _ = Run(cc, tt.pts, tt.pts, ClientOptions{Cols: 80, Rows: 24})
		}()
		r.stats = s.Stats
		r.stop = func() {
			s.End(Outcome{Reason: ReasonDetached, Message: "bench done"})
			<-hostDone
			<-clientDone
		}
	} else {
		// The same model as `cockpit open` runs it today: straight on the
		// terminal.
		p := tea.NewProgram(model, tea.WithInput(tt.pts), tea.WithOutput(tt.pts),
			tea.WithEnvironment(testEnv), tea.WithFPS(fps), tea.WithoutSignalHandler())
		done := make(chan struct{})
		go func() { defer close(done); _, _ = p.Run() }()
		r.stop = func() { p.Quit(); <-done }
	}
	tt.waitScreen(b, "last:")
	go r.watch()
	return r
}

// watch wakes on every read of the terminal and reports when the wanted
// key is on screen.
func (r *echoRig) watch() {
	tt := r.tt
	tt.mu.Lock()
	defer tt.mu.Unlock()
	reported := ""
	for {
		select {
		case <-tt.done:
			return
		default:
		}
		want := r.want.Load().(string)
		if want != "" && want != reported && tt.emu.CellText(tt.emu.Cell(5, 0)) == want {
			reported = want
			r.seen <- time.Now()
		}
		tt.cond.Wait()
	}
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkKeystrokeEcho times a key typed on a real terminal until the
// model's echo of it is on that terminal's screen, through an attached
// session (client relay, unix socket, host program) and, as the baseline,
// with the same model run straight on the terminal as `cockpit open` does
// today. Keys come at a person's typing pace: at least one frame interval
// after the previous echo plus a random part of another, so a renderer that
// draws the first change after a quiet spell at once (third_party/bubbletea)
// shows each key without waiting for a tick, while a renderer on a fixed
// ticker makes a key wait for the tick's phase. Run with -benchtime=200x.
func BenchmarkKeystrokeEcho(b *testing.B) {
	for _, fps := range []int{30, 120} {
		for _, attach := range []bool{false, true} {
			name := fmt.Sprintf("direct/fps=%d", fps)
			if attach {
				name = fmt.Sprintf("attach/fps=%d", fps)
			}
			b.Run(name, func(b *testing.B) {
				r := newEchoRig(b, attach, fps)
				rng := rand.New(rand.NewPCG(1, uint64(fps)))
				tick := time.Second / time.Duration(fps)
				total := make([]time.Duration, 0, b.N)
				input := make([]time.Duration, 0, b.N)
				keys := "abcdefghijklmnopqrstuvwxyz"
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					time.Sleep(tick + time.Duration(rng.Int64N(int64(tick))))
					key := string(keys[i%len(keys)])
					r.want.Store(key)
					b.StartTimer()
					t0 := time.Now()
					if _, err := r.tt.ptm.Write([]byte(key)); err != nil {
						b.Fatal(err)
					}
					select {
					case at := <-r.seen:
						total = append(total, at.Sub(t0))
						input = append(input, time.Duration(r.arrived.Load()-t0.UnixNano()))
					case <-time.After(5 * time.Second):
						b.Fatalf("key %q never showed; screen:\n%s", key, r.tt.screen())
					}
				}
				b.StopTimer()
				b.ReportMetric(ms(percentile(total, 0.5)), "p50-ms")
				b.ReportMetric(ms(percentile(total, 0.99)), "p99-ms")
				b.ReportMetric(ms(percentile(input, 0.5)), "input-p50-ms")
				b.ReportMetric(ms(percentile(input, 0.99)), "input-p99-ms")
				if r.stats != nil {
					st := r.stats()
					if st.OutputFrames > 0 {
						b.ReportMetric(float64(st.OutputBytes)/float64(st.OutputFrames), "bytes/frame")
						b.ReportMetric(float64(st.OutputFrames)/float64(b.N), "frames/key")
					}
				}
				b.ReportMetric(0, "ns/op") // the tick wait makes ns/op meaningless
				r.stop()
			})
		}
	}
}

// busyModel changes every cell of its screen on every message: a stand-in
// for many busy panes.
type busyModel struct {
	n    int
	w, h int
}

func (m busyModel) Init() tea.Cmd { return nil }

func (m busyModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case int:
		m.n = msg
	}
	return m, nil
}

func (m busyModel) View() tea.View {
	b := make([]byte, 0, (m.w+1)*m.h)
	for y := 0; y < m.h; y++ {
		// Every row new on every change: nothing for the renderer to
		// scroll or reuse.
		rng := rand.New(rand.NewPCG(uint64(m.n), uint64(y)))
		for x := 0; x < m.w; x++ {
			b = append(b, byte('a'+rng.IntN(26)))
		}
		if y < m.h-1 {
			b = append(b, '\n')
		}
	}
	v := tea.NewView(string(b))
	v.AltScreen = true
	return v
}

// BenchmarkBusyScreen sends a whole-screen change to the model as fast as it
// takes them, through an attached session to a real terminal, and reports
// what reached the client: the frames are bounded by the renderer's FPS, not
// by how often the model changes.
func BenchmarkBusyScreen(b *testing.B) {
	const cols, rows = 160, 48
	tt := newTerminal(b, cols, rows)
	hc, cc := socketPair(b)
	s := NewSession(hc, Params{Cols: cols, Rows: rows, Env: testEnv}, busyModel{}, tea.WithFPS(30))
	hostDone := make(chan struct{})
	clientDone := make(chan struct{})
	go func() { defer close(hostDone); _, _ = s.Run(context.Background()) }()
	go func() {
		defer close(clientDone)
		_, _ = Run(cc, tt.pts, tt.pts, ClientOptions{Cols: cols, Rows: rows})
	}()
	tt.wait(b, "the first frame", func() bool { return len(tt.raw) > cols*rows })
	before := s.Stats()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		s.Send(i + 1)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	after := s.Stats()
	frames := after.OutputFrames - before.OutputFrames
	bytes := after.OutputBytes - before.OutputBytes
	if frames > 0 {
		b.ReportMetric(float64(bytes)/float64(frames), "bytes/frame")
		b.ReportMetric(float64(frames)/elapsed.Seconds(), "frames/s")
		b.ReportMetric(float64(b.N)/float64(frames), "changes/frame")
	}
	s.End(Outcome{Reason: ReasonDetached, Message: "bench done"})
	<-hostDone
	<-clientDone
}

// BenchmarkAttachFirstFrame times an attach from the client's start to a
// full 160x48 first frame on its terminal: a new program on the host, the
// handshake-free frame stream, the client's raw mode and first resize. The
// terminal and socket are made outside the timing.
func BenchmarkAttachFirstFrame(b *testing.B) {
	const cols, rows = 160, 48
	var total []time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		tt := newTerminal(b, cols, rows)
		hc, cc := socketPair(b)
		s := NewSession(hc, Params{Cols: cols, Rows: rows, Env: testEnv}, busyModel{n: 1}, tea.WithFPS(30))
		hostDone := make(chan struct{})
		clientDone := make(chan struct{})
		b.StartTimer()
		start := time.Now()
		go func() { defer close(hostDone); _, _ = s.Run(context.Background()) }()
		go func() {
			defer close(clientDone)
			_, _ = Run(cc, tt.pts, tt.pts, ClientOptions{Cols: cols, Rows: rows})
		}()
		tt.wait(b, "a full first frame", func() bool {
			return tt.emu.CellText(tt.emu.Cell(cols-1, rows-1)) != " " && tt.emu.CellText(tt.emu.Cell(cols-1, rows-1)) != ""
		})
		total = append(total, time.Since(start))
		b.StopTimer()

		s.End(Outcome{Reason: ReasonDetached, Message: "bench done"})
		<-hostDone
		<-clientDone
		tt.close()
	}
	b.ReportMetric(ms(percentile(total, 0.5)), "p50-ms")
	b.ReportMetric(ms(percentile(total, 0.99)), "p99-ms")
}
