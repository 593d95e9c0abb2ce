package tui

import (
	"errors"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
)

// AlertsEnv is the environment variable that chooses the alerts (the
// default of the --alerts flag of open, attach and demo); an attaching
// client passes it to the engine's screen with its terminal environment.
const AlertsEnv = "COCKPIT_ALERTS"

// AlertKind is something that calls the human.
type AlertKind uint8

const (
	AlertGate     AlertKind = 1 << iota // a gate opened
	AlertFail                           // a worker failed (error or timeout)
	AlertBatch                          // a batch settled: every dispatch of it is terminal
	AlertPane                           // a pane rang its bell or sent a notification
	allAlertKinds = AlertGate | AlertFail | AlertBatch | AlertPane
)

// Alerts says which alerts reach the outer terminal, and how: a bell (BEL)
// and a desktop notification (OSC 9, or OSC 777 for the terminals that
// speak that one). Every alert also shows on the status line and flags its
// pane, whatever this says.
type Alerts struct {
	Kinds AlertKind
	Bell  bool // write BEL
	OSC   bool // write a desktop notification
	// OSC777 picks `OSC 777;notify;title;body` (urxvt, VTE terminals)
	// instead of `OSC 9;body` (iTerm2, kitty, WezTerm, foot, Ghostty,
	// Windows Terminal ignores it).
	OSC777 bool
	// Tmux wraps notifications in tmux's passthrough (the client runs in
	// tmux: they reach the outer terminal when tmux has allow-passthrough
	// on; tmux shows the bell itself).
	Tmux bool
}

// DefaultAlerts is every alert, bell and notification.
func DefaultAlerts() Alerts { return Alerts{Kinds: allAlertKinds, Bell: true, OSC: true} }

var alertKindNames = map[string]AlertKind{"gate": AlertGate, "fail": AlertFail, "batch": AlertBatch, "pane": AlertPane}

// ParseAlerts reads an alert list (the --alerts flag, $COCKPIT_ALERTS):
// "all" (also empty: the default), "off" or "none", or a comma-separated
// list of kinds (gate, fail, batch, pane) and ways (bell, osc): those kinds
// (all when none is named) through those ways (both when none is named).
// A "-name" item leaves one out; a list that starts with one starts from
// all: "-batch" is every alert but settled batches, "all,-osc" every alert
// with the bell only.
func ParseAlerts(s string) (Alerts, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", "all", "on":
		return DefaultAlerts(), nil
	case "off", "none":
		return Alerts{}, nil
	}
	var kinds, dropKinds AlertKind
	var bell, osc, dropBell, dropOSC, all bool
	items := strings.Split(s, ",")
	for i, item := range items {
		item = strings.ToLower(strings.TrimSpace(item))
		name, drop := strings.CutPrefix(item, "-")
		if name == "all" && !drop && i == 0 {
			all = true
			continue
		}
		if i == 0 && drop {
			all = true
		}
		k, isKind := alertKindNames[name]
		switch {
		case isKind && drop:
			dropKinds |= k
		case isKind:
			kinds |= k
		case name == "bell":
			bell, dropBell = bell || !drop, dropBell || drop
		case name == "osc":
			osc, dropOSC = osc || !drop, dropOSC || drop
		default:
			return Alerts{}, errors.New("unknown alert " + strconv.Quote(item) + ": use all, off, or a comma-separated list of gate, fail, batch, pane (what) and bell, osc (how); -name leaves one out")
		}
	}
	a := Alerts{Kinds: kinds, Bell: bell, OSC: osc}
	if all || kinds == 0 {
		a.Kinds = allAlertKinds
	}
	if all || (!bell && !osc) {
		a.Bell, a.OSC = true, true
	}
	a.Kinds &^= dropKinds
	a.Bell = a.Bell && !dropBell
	a.OSC = a.OSC && !dropOSC
	return a, nil
}

// AlertsFor is the alerts of a client whose terminal environment is env
// (KEY=value, as attach.Params.Env): the list in its $COCKPIT_ALERTS, and
// the notification its terminal understands.
func AlertsFor(env []string) (Alerts, error) {
	get := func(k string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}
	a, err := ParseAlerts(get(AlertsEnv))
	if err != nil {
		return DefaultAlerts(), err
	}
	a.OSC777 = get("VTE_VERSION") != "" || strings.HasPrefix(get("TERM"), "rxvt")
	a.Tmux = get("TMUX") != ""
	return a, nil
}

