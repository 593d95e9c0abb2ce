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
	"time"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/engine"
	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/runtime/lifecycle"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/state/approval"
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

// Issue 19.4, the engine's side: in the cockpit the answer is written into
// the user-response sidecar before the engine tells the screen it is
// answered (AnswerGate, the screen's action, returns nil only then). A
// write that fails returns its reason and keeps the gate waiting, nothing
// handed to `gate ask`; the human's next answer is written, and gate ask
// reports the sidecar the engine wrote.
func TestACockpitGateAnswerIsWrittenBeforeItIsAnswered(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	run := runtest.FixtureRun(t, state.BackendCLIWrapper)
	sock := filepath.Join(runtest.ShortDir(t), "e.sock")
	eng, err := engine.Start(engine.Config{Run: run, Socket: sock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	t.Setenv("COCKPIT_SOCKET", sock)
	req := GateRequest{Run: run, Report: DefaultReport(run), Gate: GateFromRow(optionRow("C-001"))}
	type asked struct {
		res *GateOutcome
		err error
	}
	done := make(chan asked, 1)
	go func() {
		res, err := AskGate(context.Background(), req, nil)
		done <- asked{res, err}
	}()
	testenv.Wait(t, "the gate to wait in the engine", 10*time.Second, func() bool { return len(eng.View().Gates) == 1 })

	// The sidecar breaks after the question was asked: read-only.
	sc := approval.SidecarPath(req.Report)
	if err := os.MkdirAll(filepath.Dir(sc), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sc, []byte("# User Response\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	err = eng.AnswerGate(view.GateAnswer{GateID: "C-001", Option: 0, Note: "first try"})
	if err == nil || !strings.Contains(err.Error(), "the answer could not be written: ") || !strings.Contains(err.Error(), "is read-only (mode 0444)") {
		t.Fatalf("a failed write answered: %v", err)
	}
	if g := eng.View().Gates; len(g) != 1 || g[0].ID != "C-001" {
		t.Fatalf("the gate did not stay open: %+v", g)
	}
	select {
	case a := <-done:
		t.Fatalf("gate ask returned on an answer that was not written: %+v %v", a.res, a.err)
	default:
	}
	if err := os.Chmod(sc, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := eng.AnswerGate(view.GateAnswer{GateID: "C-001", Option: 0, Note: "second try"}); err != nil {
		t.Fatalf("the retry: %v", err)
	}
	// Written before AnswerGate returned, not after gate ask got it.
	body, err := os.ReadFile(sc)
	if err != nil || !strings.Contains(string(body), "Keep it") || !strings.Contains(string(body), "second try") {
		t.Fatalf("the sidecar after the answer (%v):\n%s", err, body)
	}
	a := <-done
	if a.err != nil || a.res.Sidecar != run.Root.Rel(sc) || a.res.Answer != "Keep it" || a.res.Note != "second try" || a.res.AnsweredIn != "cockpit" {
		t.Fatalf("gate ask: %+v %v", a.res, a.err)
	}
	if got, _ := os.ReadFile(sc); string(got) != string(body) {
		t.Fatalf("gate ask wrote the sidecar again:\n%s", got)
	}
}
