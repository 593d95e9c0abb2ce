package host

import (
	"bytes"
	"os"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/tui"
)

// echoOut is the screen's terminal in BenchmarkEchoFrame: it counts the
// renderer's writes and says when one holds the echo awaited.
type echoOut struct {
	mu     sync.Mutex
	want   []byte
	hit    chan struct{}
	writes atomic.Int64
}

func (w *echoOut) Write(p []byte) (int, error) {
	w.writes.Add(1)
	w.mu.Lock()
	if w.want != nil && bytes.Contains(p, w.want) {
		w.want = nil
		close(w.hit)
	}
	w.mu.Unlock()
	return len(p), nil
}

func (w *echoOut) expect(s string) chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.want, w.hit = []byte(s), make(chan struct{})
	return w.hit
}

// timedModel is the screen with the time its Update and View take added
// up.
type timedModel struct {
	*tui.App
	ns *atomic.Int64
}

func (m timedModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	t0 := time.Now()
	_, cmd := m.App.Update(msg)
	m.ns.Add(int64(time.Since(t0)))
	return m, cmd
}

func (m timedModel) View() tea.View {
	t0 := time.Now()
	v := m.App.View()
	m.ns.Add(int64(time.Since(t0)))
	return v
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkEchoFrame is the engine's share of a key's echo (issue 20;
// docs/PERFORMANCE.md, "Keystroke echo against tmux"): the screen of
// `cockpit open --lead -- cat` at 160×48 — the real App on a panes
// Manager with cat in the lead pane, in a real bubbletea program at the
// screen's options (tui.ProgramOptions) whose output is a counter instead
// of a terminal. One iteration is one key sent to the program until a
// write holds its echo, 2 ms apart, Enter after every 16. Reported:
// cpu-us/key, the process's CPU (the key's Update, the PTY write, the
// pane's reader and emulator, the frame, View and the renderer's flush;
// not cat's), ui-us/key (Update and View), writes/key.
//
//	go test ./tui/host -run '^$' -bench EchoFrame -benchtime 3000x
//	ECHO_FRAME_PROFILE=/tmp/p go test ./tui/host ... # + a CPU profile of the timed keys
func BenchmarkEchoFrame(b *testing.B) {
	mgr := panes.NewManager()
	p, err := mgr.Open(panes.Config{Argv: []string{"cat"}, Cols: 158, Rows: 44, CloseGrace: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = mgr.CloseAll() })
	app := tui.New(tui.Config{Manager: mgr, LeadPane: p.ID(), TypeIntoLead: true, Attached: true})
	var ui atomic.Int64
	out := &echoOut{}
	opts := append(tui.ProgramOptions(), tea.WithInput(nil), tea.WithOutput(out), tea.WithWindowSize(160, 48),
		tea.WithoutSignalHandler(), tea.WithColorProfile(colorprofile.TrueColor))
	prog := tea.NewProgram(timedModel{app, &ui}, opts...)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := prog.Run(); err != nil {
			b.Error(err)
		}
	}()
	prog.Send(view.PaneOpened{PaneID: p.ID(), Title: "lead", Lead: true})
	key := func(i int) {
		k := rune('a' + i%26)
		hit := out.expect(string(k))
		prog.Send(tea.KeyPressMsg{Code: k, Text: string(k)})
		select {
		case <-hit:
		case <-time.After(10 * time.Second):
			b.Fatalf("no echo of key %d", i)
		}
		time.Sleep(2 * time.Millisecond)
		if i%16 == 15 {
			prog.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
			time.Sleep(5 * time.Millisecond)
		}
	}
	for i := range 32 { // the pane up, the layout settled
		key(i)
	}
	if f := os.Getenv("ECHO_FRAME_PROFILE"); f != "" {
		pf, err := os.Create(f)
		if err != nil {
			b.Fatal(err)
		}
		_ = pprof.StartCPUProfile(pf)
		defer func() { pprof.StopCPUProfile(); pf.Close() }()
	}
	b.ResetTimer()
	cpu0, ui0, w0 := cpuTime(), ui.Load(), out.writes.Load()
	for i := range b.N {
		key(i)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/n, "cpu-us/key")
	b.ReportMetric(float64(ui.Load()-ui0)/1e3/n, "ui-us/key")
	b.ReportMetric(float64(out.writes.Load()-w0)/n, "writes/key")
	b.ReportMetric(0, "ns/op") // the pauses make ns/op meaningless
	app.Stop()
	prog.Quit()
	<-done
}
