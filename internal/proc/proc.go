// Package proc owns ending processes: the one signal escalation of the
// cockpit (a polite signal, a grace, a firmer one, …, SIGKILL), over a
// process group (Group), a process held by its pidfd (Open) or any target
// that can be signalled and waited on (a pane's program). Escalate runs it
// to the end for a caller that can block; Escalation steps it from an
// event loop (the worker wrapper's supervisor, which must also react to
// the CLI's exit and to a second signal while it waits).
//
// A step's signal is sent only while the target is not gone, so a target
// that exits at once is sent nothing more. Gone means exited, not reaped:
// a child seen exiting through its pidfd is still a zombie to kill(pid, 0)
// until its parent reaps it, so liveness here is never kill(pid, 0).
package proc

import (
	"context"
	"errors"
	"syscall"
	"time"
)

// Step is one stage of an escalation: send Sig (0: send nothing, only
// wait), then give the target Grace to be gone.
type Step struct {
	Sig   syscall.Signal
	Grace time.Duration
}

// Steps is the cockpit's escalation for a program it ends on purpose:
// SIGHUP (a terminal hung up), SIGTERM, each followed by grace, then
// SIGKILL and killWait for the kernel to finish it.
func Steps(grace, killWait time.Duration) []Step {
	return []Step{{syscall.SIGHUP, grace}, {syscall.SIGTERM, grace}, {syscall.SIGKILL, killWait}}
}

// ErrGone is what a Target's Signal returns once the target is gone.
var ErrGone = errors.New("the process is gone")

// Target is what an escalation ends.
type Target interface {
	// Signal sends sig; ErrGone (or ESRCH) when the target is gone.
	Signal(sig syscall.Signal) error
	// Wait waits until the target is gone, d has passed or ctx ends, and
	// reports whether it is gone; Wait(ctx, 0) looks without waiting.
	Wait(ctx context.Context, d time.Duration) bool
}

// Result is how an escalation ended.
type Result struct {
	Sent syscall.Signal // the last signal sent, 0 if none
	Gone bool           // the target is gone
}

// Escalate runs steps against t until t is gone, the steps run out or ctx
// ends: each step's signal is sent only while t is not gone, then t gets
// the step's grace.
func Escalate(ctx context.Context, t Target, steps []Step) Result {
	var r Result
	for _, s := range steps {
		if t.Wait(ctx, 0) {
			r.Gone = true
			return r
		}
		if s.Sig != 0 {
			if err := t.Signal(s.Sig); isGone(err) {
				r.Gone = true
				return r
			}
			r.Sent = s.Sig
		}
		if t.Wait(ctx, s.Grace) {
			r.Gone = true
			return r
		}
		if ctx.Err() != nil {
			return r
		}
	}
	return r
}

func isGone(err error) bool {
	return errors.Is(err, ErrGone) || errors.Is(err, syscall.ESRCH)
}

// Escalation is an escalation its owner's event loop steps: Begin sends
// the first step's signal and arms its grace; C fires when the grace of
// the current step is over, and the owner calls Next, which sends the
// next step's signal — or calls Next early, to insist. The owner decides
// when the target is gone (it stops stepping). Its methods are for one
// goroutine; a nil Escalation has not begun (C is nil, Stop does nothing).
type Escalation struct {
	t     Target
	steps []Step
	i     int
	sent  syscall.Signal
	timer *time.Timer
}

// Begin starts steps against t: the first step's signal is sent now.
func Begin(t Target, steps []Step) *Escalation {
	e := &Escalation{t: t, steps: steps, i: -1}
	e.Next()
	return e
}

// Next sends the next step's signal and arms its grace; false when no
// step was left.
func (e *Escalation) Next() bool {
	e.Stop()
	if e.i+1 >= len(e.steps) {
		return false
	}
	e.i++
	s := e.steps[e.i]
	if s.Sig != 0 {
		_ = e.t.Signal(s.Sig)
		e.sent = s.Sig
	}
	// A step followed by another arms its grace even when it is zero (a
	// zero kill grace steps straight on, it never stops the escalation).
	if s.Grace > 0 || e.i+1 < len(e.steps) {
		e.timer = time.NewTimer(s.Grace)
	}
	return true
}

// C fires once the current step's grace is over (nil: no grace pending).
func (e *Escalation) C() <-chan time.Time {
	if e == nil || e.timer == nil {
		return nil
	}
	return e.timer.C
}

// Sent is the last signal sent.
func (e *Escalation) Sent() syscall.Signal {
	if e == nil {
		return 0
	}
	return e.sent
}

// Stop disarms the current grace.
func (e *Escalation) Stop() {
	if e == nil || e.timer == nil {
		return
	}
	e.timer.Stop()
	e.timer = nil
}
