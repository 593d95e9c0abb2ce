package workers

import (
	"fmt"
	"strconv"
	"syscall"
	"time"

	"github.com/okstra/cockpit/state"
)

// stopReason says why the wrapper stopped the CLI, if it did.
type stopReason int

const (
	stopNone    stopReason = iota
	stopTimeout            // the idle limit passed
	stopSignal             // the wrapper got SIGTERM, SIGHUP, SIGINT or SIGQUIT
)

// ending is everything the terminal status of a run depends on: how it
// stopped, how the CLI ended, and whether the result was written.
type ending struct {
	stop      stopReason
	stopSig   syscall.Signal // the signal the wrapper got (stopSignal)
	sent      syscall.Signal // the signal forwarded to the CLI first
	insisted  syscall.Signal // a second signal that forced SIGKILL, or 0
	escalated bool           // the wrapper sent the CLI SIGKILL
	idle      time.Duration  // the idle limit
	grace     time.Duration  // the kill grace

	code int            // the CLI's exit status
	sig  syscall.Signal // the signal that ended the CLI, or 0

	result   bool   // the Result Path holds a file written during this run
	noResult string // why there is no result, when result is false
	lastLine string // the CLI's last error line from its output, or ""
	// orphaned: the wrapper's parent died before it got its signal (the
	// engine or the dispatcher that ran it is gone), so a SIGHUP is not a
	// closed pane.
	orphaned bool
	// servedMismatch is the served-model verifier's error: the evidence
	// names a model the role execution is not bound to; "" when it does
	// not (or names none).
	servedMismatch string
}

// verdict is the terminal status the wrapper writes and the status it exits
// with.
type verdict struct {
	status state.Status
	code   int
	reason string
}

// decide is the terminal status of a run: a pure function of its ending.
func decide(e ending) verdict {
	ended := "the CLI exited with status " + strconv.Itoa(e.code)
	switch {
	case e.escalated && e.sig == syscall.SIGKILL && e.insisted != 0:
		ended = fmt.Sprintf("the CLI ignored %s and was killed with SIGKILL on a second signal (%s)", signalName(e.sent), signalName(e.insisted))
	case e.escalated && e.sig == syscall.SIGKILL:
		ended = fmt.Sprintf("the CLI ignored %s and was killed with SIGKILL after %s", signalName(e.sent), e.grace)
	case e.sig != 0:
		ended = "the CLI was stopped by " + signalName(e.sig)
	}
	said := ""
	if e.lastLine != "" {
		said = ": " + e.lastLine
	}
	cleanExit := e.sig == 0 && e.code == 0
	switch {
	case e.stop == stopTimeout:
		return verdict{state.StatusTimeout, exitTimeout, fmt.Sprintf("no output for %ds (idle timeout); %s", int(e.idle/time.Second), ended)}
	case e.stop == stopSignal && !(cleanExit && e.result):
		return verdict{state.StatusError, 128 + int(e.stopSig), fmt.Sprintf("wrapper got %s (%s); %s", signalName(e.stopSig), signalCause(e.stopSig, e.orphaned), ended)}
	case e.sig != 0:
		return verdict{state.StatusError, 128 + int(e.sig), "killed by signal " + signalName(e.sig) + said}
	case e.code != 0:
		return verdict{state.StatusError, e.code, "exit status " + strconv.Itoa(e.code) + said}
	case !e.result:
		if e.lastLine != "" {
			return verdict{state.StatusError, 0, e.noResult + "; its last output line: " + e.lastLine}
		}
		return verdict{state.StatusError, 0, e.noResult}
	case e.servedMismatch != "":
		// The result was produced by a model the run did not bind: not
		// the run's result. The CLI's own status (0) is kept, as for a
		// missing result.
		return verdict{state.StatusError, 0, e.servedMismatch}
	}
	return verdict{state.StatusCompleted, 0, ""}
}

// signalCause says what a signal to the wrapper usually means.
func signalCause(s syscall.Signal, orphaned bool) string {
	switch {
	case orphaned && (s == syscall.SIGHUP || s == syscall.SIGTERM):
		return "the cockpit engine or dispatcher that ran it died"
	case s == syscall.SIGHUP:
		return "the pane was closed"
	case s == syscall.SIGINT:
		return "interrupted"
	case s == syscall.SIGQUIT:
		return "quit from the keyboard"
	}
	return "the worker was reclaimed or torn down"
}
