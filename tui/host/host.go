// Package host serves an engine's attached screens: for each client that
// attaches over the control socket (docs/PROTOCOL.md, "Attached screens")
// it runs one tui.App on the engine's pane Manager through tui/attach, with
// the client's size, environment and read-only wish, and forwards the
// engine's events to it. Every screen of one engine shares one
// tui.SizeArbiter (the panes take the size of the screen active last), and
// the last screen that detached leaves its view (focus, zoom, timeline,
// input mode) to the next one.
//
// It sits between cmd and the engine: runtime/engine does not import the
// screen, it calls the hook Host.Attach (engine.Config.Attach). A screen
// that panics ends alone (attach recovers inside the program; the
// goroutines here recover too): the engine and its panes go on. An engine
// with no screen attached runs no renderer and no timer.
package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/okstra/cockpit/panes/term"
	"github.com/okstra/cockpit/runtime/engine"
	"github.com/okstra/cockpit/tui"
	"github.com/okstra/cockpit/tui/attach"
)

// Host serves the attached screens of one engine.
type Host struct {
	prefix string
	sizes  tui.SizeArbiter
	ready  chan struct{}
	eng    *engine.Engine

	mu       sync.Mutex
	last     *tui.ViewState // the last detached screen's view
	scripted bool           // the lead is a script (tui.Config.ScriptedLead)
	sessions map[*attach.Session]struct{}
	gone     chan struct{} // a session ended (buffered 1)
	// colors are the terminal colours the attached screens reported,
	// oldest report first; the panes answer with the newest.
	colors []screenColors
}

// screenColors is one screen's terminal colours.
type screenColors struct {
	s *attach.Session
	c term.Colors
}

// New returns a host whose screens use prefix (empty: tui.DefaultPrefix).
// Give its Attach to engine.Config.Attach, then the started engine to
// SetEngine: a screen attaching in between waits for it.
func New(prefix string) *Host {
	return &Host{prefix: prefix, ready: make(chan struct{}), sessions: map[*attach.Session]struct{}{}, gone: make(chan struct{}, 1)}
}

// SetScriptedLead says the lead's pane runs a script the human watches
// (the demo's): its screens start in navigation (tui.Config.ScriptedLead).
func (h *Host) SetScriptedLead(on bool) {
	h.mu.Lock()
	h.scripted = on
	h.mu.Unlock()
}

// SetEngine gives the host its engine; call it once, after engine.Start.
func (h *Host) SetEngine(e *engine.Engine) {
	h.eng = e
	close(h.ready)
}

