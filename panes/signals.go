package panes

import (
	"os"
	"os/signal"
	"syscall"
)

// childSignals are the signals a pane's program must start with at their
// default action: the ones Close and a terminal send (SIGHUP first of all),
// and the job-control ones a shell relies on.
var childSignals = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGPIPE, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU}

// resetInheritedIgnores keeps an ignored signal from reaching the panes'
// programs as ignored. A signal ignored in this process stays ignored
// across exec in every child (a cockpit started under nohup, an engine
// that does not want its launching terminal's SIGHUP): a pane's program
// would then shrug off the SIGHUP that Close sends first, as tmux's panes
// never do. A caught signal is reset to its default at exec, so each
// ignored one is caught instead and dropped here: this process still
// ignores it, and the children start with the default. It runs at every
// Open, since a caller may start ignoring a signal at any time.
func resetInheritedIgnores() {
	for _, s := range childSignals {
		if signal.Ignored(s) {
			signal.Notify(dropped, s)
		}
	}
}

// dropped takes the signals resetInheritedIgnores catches; nobody reads
// it, and a full channel drops what comes (signal.Notify never blocks).
var dropped = make(chan os.Signal, 1)
