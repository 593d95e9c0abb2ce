package team

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/runtime/engine"
	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/runtime/lifecycle"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/workers"
)

// dieOnOpen relays one client's connection to a real engine's socket and
// closes the engine (its panes, its socket) when the client sends its
// n-th open-pane request, before the engine sees it: the engine dies
// mid-batch at a known point, with nothing timed.
func dieOnOpen(t *testing.T, eng *engine.Engine, engineSock, sock string, n int) {
	t.Helper()
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		e, err := net.Dial("unix", engineSock)
		if err != nil {
			return
		}
		defer e.Close()
		go io.Copy(c, e)
		r := bufio.NewReader(c)
		opens := 0
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			if strings.Contains(string(line), `"method":"open-pane"`) {
				if opens++; opens == n {
					eng.Close()
					return
				}
			}
			if _, err := e.Write(line); err != nil {
				return
			}
		}
	}()
}

// Issue 19: `team dispatch` when the engine dies mid-batch (after the first
// pane opened) returns an error naming the jobs that did not start,
// records them error in team-state, keeps the started one with its pane
// and pid, and checkpoints only what started.
func TestTeamDispatchWhenTheEngineDiesMidBatch(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	run := runtest.FixtureRun(t, fixture.PaneBackend)
	dir := runtest.ShortDir(t)
	engineSock, sock := filepath.Join(dir, "e.sock"), filepath.Join(dir, "c.sock")
	eng, err := engine.Start(engine.Config{Run: run, Socket: engineSock, NoServer: false})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	dieOnOpen(t, eng, engineSock, sock, 2)
	t.Setenv("COCKPIT_SOCKET", sock)
	// The worker each pane runs: a program that waits (the engine's close
	// ends it).
	self := filepath.Join(t.TempDir(), "cockpit")
	if err := os.WriteFile(self, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cat, err := workers.LoadCatalog(run.Root.Dir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := lifecycle.PlanBatch(run, cat, fixture.JobsInitial, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := TeamDispatch(context.Background(), b, self)
	var ns *lifecycle.NotStartedError
	if !errors.As(err, &ns) || !strings.HasPrefix(err.Error(), "2 job(s) of the batch did not start: dispatch-002 (Antigravity worker), dispatch-003 (Claude worker) (") {
		t.Fatalf("team dispatch: %v", err)
	}
	if res == nil || len(res.Dispatches) != 3 {
		t.Fatalf("the batch as printed: %+v", res)
	}
	ts, _ := state.ReadTeamState(run.TeamStatePath, "team-state")
	for i, d := range ts.WorkerDispatches {
		switch {
		case i == 0 && (d.PaneID == "" || d.PID <= 0 || d.Status != state.StatusInProgress):
			t.Errorf("%s, started: pane %q pid %d %s", d.DispatchID, d.PaneID, d.PID, d.Status)
		case i > 0 && (d.Status != state.StatusError || d.PaneID != "" || !strings.Contains(d.Reason, "could not start the worker")):
			t.Errorf("%s, not started: pane %q %s %q", d.DispatchID, d.PaneID, d.Status, d.Reason)
		}
	}
	wantLines(t, "ledger", ledgerLines(t, run),
		"PROGRESS: phase-3-team-create using implicit team",
		"PROGRESS: phase-4-dispatch worker=Codex worker model=gpt-6.1-sol")
}
