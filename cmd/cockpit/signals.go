package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// stopSignals are the signals a command ends on gracefully.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// signalCause is the cause of the root context's cancellation when a
// signal ended it: Main reads it back (context.Cause) to exit 128+signal
// with "interrupted by <SIG>", and a command that passes a signal on (the
// worker wrapper's batch) can name the one that came.
type signalCause struct{ sig syscall.Signal }

func (e *signalCause) Error() string { return "interrupted by " + unix.SignalName(e.sig) }

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

// signalContext is the one signal-aware context of a cockpit process, made
// in Main and handed to every command (cmd.Context()): like
// signal.NotifyContext, but the first SIGINT, SIGTERM or SIGHUP is the
// context's cause. stop releases the signals: a second one after that
// takes its default action.
func signalContext(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals...)
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case s := <-ch:
			cancel(&signalCause{sig: s.(syscall.Signal)})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(context.Canceled)
		<-done
	}
}
