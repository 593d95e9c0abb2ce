package tui

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/okstra/cockpit/internal/loadgen"
	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/runtime/view"
)

// The screen benchmarks run real programs in real panes and drive the real
// frame loop (WaitDirty → snapshots → Update → View). Each b.N iteration
// is one frame (BenchmarkScreen) or 100 ms (BenchmarkIdle); run them on
// their own with a fixed count, e.g.
//
//	go test -run '^$' -bench 'Screen|Idle' -benchtime 300x ./tui/
//
// Reported: frames/s; cpu-cores, the process's CPU time (getrusage: the
// emulators, the screen, bubbletea) over wall time; rss-MB (VmRSS at the
// end) and hwm-MB (peak); in-MB/s, what the generators got written, i.e.
// what the emulators digested of the 64 MB/s offered; ui-ms/frame, the
// event loop's time per frame in Update and View.

// rusageCPU is the process's user+system CPU time so far.
func rusageCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procStatusMB reads a memory line (VmRSS, VmHWM) of /proc/self/status.
func procStatusMB(field string) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}

// loop is a stand-in for bubbletea's event loop without the renderer:
// commands run in goroutines, their messages go through one channel to
// Update, and View follows every Update. It counts frames and the time the
// loop spends in Update and View.
type loop struct {
	app    *App
	msgs   chan tea.Msg
	stop   chan struct{}
	wg     sync.WaitGroup
	frames atomic.Int64
	uiNS   atomic.Int64
}

func newLoop(app *App) *loop {
	return &loop{app: app, msgs: make(chan tea.Msg, 64), stop: make(chan struct{})}
}

func (l *loop) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		switch msg := cmd().(type) {
		case nil:
		case tea.BatchMsg:
			for _, c := range msg {
				l.run(c)
			}
		default:
			select {
			case l.msgs <- msg:
			case <-l.stop:
			}
		}
	}()
}

func (l *loop) start() {
	l.run(l.app.Init())
	l.wg.Go(func() {
		for {
			select {
			case <-l.stop:
				return
			case msg := <-l.msgs:
				t0 := time.Now()
				_, cmd := l.app.Update(msg)
				l.app.View()
				l.uiNS.Add(int64(time.Since(t0)))
				if f, ok := msg.(framesMsg); ok && f.loop {
					l.frames.Add(1)
				}
				l.run(cmd)
			}
		}
	})
}

func (l *loop) send(msg tea.Msg) {
	select {
	case l.msgs <- msg:
	case <-l.stop:
	}
}

func (l *loop) close() {
	l.app.Stop()
	close(l.stop)
	l.wg.Wait()
}

// counting wraps the App for a real bubbletea program, counting frames.
type counting struct {
	*App
	frames *atomic.Int64
	uiNS   *atomic.Int64
}

func (c counting) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	t0 := time.Now()
	_, cmd := c.App.Update(msg)
	c.uiNS.Add(int64(time.Since(t0)))
	if f, ok := msg.(framesMsg); ok && f.loop {
		c.frames.Add(1)
	}
	return c, cmd
}

func (c counting) View() tea.View {
	t0 := time.Now()
	v := c.App.View()
	c.uiNS.Add(int64(time.Since(t0)))
	return v
}

// driver runs the App either in loop (the model alone) or in a real
// bubbletea program whose renderer writes to io.Discard.
type driver struct {
	send   func(tea.Msg)
	frames func() int64
	uiNS   func() int64
	close  func()
}

func startDriver(b *testing.B, app *App, program bool, fps int) *driver {
	if !program {
		l := newLoop(app)
		l.start()
		l.send(tea.WindowSizeMsg{Width: 240, Height: 80})
		return &driver{send: l.send, frames: l.frames.Load, uiNS: l.uiNS.Load, close: l.close}
	}
	var frames, ui atomic.Int64
	prog := tea.NewProgram(counting{app, &frames, &ui},
		tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(240, 80),
		tea.WithoutSignalHandler(), tea.WithColorProfile(colorprofile.TrueColor), tea.WithFPS(fps))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := prog.Run(); err != nil {
			b.Error(err)
		}
	}()
	return &driver{
		send:   prog.Send,
		frames: frames.Load,
		uiNS:   ui.Load,
		close: func() {
			app.Stop()
			prog.Quit()
			<-done
		},
	}
}

