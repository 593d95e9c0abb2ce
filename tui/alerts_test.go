package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/panes/term"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

func TestParseAlerts(t *testing.T) {
	all := DefaultAlerts()
	cases := []struct {
		in   string
		want Alerts
	}{
		{"", all},
		{"all", all},
		{"ON", all},
		{"off", Alerts{}},
		{"none", Alerts{}},
		{"bell,osc", all},
		{"bell", Alerts{Kinds: allAlertKinds, Bell: true}},
		{"osc", Alerts{Kinds: allAlertKinds, OSC: true}},
		{"gate, fail", Alerts{Kinds: AlertGate | AlertFail, Bell: true, OSC: true}},
		{"fail,bell", Alerts{Kinds: AlertFail, Bell: true}},
		{"-batch", Alerts{Kinds: AlertGate | AlertFail | AlertPane, Bell: true, OSC: true}},
		{"-pane,-osc", Alerts{Kinds: AlertGate | AlertFail | AlertBatch, Bell: true}},
		{"all,-osc", Alerts{Kinds: allAlertKinds, Bell: true}},
	}
	for _, c := range cases {
		got, err := ParseAlerts(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseAlerts(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
		// String reads back to the same alerts.
		if back, err := ParseAlerts(got.String()); err != nil || back != got {
			t.Errorf("ParseAlerts(%q).String() = %q reads back as %+v, %v", c.in, got.String(), back, err)
		}
	}
	for _, bad := range []string{"bogus", "gate,beep", "all,nope"} {
		if _, err := ParseAlerts(bad); err == nil || !strings.Contains(err.Error(), "unknown alert") || !strings.Contains(err.Error(), "gate, fail, batch, pane") {
			t.Errorf("ParseAlerts(%q): %v, want an error naming the choices", bad, err)
		}
	}
	a, err := AlertsFor([]string{"TERM=xterm-256color", "VTE_VERSION=7600", "TMUX=/tmp/tmux-0/default,1,0", "COCKPIT_ALERTS=fail"})
	if err != nil || a.Kinds != AlertFail || !a.OSC777 || !a.Tmux {
		t.Fatalf("AlertsFor: %+v, %v", a, err)
	}
	if got := a.notification("x"); got != "\x1bPtmux;\x1b\x1b]777;notify;cockpit;x\x07\x1b\\" {
		t.Fatalf("a tmux VTE notification: %q", got)
	}
	if a, _ := AlertsFor([]string{"TERM=rxvt-unicode"}); !a.OSC777 || a != (Alerts{Kinds: allAlertKinds, Bell: true, OSC: true, OSC777: true}) {
		t.Fatalf("urxvt: %+v", a)
	}
}

// raws runs msg through a, feeding the commands' messages back, and
// returns what it wrote to the terminal (tea.Raw).
func raws(a *App, msg tea.Msg) []string {
	var out []string
	var exec func(tea.Cmd)
	exec = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch m := c().(type) {
		case nil:
		case tea.BatchMsg:
			for _, sub := range m {
				exec(sub)
			}
		case tea.RawMsg:
			out = append(out, m.Msg.(string))
		default:
			out = append(out, raws(a, m)...)
		}
	}
	_, cmd := a.Update(msg)
	exec(cmd)
	return out
}

// alertRun is a run view of two workers in pane-2 and pane-3 with the
// given statuses, dispatched together.
func alertRun(s2, s3 state.Status) view.ViewUpdated {
	v := runView(
		dispatchSpec{pane: "pane-2", label: "Codex analyser · gpt-6.1-sol", status: s2, ago: time.Minute, ran: 30 * time.Second},
		dispatchSpec{pane: "pane-3", label: "Antigravity analyser · gemini", status: s3, ago: time.Minute, ran: 40 * time.Second},
	)
	if s3 == state.StatusError {
		one := 1
		v.Dispatches[1].ExitCode, v.Dispatches[1].Reason = &one, "the model refused"
	}
	return view.ViewUpdated{View: v}
}

// TestAlertsRing: a worker failing and its batch settling ring the bell
// and send a notification each (once), show on the status line and flag
// the worker's pane and the lead's; what had happened before the screen's
// first view does not ring; a kind turned off only shows.
func TestAlertsRing(t *testing.T) {
	a := dryApp(t, 120, 30, 2)
	if got := raws(a, alertRun(state.StatusError, state.StatusInProgress)); len(got) != 0 {
		t.Fatalf("the first view rang for what happened before: %q", got)
	}
	if got := raws(a, alertRun(state.StatusCompleted, state.StatusInProgress)); len(got) != 0 {
		t.Fatalf("a completed worker rang: %q", got)
	}
	got := raws(a, alertRun(state.StatusCompleted, state.StatusError))
	want := "\a\x1b]9;cockpit: Antigravity analyser · gemini failed: exit 1: the model refused\x07" +
		"\x1b]9;cockpit: batch 1 · initial · dispatched 15:08:26 · 1 done, 1 failed · settled after 40s\x07"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("failure and settled batch wrote %q\nwant %q", got, want)
	}
	// The failed worker's pane is flagged; the lead's is focused, so not.
	if !a.byID["pane-3"].attention || a.focused().id != "pane-1" || a.byID["pane-1"].attention {
		t.Errorf("flags: worker %v, lead %v (focused %s)", a.byID["pane-3"].attention, a.byID["pane-1"].attention, a.focused().id)
	}
	if s := ansi.Strip(a.statusLine()); !strings.Contains(s, "batch 1 · initial") {
		t.Errorf("status line: %q", s)
	}
	if got := raws(a, alertRun(state.StatusCompleted, state.StatusError)); len(got) != 0 {
		t.Fatalf("the same view rang again: %q", got)
	}
	// A teardown writes running workers off as errors: not a failure.
	torn := alertRun(state.StatusCompleted, state.StatusError)
	torn.View.Dispatches = append(torn.View.Dispatches, dispatch(dispatchSpec{pane: "pane-9", label: "Claude analyser", status: "in-progress", ago: time.Second}, 2))
	torn.View.Dispatches[2].DispatchKind = "reverify-r1"
	torn.View.Batch = view.Counts{Pending: 1}
	if got := raws(a, torn); len(got) != 0 {
		t.Fatalf("a new batch rang: %q", got)
	}
	torn.View.Dispatches[2].Status, torn.View.Dispatches[2].Reason = state.StatusError, state.TeardownReason
	torn.View.Dispatches[2].SettledAt = testNow.Format(time.RFC3339)
	torn.View.Batch = view.Counts{Done: 1}
	if got := raws(a, torn); len(got) != 1 || strings.Contains(got[0], "Claude analyser failed") || !strings.Contains(got[0], "batch 2 · reverify-r1") {
		t.Fatalf("a torn-down worker: wrote %q", got)
	}
	// Focusing the pane clears its flag.
	keys(a, "3")
	if a.byID["pane-3"].attention {
		t.Error("focusing the failed worker's pane did not clear its flag")
	}

	// Off: the status line and the flag only.
	off := dryApp(t, 120, 30, 2)
	off.alerts = Alerts{}
	raws(off, alertRun(state.StatusInProgress, state.StatusInProgress))
	if got := raws(off, alertRun(state.StatusCompleted, state.StatusError)); len(got) != 0 {
		t.Fatalf("alerts off still wrote %q", got)
	}
	if !strings.Contains(off.notice, "batch 1") || !off.byID["pane-3"].attention {
		t.Errorf("alerts off: notice %q, flag %v", off.notice, off.byID["pane-3"].attention)
	}
	// Failures only, as a bell.
	fail := dryApp(t, 120, 30, 2)
	fail.alerts, _ = ParseAlerts("fail,bell")
	raws(fail, alertRun(state.StatusInProgress, state.StatusInProgress))
	if got := raws(fail, alertRun(state.StatusCompleted, state.StatusError)); len(got) != 1 || got[0] != "\a" {
		t.Fatalf("fail,bell wrote %q", got)
	}
}

