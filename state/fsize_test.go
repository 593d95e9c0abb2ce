package state

import (
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// envFSize makes the test binary append one big checkpoint under a file
// size limit (fsizeMain, TestMain): a disk that fills mid-write, without
// filling one (TestAFailedAppendLeavesNoTornLine).
const envFSize = "COCKPIT_STATE_TEST_FSIZE"

// fsizeMain appends a checkpoint to the ledger args[0] with RLIMIT_FSIZE
// at the ledger's size plus 100 bytes: the write(2) stops part-way (EFBIG,
// as ENOSPC would). It prints the error and exits 0 when the append
// failed, 1 when it did not.
func fsizeMain(args []string) int {
	signal.Ignore(syscall.SIGXFSZ) // a write past the limit fails, not kills
	st, err := os.Stat(args[0])
	if err != nil {
		return 2
	}
	lim := uint64(st.Size() + 100)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
		return 2
	}
	ev, _ := NewEvent("test", "phase-1-intake", "", nil, strings.Repeat("x", 4096))
	if err := AppendEvents(args[0], ev); err != nil {
		os.Stdout.WriteString(err.Error())
		return 0
	}
	return 1
}
