package tui

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/panes/vt"
	"github.com/okstra/cockpit/tui/attach"
)

// servedScreen is an App served by attach.Serve over a real socket pair,
// with the client's side read as the attach client would.
type servedScreen struct {
	t      *testing.T
	app    *App
	client net.Conn

	mu      sync.Mutex
	term    *vt.Emulator    // the client's terminal: output frames written to it
	exit    *attach.Outcome // the exit frame
	outcome chan attach.Outcome
}

func serveScreen(t *testing.T, mgr *panes.Manager, cols, rows int, cfg Config) *servedScreen {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) net.Conn {
		f := os.NewFile(uintptr(fd), "sock")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	host, client := conn(fds[0]), conn(fds[1])
	cfg.Manager = mgr
	cfg.Attached = true
	cfg.Now = func() time.Time { return testNow }
	s := &servedScreen{t: t, app: New(cfg), client: client, term: vt.New(cols, rows), outcome: make(chan attach.Outcome, 1)}
	go func() {
		o, err := attach.Serve(context.Background(), host, attach.Params{Cols: cols, Rows: rows, Env: []string{"TERM=xterm-256color"}}, s.app, ProgramOptions()...)
		if err != nil {
			t.Errorf("serve: %v", err)
		}
		s.app.Stop() // as the engine does once the session ended
		s.outcome <- o
	}()
	go func() {
		dec := attach.NewDecoder(client)
		for {
			f, err := dec.Next()
			if err != nil {
				return
			}
			s.mu.Lock()
			switch f.Type {
			case attach.FrameOutput:
				// The client's tty keeps OPOST|ONLCR: bubbletea writes
				// newlines that the terminal gets as CR LF.
				_, _ = s.term.Write(bytes.ReplaceAll(f.Payload, []byte("\n"), []byte("\r\n")))
			case attach.FrameExit:
				o := f.Outcome()
				s.exit = &o
			}
			s.mu.Unlock()
		}
	}()
	t.Cleanup(func() { _ = client.Close() })
	return s
}

// typeBytes sends raw terminal input, as the client relays it.
func (s *servedScreen) typeBytes(b string) {
	s.t.Helper()
	if _, err := s.client.Write(attach.AppendFrame(nil, attach.FrameInput, []byte(b))); err != nil {
		s.t.Fatal(err)
	}
}

// screen is the client's terminal as the user would see it.
func (s *servedScreen) screen() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, rows := s.term.Size()
	var b []byte
	for y := range rows {
		b = s.term.AppendLine(b, y, false)
		b = append(b, '\n')
	}
	return string(b)
}

// waitOutput waits until the client's terminal shows want.
func (s *servedScreen) waitOutput(want string) {
	s.t.Helper()
	deadline := time.Now().Add(testenv.Scale(15 * time.Second))
	for {
		got := s.screen()
		if strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the client never showed %q; it shows:\n%s", want, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *servedScreen) ended() attach.Outcome {
	s.t.Helper()
	select {
	case o := <-s.outcome:
		s.mu.Lock()
		defer s.mu.Unlock()
		deadline := time.Now().Add(testenv.Scale(5 * time.Second))
		for s.exit == nil && time.Now().Before(deadline) {
			s.mu.Unlock()
			time.Sleep(10 * time.Millisecond)
			s.mu.Lock()
		}
		if s.exit == nil || *s.exit != o {
			s.t.Fatalf("exit frame %+v, session outcome %+v", s.exit, o)
		}
		return o
	case <-time.After(15 * time.Second):
		s.t.Fatal("the session did not end")
	}
	return attach.Outcome{}
}

// TestServedScreens runs two screens of one engine through attach.Serve:
// prefix d detaches one (the panes go on, the other screen takes the
// panes' size), the other comes back as the first was; q e ends the run.
func TestServedScreens(t *testing.T) {
	mgr := panes.NewManager()
	t.Cleanup(func() { _ = mgr.CloseAll() })
	var ids []string
	for _, m := range []string{"LEAD", "WORKER"} {
		p, err := mgr.Open(panes.Config{Argv: []string{paneprog(), "static", m}, Cols: 10, Rows: 5, CloseGrace: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID())
	}
	arb := &SizeArbiter{}
	var endRuns atomic.Int32
	cfg := Config{LeadPane: ids[0], Sizes: arb, Actions: Actions{EndRun: func() { endRuns.Add(1) }}}
	one := serveScreen(t, mgr, 100, 30, cfg)
	one.waitOutput("WORKER size=49x")
	two := serveScreen(t, mgr, 70, 20, cfg) // the latest: the panes take its size
	two.waitOutput("WORKER size=34x")
	one.waitOutput("WORKER size=34x") // drawn cut on the first screen
	one.typeBytes("l\r")              // typing into the worker; the panes come back to its size
	one.waitOutput("WORKER size=49x")
	two.waitOutput("WORKER size=49x") // and the second screen draws them so
	one.typeBytes("\x02d")            // ctrl+b d
	if o := one.ended(); o.Reason != attach.ReasonDetached {
		t.Fatalf("prefix d ended the session as %+v", o)
	}
	for _, id := range ids {
		if p, ok := mgr.Get(id); !ok || p.Snapshot().Exited {
			t.Fatalf("%s did not survive the detach", id)
		}
	}
	if n := endRuns.Load(); n != 0 {
		t.Fatalf("detach ended the run %d times", n)
	}
	vs := one.app.ViewState()
	if want := (ViewState{Focus: ids[1], Input: true}); vs != want {
		t.Fatalf("view state left: %+v, want %+v", vs, want)
	}
	// The first screen left: the second sizes the panes again, by itself.
	two.waitOutput("WORKER size=34x")

	cfg.Restore = &vs
	back := serveScreen(t, mgr, 100, 30, cfg)
	back.waitOutput("[input]")
	if focusedPane(back.app) != ids[1] {
		t.Fatal("the restored screen's focus is not the worker")
	}
	back.typeBytes("\x02q")
	back.waitOutput("Detach, or end the run?")
	back.typeBytes("e")
	if o := back.ended(); o.Reason != attach.ReasonRunEnded || o.Message != "the run was ended from this screen" {
		t.Fatalf("q e ended the session as %+v", o)
	}
	if n := endRuns.Load(); n != 1 {
		t.Fatalf("EndRun called %d times", n)
	}
	two.typeBytes("\x02d")
	if o := two.ended(); o.Reason != attach.ReasonDetached {
		t.Fatalf("the second screen ended as %+v", o)
	}
	if err := mgr.CloseAll(); err != nil && !errors.Is(err, panes.ErrClosed) {
		t.Fatal(err)
	}
	waitNoGoroutines(t, leakedGoroutines)
}

// focusedPane reads the focus from the published view state (the program
// owns the App).
func focusedPane(a *App) string { return a.ViewState().Focus }