// Attach serves one attached screen until it ends: the engine's attach
// hook (engine.Config.Attach). It owns conn.
func (h *Host) Attach(ctx context.Context, conn io.ReadWriteCloser, raw json.RawMessage) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("screen panicked: %v\n%s", r, debug.Stack())
			conn.Close()
		}
	}()
	select {
	case <-h.ready:
	case <-ctx.Done():
		conn.Close()
		return ctx.Err()
	}
	var p attach.Params
	if err := json.Unmarshal(raw, &p); err != nil {
		conn.Close()
		return fmt.Errorf("attach params: %w", err)
	}
	eng := h.eng
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h.mu.Lock()
	restore, scripted := h.last, h.scripted
	h.mu.Unlock()
	// The client checked its alerts; a bad list still gets the default.
	alerts, _ := tui.AlertsFor(p.Env)
	app := tui.New(tui.Config{
		Manager:  eng.Manager(),
		Prefix:   h.prefix,
		NoColor:  noColor(p.Env),
		LeadPane: eng.LeadPane(),
		Context:  sctx,
		Attached: true,
		ReadOnly: p.ReadOnly,
		Sizes:    &h.sizes,
		Restore:  restore,
		// The first key reaches the lead (a restored view state wins).
		TypeIntoLead: true,
		ScriptedLead: scripted,
		// The run overview reads the workers' logs and results.
		ProjectRoot: eng.ProjectRoot(),
		// Bells and notifications go to this client's terminal, through
		// its session's output.
		Alerts: &alerts,
		Actions: tui.Actions{
			ClosePane:   func(id string) { _ = eng.ClosePane(id, "closed from the screen") },
			AnswerGate:  eng.AnswerGate,
			RespawnLead: eng.RespawnLead,
			EndRun:      eng.Stop,
			Screen: func(s tui.ScreenSize) {
				eng.SetScreen(engine.ScreenSize(s))
			},
		},
	})
	sess := attach.NewSession(conn, p, app, tui.ProgramOptions()...)
	sess.OnColors(func(c term.Colors) { h.screenColors(sess, c) })
	// The view a detached screen leaves is kept before its client gets the
	// exit frame: a screen attaching the moment that client exits gets it.
	sess.OnEnd(func(o attach.Outcome) {
		if o.Reason == attach.ReasonDetached {
			vs := app.ViewState()
			h.mu.Lock()
			h.last = &vs
			h.mu.Unlock()
		}
	})
	h.mu.Lock()
	h.sessions[sess] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.sessions, sess)
		h.mu.Unlock()
		h.screenGone(sess)
		select {
		case h.gone <- struct{}{}:
		default:
		}
	}()
	// The engine's events, the open panes and the current view first (so
	// titles and counts show at once), until the session ends. What queued
	// up meanwhile goes in one message: the opening burst (a PaneOpened per
	// pane and the view) is one Update and one View, not one per pane.
	events, stop := eng.SubscribeBatches()
	forwarded := make(chan struct{})
	go func() {
		defer close(forwarded)
		defer func() {
			if r := recover(); r != nil {
				log.Printf("cockpit engine: forwarding events to a screen: %v\n%s", r, debug.Stack())
				sess.End(attach.Outcome{Reason: attach.ReasonEngineError, Message: fmt.Sprint("the screen failed: ", r)})
				for range events { // drain until stop closes it
				}
			}
		}()
		for batch := range events {
			if len(batch) == 1 {
				sess.Send(batch[0])
			} else {
				evs := make(tui.EngineEvents, len(batch))
				for i, ev := range batch {
					evs[i] = ev
				}
				sess.Send(evs)
			}
		}
	}()
	out, runErr := sess.Run(sctx)
	app.Stop()
	stop()
	<-forwarded
	if runErr != nil {
		return fmt.Errorf("screen ended %s: %w", out.Reason, runErr)
	}
	return nil
}

// screenColors records the colours s's terminal reported; the panes answer
// colour queries with them (the newest report wins, as the newest screen
// is the one a person just attached from).
func (h *Host) screenColors(s *attach.Session, c term.Colors) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.colors = slices.DeleteFunc(h.colors, func(sc screenColors) bool { return sc.s == s })
	h.colors = append(h.colors, screenColors{s, c})
	h.eng.Manager().SetColors(c)
}

// screenGone forgets s's colours; when they were the panes', the newest of
// the screens still attached take over. With no screen left the panes keep
// the last colours reported: the next screen most likely comes from the
// same terminal, and a program that asked again meanwhile gets the same
// answer as before.
func (h *Host) screenGone(s *attach.Session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(h.colors)
	if n == 0 || h.colors[n-1].s != s {
		h.colors = slices.DeleteFunc(h.colors, func(sc screenColors) bool { return sc.s == s })
		return
	}
	h.colors = h.colors[:n-1]
	if n > 1 {
		h.eng.Manager().SetColors(h.colors[n-2].c)
	}
}

// EndAll ends every attached screen with o and waits for them to go, at
// most wait.
func (h *Host) EndAll(o attach.Outcome, wait time.Duration) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		h.mu.Lock()
		n := len(h.sessions)
		for s := range h.sessions {
			go s.End(o) // the first outcome wins: ending twice is harmless
		}
		h.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-h.gone:
		case <-deadline.C:
			return
		}
	}
}

// Screens counts the screens being served.
func (h *Host) Screens() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// noColor is the NO_COLOR convention read from the client's environment.
func noColor(env []string) bool {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "NO_COLOR="); ok && v != "" {
			return true
		}
	}
	return false
}
