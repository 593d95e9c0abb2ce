package state

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
)

// envStress makes the test binary the stress writer (stressMain): the
// cross-process test re-executes it with the variable set, instead of
// building a writer program.
const envStress = "COCKPIT_STATE_TEST_STRESS"

func TestMain(m *testing.M) {
	if os.Getenv(envStress) == "1" {
		os.Exit(stressMain(os.Args[1:]))
	}
	if os.Getenv(envFSize) == "1" {
		os.Exit(fsizeMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// stressMain is the writer process: -writers goroutines that each append
// -each dispatches to a team-state and -each checkpoints to a ledger
// through this package, the way cockpit commands do. It returns the exit
// code.
func stressMain(args []string) int {
	fs := flag.NewFlagSet("stress", flag.ContinueOnError)
	teamState := fs.String("team-state", "", "team-state file")
	ledger := fs.String("ledger", "", "lead-events ledger")
	writers := fs.Int("writers", 64, "concurrent writers")
	each := fs.Int("each", 100, "records per writer and file")
	tag := fs.String("tag", "g", "prefix of this process's dispatch ids")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := stressWrite(*teamState, *ledger, *writers, *each, *tag); err != nil {
		fmt.Fprintln(os.Stderr, "stress:", err)
		return 1
	}
	return 0
}

// stressWrite runs writers goroutines pairs: one appends each dispatches
// <tag><writer>-<n> to the team-state, the other each checkpoints of writer
// <tag><writer> to the ledger. It returns the first error.
func stressWrite(teamState, ledger string, writers, each int, tag string) error {
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers)
	for w := 0; w < writers; w++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				id := fmt.Sprintf("%s%02d-%03d", tag, w, i)
				err := UpdateTeamState(teamState, "team-state", "stress", func(ts *TeamState) error {
					ts.WorkerDispatches = append(ts.WorkerDispatches, Dispatch{DispatchID: id, Status: "completed"})
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
				ev, err := NewEvent("stress", "phase-5-poll", "", [][2]string{{"writer", fmt.Sprintf("%s%02d", tag, w)}, {"n", fmt.Sprint(i)}}, "")
				if err == nil {
					err = AppendEvents(ledger, ev)
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

const foreignTeamState = `{
  "teamName": "stress",
  "x-foreign": {"writer": "okstra-python", "keep": [1, 2, 3]},
  "workers": [],
  "workerDispatches": []
}
`

const foreignLedgerLine = `{"at":"2026-11-29T10:00:00Z","phase":"phase-1-intake","detail":"reading task bundle","source":"okstra","progressLine":"PROGRESS: phase-1-intake reading task bundle","x-foreign":"keep me"}` + "\n"

// checkStress verifies that every writer's records arrived exactly once and
// that the foreign members survived.
func checkStress(t *testing.T, teamState, ledger string, writers, each int, tags []string) {
	t.Helper()
	ts, err := ReadTeamState(teamState, "team-state")
	if err != nil {
		t.Fatal(err)
	}
	want := len(tags) * writers * each
	if len(ts.WorkerDispatches) != want {
		t.Fatalf("team-state has %d dispatches, want %d: updates were lost", len(ts.WorkerDispatches), want)
	}
	seen := map[string]bool{}
	for _, d := range ts.WorkerDispatches {
		if seen[d.DispatchID] {
			t.Fatalf("dispatch %s recorded twice", d.DispatchID)
		}
		seen[d.DispatchID] = true
	}
	data, _ := os.ReadFile(teamState)
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("team-state is not JSON after the run: %v", err)
	}
	if f, ok := doc["x-foreign"].(map[string]any); !ok || f["writer"] != "okstra-python" {
		t.Fatalf("unknown team-state member lost: %v", doc["x-foreign"])
	}
	if !strings.HasPrefix(string(data), "{\n  \"teamName\": \"stress\",\n  \"x-foreign\"") {
		t.Fatalf("unknown member moved:\n%.200s", data)
	}
	events, err := ReadEvents(ledger, "ledger")
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != want+1 {
		t.Fatalf("ledger has %d lines, want %d", len(events), want+1)
	}
	raw, _ := os.ReadFile(ledger)
	if !strings.HasPrefix(string(raw), foreignLedgerLine) {
		t.Fatalf("the foreign ledger line changed:\n%.300s", raw)
	}
	count := map[string]int{}
	for _, e := range events[1:] {
		count[e.Field("writer")]++
	}
	for _, tag := range tags {
		for w := 0; w < writers; w++ {
			if n := count[fmt.Sprintf("%s%02d", tag, w)]; n != each {
				t.Fatalf("writer %s%02d has %d checkpoints, want %d", tag, w, n, each)
			}
		}
	}
}

// seedStress makes the files the writers share. It prefers tmpfs
// (/dev/shm): the test is about locking and lost updates, and on a disk the
// 12,800 fsyncs of growing files would measure the disk instead.
func seedStress(t *testing.T) (string, string) {
	dir := t.TempDir()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "cockpit-stress-"); err == nil {
			dir = d
			t.Cleanup(func() { os.RemoveAll(d) })
		}
	}
	teamState := filepath.Join(dir, "team-state.json")
	ledger := filepath.Join(dir, "lead-events.jsonl")
	if err := os.WriteFile(teamState, []byte(foreignTeamState), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ledger, []byte(foreignLedgerLine), 0o644); err != nil {
		t.Fatal(err)
	}
	return teamState, ledger
}

// raceEnabled reports whether this test binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// TestConcurrentWritersFullLoad runs the full load — 64 writers × 100
// records to one team-state and one ledger — in a writer process (this test
// binary, re-executed), and beside it a smaller load from eight processes at
// once, so the lock is exercised across goroutines and across processes.
//
// Every write rewrites a file that grows to about 1 MB, so the load costs
// the square of the records: 12,800 writes take about 15 s at the speed
// users see, and eight times that under the race detector, which now
// watches the writer processes too. Under -race the 64 writers write 16
// records each (the cost of 100 at 1/40th), and so they do under -short
// (the inner loop's tier: the same locking across goroutines and
// processes, under a second); the full 64 × 100 is the non-race run
// (`go test -run ConcurrentWriters ./state`, which .ci/run makes).
func TestConcurrentWritersFullLoad(t *testing.T) {
	bin, err := os.Executable()
	if err != nil {
		t.Fatalf("find the test binary to run as the writer: %v", err)
	}
	// -short keeps the contention (64 goroutines on one lock, 8 processes
	// on it) at a tenth of the records; the full load is .ci/run's non-race
	// run, and under -race a writer is slow enough at 16.
	each, perProcess := 100, 10
	if raceEnabled() {
		each = 16
	}
	if testing.Short() {
		each, perProcess = 8, 4
	}
	run := func(t *testing.T, writers, each int, tags []string) {
		teamState, ledger := seedStress(t)
		var wg sync.WaitGroup
		errs := make([]error, len(tags))
		outs := make([][]byte, len(tags))
		for i, tag := range tags {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(bin, "-team-state", teamState, "-ledger", ledger,
					"-writers", fmt.Sprint(writers), "-each", fmt.Sprint(each), "-tag", tag)
				cmd.Env = append(os.Environ(), envStress+"=1")
				outs[i], errs[i] = cmd.CombinedOutput()
			}()
		}
		wg.Wait()
		for i := range tags {
			if errs[i] != nil {
				t.Fatalf("stress %s: %v\n%s", tags[i], errs[i], outs[i])
			}
		}
		checkStress(t, teamState, ledger, writers, each, tags)
	}
	t.Run(fmt.Sprintf("64 goroutines x %d", each), func(t *testing.T) {
		t.Parallel()
		run(t, 64, each, []string{"g"})
	})
	t.Run(fmt.Sprintf("8 processes x 8 goroutines x %d", perProcess), func(t *testing.T) {
		t.Parallel()
		run(t, 8, perProcess, []string{"a", "b", "c", "d", "e", "f", "g", "h"})
	})
}

// TestConcurrentWritersRace is the same load, smaller, in this process, so
// that `go test -race` checks the writers for data races.
func TestConcurrentWritersRace(t *testing.T) {
	teamState, ledger := seedStress(t)
	const writers, each = 64, 8
	if err := stressWrite(teamState, ledger, writers, each, "r"); err != nil {
		t.Fatal(err)
	}
	checkStress(t, teamState, ledger, writers, each, []string{"r"})
}