// String is the list ParseAlerts reads back.
func (a Alerts) String() string {
	if a.Kinds == 0 || (!a.Bell && !a.OSC) {
		return "off"
	}
	var parts []string
	if a.Kinds != allAlertKinds {
		for _, n := range []string{"gate", "fail", "batch", "pane"} {
			if a.Kinds&alertKindNames[n] != 0 {
				parts = append(parts, n)
			}
		}
	}
	if a.Bell != a.OSC {
		if a.Bell {
			parts = append(parts, "bell")
		} else {
			parts = append(parts, "osc")
		}
	}
	if len(parts) == 0 {
		return "all"
	}
	return strings.Join(parts, ",")
}

// alert is one alert waiting to be written to the terminal.
type alert struct {
	kind AlertKind
	text string
}

// paneAlertGap is the least time between two alerts of one pane's bell or
// notifications reaching the terminal: a program ringing in a loop rings
// the human once a second at most.
const paneAlertGap = time.Second

// raise alerts the human: the text on the status line, the pane's flag
// (unless it is focused; a bell: unless the human is typing into it), and the bell and notification
// for the terminal (cmdAlerts) when Alerts lets this kind through.
func (a *App) raise(kind AlertKind, pv *paneView, text string) {
	a.notice = text
	switch {
	case pv == nil:
	case pv != a.focused():
		// The focused pane is in sight: no flag on it (issue 17, finding
		// 19: ⚑ stayed on the focused lead until the human typed), as
		// tmux flags only windows other than the current one.
		pv.attention = true
	}
	if a.alerts.Kinds&kind == 0 || (!a.alerts.Bell && !a.alerts.OSC) {
		return
	}
	if kind == AlertPane && pv != nil {
		now := time.Now()
		if last, ok := a.paneAlerted[pv.id]; ok && now.Sub(last) < paneAlertGap {
			return
		}
		a.paneAlerted[pv.id] = now
	}
	a.pendingAlerts = append(a.pendingAlerts, alert{kind, text})
}

// maxNotifications bounds the desktop notifications one update sends.
const maxNotifications = 3

// cmdAlerts writes the pending alerts to the outer terminal through
// bubbletea's output (tea.Raw): for an attached screen that is its own
// client's terminal, never the engine's stdout. One bell, then one
// notification per alert (at most maxNotifications).
func (a *App) cmdAlerts() tea.Cmd {
	if len(a.pendingAlerts) == 0 {
		return nil
	}
	var b strings.Builder
	if a.alerts.Bell {
		b.WriteByte('\a')
	}
	if a.alerts.OSC {
		for i, al := range a.pendingAlerts {
			if i == maxNotifications {
				break
			}
			b.WriteString(a.alerts.notification(al.text))
		}
	}
	a.pendingAlerts = a.pendingAlerts[:0]
	return tea.Raw(b.String())
}

// notification is the escape sequence of a desktop notification.
func (a Alerts) notification(text string) string {
	clean := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, text)
	seq := "\x1b]9;cockpit: " + clean + "\x07"
	if a.OSC777 {
		seq = "\x1b]777;notify;cockpit;" + clean + "\x07"
	}
	if a.Tmux {
		// tmux's passthrough: ESC doubled inside DCS tmux; ... ST.
		seq = "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return seq
}

// watchRun raises the alerts a new run view brings: a worker that failed
// (its dispatch turned error or timeout, not by the team's teardown) and a
// batch that settled. The
// first view a screen gets only sets what it compares with: what happened
// before the screen was there does not ring.
func (a *App) watchRun(prev view.RunView, first bool, v view.RunView) {
	last := map[string]state.Status{}
	for _, d := range prev.Dispatches {
		last[d.DispatchID] = d.Status
	}
	if !first {
		for _, d := range v.Dispatches {
			if (d.Status != state.StatusError && d.Status != state.StatusTimeout) || last[d.DispatchID] == d.Status {
				continue
			}
			if d.Reason == state.TeardownReason {
				continue // the lead tore the team down: not a worker failing
			}
			pv := a.byID[d.PaneID]
			if pv != nil && pv.log != nil {
				pv = nil
			}
			// The worker's own last error line, first (issue 17, finding 6).
			// The label without its model: the title has it.
			a.raise(AlertFail, pv, strings.TrimSuffix(dispatchLabel(d), " · "+d.Model)+" failed: "+exitCell(d))
		}
	}
	bs := batches(v.Dispatches)
	if first || len(bs) == 0 {
		return
	}
	cur := bs[len(bs)-1]
	pbs := batches(prev.Dispatches)
	wasPending := true // a batch not seen before had not settled
	if len(pbs) > 0 {
		pb := pbs[len(pbs)-1]
		if pb.kind == cur.kind && pb.at == cur.at {
			wasPending = prev.Batch.Pending > 0
		}
	}
	if wasPending && v.Batch.Pending == 0 && v.Batch.Done > 0 {
		var lead *paneView
		if a.leadPane != "" {
			lead = a.byID[a.leadPane]
		}
		a.raise(AlertBatch, lead, a.batchLine(len(bs), cur))
	}
}
