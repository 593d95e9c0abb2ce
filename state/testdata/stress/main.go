// Command stress is the concurrency test's writer: it runs -writers
// goroutines that each append -each dispatches to a team-state and -each
// checkpoints to a ledger through package state, the way cockpit commands do.
// The test builds it without the race detector so that the full load runs at
// the speed users see; the race-detected run uses fewer records in-process.
package main

import (
	"flag"
	"fmt"
	"os"
	"sync"

	"github.com/okstra/cockpit/state"
)

func main() {
	teamState := flag.String("team-state", "", "team-state file")
	ledger := flag.String("ledger", "", "lead-events ledger")
	writers := flag.Int("writers", 64, "concurrent writers")
	each := flag.Int("each", 100, "records per writer and file")
	tag := flag.String("tag", "g", "prefix of this process's dispatch ids")
	flag.Parse()
	if err := run(*teamState, *ledger, *writers, *each, *tag); err != nil {
		fmt.Fprintln(os.Stderr, "stress:", err)
		os.Exit(1)
	}
}

func run(teamState, ledger string, writers, each int, tag string) error {
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers)
	for w := 0; w < writers; w++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				id := fmt.Sprintf("%s%02d-%03d", tag, w, i)
				err := state.UpdateTeamState(teamState, teamState, "stress", func(ts *state.TeamState) error {
					ts.WorkerDispatches = append(ts.WorkerDispatches, state.Dispatch{DispatchID: id, Status: "completed"})
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				ev, err := state.NewEvent("stress", "phase-5-poll", "", [][2]string{{"writer", fmt.Sprintf("%s%02d", tag, w)}, {"n", fmt.Sprint(i)}}, "")
				if err == nil {
					err = state.AppendEvents(ledger, ev)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}
