package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/tui/attach"
)

// paneprogPath is where TestMain builds the test program testdata/paneprog;
// paneprogBuilt is closed when the build has ended.
var (
	paneprogPath  string
	paneprogBuilt = make(chan struct{})
)

// paneprog is the path of the test program, built by TestMain in the
// background while the tests that start no pane run: it waits for the
// build, and ends the run as TestMain did when the build failed.
func paneprog() string {
	<-paneprogBuilt
	return paneprogPath
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tui-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	paneprogPath = filepath.Join(dir, "paneprog")
	go func() {
		defer close(paneprogBuilt)
		build := exec.Command("go", "build", "-o", paneprogPath, "./testdata/paneprog")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build paneprog: %v\n%s", err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}()
	// Most tests wait on their panes' programs: -short runs eight at a time.
	testenv.ParallelShort(8)
	code := testenv.Private(m).Run()
	<-paneprogBuilt
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// testNow is the fixed clock of the tests.
var testNow = time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)

// harness drives an App the way bubbletea would, synchronously: every
// command Update returns runs at once and its message is fed back, except
// the frame loop, which the test pumps with frame().
type harness struct {
	t   testing.TB
	mgr *panes.Manager
	app *App

	mu      sync.Mutex
	closes  []string
	quits   int
	endRuns int
	quitted bool
	ended   *attach.EndMsg // the session end a command asked for (attach.End)

	static map[string]bool // panes running "static", which waitDrawn waits for

	lastFrame time.Time // when waitDirty last returned

	clipboard []string // what tea.SetClipboard commands set, in order
}

func newHarness(t testing.TB, w, h int, opts ...func(*Config)) *harness {
	t.Helper()
	return newHarnessOn(t, panes.NewManager(), w, h, opts...)
}

// newHarnessOn is newHarness on a given Manager, so that several screens
// can show the same panes.
func newHarnessOn(t testing.TB, mgr *panes.Manager, w, h int, opts ...func(*Config)) *harness {
	t.Helper()
	hs := &harness{t: t, mgr: mgr, static: make(map[string]bool)}
	cfg := Config{
		Manager: hs.mgr,
		Now:     func() time.Time { return testNow },
		Actions: Actions{
			ClosePane: func(id string) {
				hs.mu.Lock()
				hs.closes = append(hs.closes, id)
				hs.mu.Unlock()
			},
			Quit: func() {
				hs.mu.Lock()
				hs.quits++
				hs.mu.Unlock()
			},
			EndRun: func() {
				hs.mu.Lock()
				hs.endRuns++
				hs.mu.Unlock()
			},
		},
	}
	for _, o := range opts {
		o(&cfg)
	}
	hs.app = New(cfg)
	hs.app.manual = true
	hs.app.resizeDelay = 0
	t.Cleanup(func() {
		hs.app.Stop()
		_ = hs.mgr.CloseAll()
	})
	hs.exec(hs.app.Init())
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	return hs
}

// open starts paneprog with args in a new pane and announces it.
func (hs *harness) open(title string, lead bool, args ...string) string {
	hs.t.Helper()
	p, err := hs.mgr.Open(panes.Config{
		Argv:       append([]string{paneprog()}, args...),
		Cols:       10,
		Rows:       5,
		CloseGrace: 300 * time.Millisecond,
	})
	if err != nil {
		hs.t.Fatal(err)
	}
	hs.static[p.ID()] = args[0] == "static"
	hs.send(view.PaneOpened{PaneID: p.ID(), Title: title, Lead: lead})
	return p.ID()
}

// send feeds msg to Update and runs the commands it returns.
func (hs *harness) send(msg tea.Msg) {
	hs.t.Helper()
	_, cmd := hs.app.Update(msg)
	hs.exec(cmd)
}

// exec runs cmd and feeds its messages back, as bubbletea does.
func (hs *harness) exec(cmd tea.Cmd) {
	hs.t.Helper()
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			hs.exec(c)
		}
	case tea.QuitMsg:
		hs.quitted = true
	case attach.EndMsg:
		// attach.Serve takes it before the model and ends the session.
		hs.ended = &msg
	default:
		if fmt.Sprintf("%T", msg) == "tea.setClipboardMsg" {
			// bubbletea writes it as OSC 52; the end-to-end test sees that.
			hs.clipboard = append(hs.clipboard, fmt.Sprint(msg))
		}
		hs.send(msg)
	}
}

// frame waits for one frame of changed panes (at most d) and feeds it.
func (hs *harness) frame(d time.Duration) bool {
	hs.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	ids, err := hs.waitDirty(ctx, time.Millisecond)
	if err != nil {
		return false
	}
	hs.send(framesMsg{snaps: takeSnaps(hs.mgr, hs.app.sub, ids)})
	return true
}

// waitDirty is Manager.WaitDirty on the screen's own subscription (the
// screens of a Manager share its change signal through dirty.go): it
// returns the panes changed, at most once per frame, never none.
func (hs *harness) waitDirty(ctx context.Context, frame time.Duration) ([]string, error) {
	for {
		select {
		case <-hs.app.sub.signal():
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if wait := time.Until(hs.lastFrame.Add(frame)); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if ids := hs.app.sub.take(nil); len(ids) > 0 {
			hs.lastFrame = time.Now()
			return ids, nil
		}
	}
}

// waitFor pumps frames until cond holds, failing after a deadline.
func (hs *harness) waitFor(what string, cond func() bool) {
	hs.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			hs.t.Fatalf("timed out waiting for %s; screen:\n%s", what, hs.plain())
		}
		hs.frame(100 * time.Millisecond)
	}
}

