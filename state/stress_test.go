package state

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

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

// TestConcurrentWritersFullLoad runs the full load — 64 writers × 100
// records to one team-state and one ledger — in a helper built without the
// race detector (so it runs at the speed users see), and then a smaller load
// from eight processes at once, so the lock is exercised across goroutines
// and across processes.
func TestConcurrentWritersFullLoad(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "stress")
	build := exec.Command("go", "build", "-o", bin, "./testdata/stress")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build stress helper: %v\n%s", err, out)
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
	t.Run("64 goroutines x 100", func(t *testing.T) { run(t, 64, 100, []string{"g"}) })
	t.Run("8 processes x 8 goroutines x 10", func(t *testing.T) {
		run(t, 8, 10, []string{"a", "b", "c", "d", "e", "f", "g", "h"})
	})
}

// TestConcurrentWritersRace is the same load, smaller, in this process, so
// that `go test -race` checks the writers for data races.
func TestConcurrentWritersRace(t *testing.T) {
	teamState, ledger := seedStress(t)
	const writers, each = 64, 8
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers)
	for w := 0; w < writers; w++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				id := fmt.Sprintf("r%02d-%03d", w, i)
				if err := UpdateTeamState(teamState, "team-state", "stress", func(ts *TeamState) error {
					ts.WorkerDispatches = append(ts.WorkerDispatches, Dispatch{DispatchID: id, Status: "completed"})
					return nil
				}); err != nil {
					errs <- err
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				ev, err := NewEvent("stress", "phase-5-poll", "", [][2]string{{"writer", fmt.Sprintf("r%02d", w)}, {"n", fmt.Sprint(i)}}, "")
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
	for err := range errs {
		t.Fatal(err)
	}
	checkStress(t, teamState, ledger, writers, each, []string{"r"})
}