// openPanes opens n panes running paneprog with args (a %d in an arg is
// replaced by the pane's index) and announces them, the first as the lead.
func openPanes(b *testing.B, mgr *panes.Manager, d *driver, n int, args ...string) {
	for i := range n {
		argv := []string{paneprog()}
		for _, a := range args {
			if strings.Contains(a, "%d") {
				a = fmt.Sprintf(a, i)
			}
			argv = append(argv, a)
		}
		p, err := mgr.Open(panes.Config{Argv: argv, Cols: 29, Rows: 7, CloseGrace: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		title := fmt.Sprintf("worker-%02d", i)
		if i == 0 {
			title = "lead"
		}
		d.send(view.PaneOpened{PaneID: p.ID(), Title: title, Lead: i == 0})
	}
}

// variants are the ways the benchmarks drive the App: the model alone in
// loop, and a real bubbletea program at its default renderer rate (60)
// and at 30 frames a second.
var variants = []struct {
	name    string
	program bool
	fps     int
}{
	{"model", false, 0},
	{"program", true, 0},
	{"program-fps30", true, 30},
}

// BenchmarkScreen: 64 panes at 240×80, each running a generator of ~1 MB/s
// of coloured log lines; one iteration is one frame.
func BenchmarkScreen(b *testing.B) {
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			const n = 64
			dir := b.TempDir()
			mgr := panes.NewManager()
			app := New(Config{Manager: mgr})
			d := startDriver(b, app, v.program, v.fps)
			openPanes(b, mgr, d, n, "gen", strconv.Itoa(1<<20), filepath.Join(dir, "gen-%d"))
			// Let the layout settle and the generators get going.
			time.Sleep(1500 * time.Millisecond)

			b.ResetTimer()
			t0, cpu0, f0, ui0, g0 := time.Now(), rusageCPU(), d.frames(), d.uiNS(), loadgen.Total(dir, n)
			for d.frames()-f0 < int64(b.N) {
				time.Sleep(time.Millisecond)
			}
			wall, cpu, frames, ui := time.Since(t0), rusageCPU()-cpu0, d.frames()-f0, d.uiNS()-ui0
			gen := loadgen.Total(dir, n) - g0
			b.StopTimer()

			b.ReportMetric(float64(frames)/wall.Seconds(), "frames/s")
			b.ReportMetric(cpu.Seconds()/wall.Seconds(), "cpu-cores")
			b.ReportMetric(procStatusMB("VmRSS"), "rss-MB")
			b.ReportMetric(procStatusMB("VmHWM"), "hwm-MB")
			b.ReportMetric(float64(gen)/wall.Seconds()/1e6, "in-MB/s")
			b.ReportMetric(float64(ui)/1e6/float64(max(frames, 1)), "ui-ms/frame")
			d.close()
			if err := mgr.CloseAll(); err != nil {
				b.Log(err)
			}
		})
	}
}

// BenchmarkIdle: 16 idle panes (drawn once, then silent) at 240×80; one
// iteration is 100 ms of wall time. An idle screen should cost nothing:
// no frame, no timer of its own.
func BenchmarkIdle(b *testing.B) {
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			const n = 16
			mgr := panes.NewManager()
			app := New(Config{Manager: mgr})
			d := startDriver(b, app, v.program, v.fps)
			openPanes(b, mgr, d, n, "static", "IDLE-%d")
			time.Sleep(1500 * time.Millisecond)

			b.ResetTimer()
			t0, cpu0, f0 := time.Now(), rusageCPU(), d.frames()
			time.Sleep(time.Duration(b.N) * 100 * time.Millisecond)
			wall, cpu, frames := time.Since(t0), rusageCPU()-cpu0, d.frames()-f0
			b.StopTimer()

			b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "cpu-%")
			b.ReportMetric(float64(frames)/wall.Seconds(), "frames/s")
			b.ReportMetric(procStatusMB("VmRSS"), "rss-MB")
			d.close()
			if err := mgr.CloseAll(); err != nil {
				b.Log(err)
			}
		})
	}
}