// waitDrawn waits until every shown pane running "static" drew its frame
// for the size it is shown at, and the pane's output has settled.
func (hs *harness) waitDrawn() {
	hs.t.Helper()
	hs.waitFor("panes drawn at their size", func() bool {
		for _, pv := range hs.app.panes {
			if pv.rect.Empty() || !hs.static[pv.id] {
				continue
			}
			in := pv.rect.Inner()
			want := fmt.Sprintf("size=%dx%d", in.W, in.H)
			if !pv.hasSnap || len(pv.snap.Lines) == 0 || !strings.Contains(pv.snap.Lines[0], want) || !strings.HasPrefix(ansi.Strip(pv.snap.Lines[len(pv.snap.Lines)-1]), "$") {
				return false
			}
		}
		return true
	})
	// Drain a frame that may still be in flight, so the view is final.
	for hs.frame(50 * time.Millisecond) {
	}
}

// view is the screen as bubbletea would draw it.
func (hs *harness) view() string { return hs.app.View().Content }

// plain is the screen without styles.
func (hs *harness) plain() string { return ansi.Strip(hs.view()) }

// key sends a key press written as bubbletea spells it ("ctrl+b", "enter",
// "a", "shift+tab", "pgup").
func (hs *harness) key(names ...string) {
	hs.t.Helper()
	for _, n := range names {
		hs.send(keyPress(n))
	}
}

func keyPress(name string) tea.KeyPressMsg {
	var k tea.Key
	parts := strings.Split(name, "+")
	for _, p := range parts[:len(parts)-1] {
		switch p {
		case "ctrl":
			k.Mod |= tea.ModCtrl
		case "alt":
			k.Mod |= tea.ModAlt
		case "shift":
			k.Mod |= tea.ModShift
		}
	}
	base := parts[len(parts)-1]
	named := map[string]rune{
		"enter": tea.KeyEnter, "tab": tea.KeyTab, "esc": tea.KeyEscape,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "space": tea.KeySpace,
		"backspace": tea.KeyBackspace, "home": tea.KeyHome, "end": tea.KeyEnd,
	}
	if r, ok := named[base]; ok {
		k.Code = r
		if r == tea.KeySpace {
			k.Text = " "
		}
		return tea.KeyPressMsg(k)
	}
	r := []rune(base)[0]
	k.Code = r
	if k.Mod&^tea.ModShift == 0 {
		k.Text = base
	}
	return tea.KeyPressMsg(k)
}

// runView is a fixed run view for the panes of a test: the given pane ids
// get dispatches with the given statuses, dispatched at fixed times.
func runView(dispatches ...dispatchSpec) view.RunView {
	v := view.RunView{
		Title:     "dev-10860 feature-analysis 002",
		Backend:   "cockpit-pane",
		BatchKind: "initial",
		Next:      &nextPhase,
		Timeline: []view.TimelineEntry{
			{At: testNow.Add(-9 * time.Minute), Line: "PROGRESS: phase-1-intake"},
			{At: testNow.Add(-8 * time.Minute), Line: "PROGRESS: phase-2-prompts"},
			{At: testNow.Add(-7 * time.Minute), Line: "PROGRESS: phase-3-team-create using implicit team"},
			{At: testNow.Add(-6 * time.Minute), Line: "PROGRESS: phase-4-dispatch worker=Codex worker model=gpt-6.1-sol"},
			{At: testNow.Add(-5 * time.Minute), Line: "PROGRESS: phase-4-dispatch worker=Claude worker model=opus"},
			{At: testNow.Add(-4 * time.Minute), Line: "PROGRESS: phase-5-poll pending=2 done=0"},
		},
	}
	for i, d := range dispatches {
		sd := dispatch(d, i)
		v.Dispatches = append(v.Dispatches, sd)
		if sd.Terminal() {
			v.Batch.Done++
		} else {
			v.Batch.Pending++
		}
	}
	return v
}

// dispatchSpec describes a fixture dispatch: its pane, label and status,
// how long ago it was dispatched and, when terminal, how long it ran.
type dispatchSpec struct {
	pane, label string
	model       string
	status      state.Status
	ago, ran    time.Duration
}

func dispatch(d dispatchSpec, i int) state.Dispatch {
	sd := state.Dispatch{
		DispatchID:     fmt.Sprintf("d-%03d", i+1),
		DispatchKind:   "initial",
		PaneID:         d.pane,
		ExecutionLabel: d.label,
		Model:          d.model,
		Status:         d.status,
		DispatchedAt:   testNow.Add(-d.ago).Format(time.RFC3339),
	}
	if sd.Terminal() {
		sd.SettledAt = testNow.Add(-d.ago + d.ran).Format(time.RFC3339)
	}
	return sd
}

var nextPhase = state.NextPhase{Phase: "phase-6-synthesis", Status: "ready", Rationale: "every analyser settled"}

// leakedGoroutines returns the stacks of goroutines of the tui or panes
// packages still running.
func leakedGoroutines() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "okstra/cockpit/tui.") && !strings.Contains(g, "testing.tRunner") && !strings.Contains(g, "leakedGoroutines") {
			out = append(out, g)
		}
		if strings.Contains(g, "okstra/cockpit/panes.") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}

// The overlays on a screen, for the tests.
func gateOf(a *App) *gateDialog          { return overlayOf[*gateDialog](a) }
func overviewOf(a *App) *overviewOverlay { return overlayOf[*overviewOverlay](a) }
func resultOf(a *App) *resultView        { return overlayOf[*resultView](a) }
func confirmOf(a *App) *confirmOverlay   { return overlayOf[*confirmOverlay](a) }
func helpOpen(a *App) bool               { return overlayOf[*helpOverlay](a) != nil }
func promptOf(a *App) *searchPrompt      { return overlayOf[*searchPrompt](a) }
