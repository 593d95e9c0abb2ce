package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// stopSignals are the signals a command ends on gracefully.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// signalCause is the cause of the root context's cancellation when a
// signal ended it: Main reads it back (context.Cause) to exit 128+signal
// with "interrupted by <SIG>", and a command that passes a signal on can
// name the one that came.
type signalCause struct{ sig syscall.Signal }

func (e *signalCause) Error() string { return "interrupted by " + unix.SignalName(e.sig) }

// Signal is the signal that came: the engine, given the root context, can
// pass this one on (errors.As(context.Cause(ctx), &interface{ Signal()
// os.Signal })) without knowing this package.
func (e *signalCause) Signal() os.Signal { return e.sig }

// Is makes a signal cause read as context.Canceled.
func (e *signalCause) Is(target error) bool { return target == context.Canceled }

// signalOf returns the signal that cancelled ctx, 0 if none did.
func signalOf(ctx context.Context) syscall.Signal {
	var sc *signalCause
	if errors.As(context.Cause(ctx), &sc) {
		return sc.sig
	}
	return 0
}

// signalCtx is the one signal-aware context of a cockpit process, made in
// Main and handed to every command (cmd.Context()): like
// signal.NotifyContext, but the first SIGINT, SIGTERM or SIGHUP is the
// context's cause (signalOf).
//
// It catches the signals from the first call of Done: from the moment a
// command (or a context derived from this one) can wait for them. A
// command that never waits — most headless calls, which a lead makes
// dozens of times a run — pays nothing for signal handling (starting it
// costs about as much as an empty Go program's whole run), and a signal
// before then keeps its default action, as it would without a handler.
type signalCtx struct {
	context.Context
	cancel context.CancelCauseFunc

	once    sync.Once
	ch      chan os.Signal // nil until Done was called
	stopped chan struct{}  // closed when the watcher ends
}

func newSignalContext(parent context.Context) *signalCtx {
	ctx, cancel := context.WithCancelCause(parent)
	return &signalCtx{Context: ctx, cancel: cancel}
}

// Done starts catching the signals, once, and returns the channel closed
// on the first of them (or on stop).
func (c *signalCtx) Done() <-chan struct{} {
	c.once.Do(c.watch)
	return c.Context.Done()
}

func (c *signalCtx) watch() {
	c.ch = make(chan os.Signal, 1)
	c.stopped = make(chan struct{})
	signal.Notify(c.ch, stopSignals...)
	inner := c.Context.Done()
	go func() {
		defer close(c.stopped)
		select {
		case s := <-c.ch:
			c.cancel(&signalCause{sig: s.(syscall.Signal)})
		case <-inner:
		}
	}()
}

// stop releases the signals (a later one takes its default action) and
// ends the watcher.
func (c *signalCtx) stop() {
	c.once.Do(func() {}) // no watcher from here on
	c.cancel(context.Canceled)
	if c.ch != nil {
		signal.Stop(c.ch)
		<-c.stopped
	}
}