// TestPaneBellAlerts: a pane's bell and notification reach the terminal,
// at most once a second per pane.
func TestPaneBellAlerts(t *testing.T) {
	a := dryApp(t, 120, 30, 2)
	bell := framesMsg{snaps: []paneSnap{{id: "pane-2", events: []term.Event{{Kind: term.EventBell}}}}}
	if got := raws(a, bell); len(got) != 1 || got[0] != "\a\x1b]9;cockpit: worker-pane-2: bell\x07" {
		t.Fatalf("a pane's bell wrote %q", got)
	}
	if !a.byID["pane-2"].attention || a.notice != "worker-pane-2: bell" {
		t.Fatalf("flag %v, notice %q", a.byID["pane-2"].attention, a.notice)
	}
	if got := raws(a, bell); len(got) != 0 {
		t.Fatalf("a second bell within a second wrote %q", got)
	}
	// The focused pane, in sight while navigating, rings without a flag
	// (issue 17, finding 19); the notice still says it.
	if a.focused().id != "pane-1" || a.mode != modeNav {
		t.Fatalf("focus %s mode %v", a.focused().id, a.mode)
	}
	raws(a, framesMsg{snaps: []paneSnap{{id: "pane-1", events: []term.Event{{Kind: term.EventBell}}}}})
	if a.byID["pane-1"].attention || a.notice != "lead: bell" {
		t.Fatalf("the focused lead's bell: flag %v, notice %q", a.byID["pane-1"].attention, a.notice)
	}
	note := framesMsg{snaps: []paneSnap{{id: "pane-3", events: []term.Event{{Kind: term.EventNotify, Title: "claude", Body: "needs your input"}}}}}
	if got := raws(a, note); len(got) != 1 || got[0] != "\a\x1b]9;cockpit: worker-pane-3: claude: needs your input\x07" {
		t.Fatalf("a pane's notification wrote %q", got)
	}
}

// TestAlertsReachTheirClient: two screens served over sockets (as the
// engine serves attached clients) on one Manager; a pane rings its bell
// and notifies. The bell and the notification arrive in the terminal of
// the client whose alerts are on, read by its emulator, and not in the
// other's, which still shows the notice.
func TestAlertsReachTheirClient(t *testing.T) {
	mgr := panes.NewManager()
	t.Cleanup(func() { _ = mgr.CloseAll() })
	on := serveScreen(t, mgr, 100, 30, Config{})
	off := serveScreen(t, mgr, 100, 30, Config{Alerts: &Alerts{}})
	var evs []term.Event
	on.mu.Lock()
	on.term.SetCallbacks(nil, func(ev term.Event) {
		if ev.Kind != term.EventTitle {
			evs = append(evs, ev)
		}
	})
	on.mu.Unlock()
	var offEvs []term.Event
	off.mu.Lock()
	off.term.SetCallbacks(nil, func(ev term.Event) {
		if ev.Kind != term.EventTitle {
			offEvs = append(offEvs, ev)
		}
	})
	off.mu.Unlock()
	on.waitOutput("NAV")
	off.waitOutput("NAV")
	if _, err := mgr.Open(panes.Config{Argv: []string{paneprog(), "notify", "hello"}, Cols: 40, Rows: 10}); err != nil {
		t.Fatal(err)
	}
	on.waitOutput("pane-1: hello")
	off.waitOutput("pane-1: hello")
	deadline := time.Now().Add(testenv.Scale(15 * time.Second))
	for {
		on.mu.Lock()
		got := append([]term.Event(nil), evs...)
		on.mu.Unlock()
		if len(got) >= 2 {
			if got[0].Kind != term.EventBell || got[1].Kind != term.EventNotify || got[1].Body != "cockpit: pane-1: hello" {
				t.Fatalf("the client's terminal got %+v", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the client's terminal got no bell and notification: %+v", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	off.mu.Lock()
	defer off.mu.Unlock()
	if len(offEvs) != 0 {
		t.Fatalf("the client with alerts off got %+v", offEvs)
	}
}
