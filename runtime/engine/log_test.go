package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/state"
)

// readLog is the engine log's lines as maps.
func readLog(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("a log line is not JSON: %q", sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// TestLogSaysWhyADispatchEndedAsError: from the engine's log alone, "why
// did dispatch-004 end as error": the request that opened its pane, the
// pane's life, and the settle decision with the sidecar's reason and exit
// code. Nothing of the pane's output is in it.
func TestLogSaysWhyADispatchEndedAsError(t *testing.T) {
	run, sidecars := runtest.StartedRun(t, 4)
	logPath := filepath.Join(run.StateDir(), "cockpit-engine.log")
	lf, err := OpenLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	sock := filepath.Join(runtest.ShortDir(t), "s", "cockpit.sock")
	c, err := Start(Config{Run: run, Socket: sock, CloseGrace: 200 * time.Millisecond, Log: NewLogger(lf)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Scale(20*time.Second))
	defer cancel()
	cl, err := control.Dial(ctx, sock, "team dispatch")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	res, err := control.OpenPane.Call(ctx, cl, control.OpenPaneParams{Argv: []string{"printf", "SECRET-OUTPUT\n"}, Title: "Codex analyser", DispatchID: "dispatch-004"})
	if err != nil {
		t.Fatal(err)
	}
	if err := state.UpdateTeamState(run.TeamStatePath, run.Manifest.TeamStatePath, "bench", func(ts *state.TeamState) error {
		ts.WorkerDispatches[3].PaneID = res.PaneID
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	one := 1
	if err := state.WriteSidecar(sidecars[3], &state.Sidecar{Status: state.StatusError, Wrapper: "test", PID: os.Getpid(), ExitCode: &one, Reason: "the CLI exited 1 before writing a result"}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "dispatch-004 settles", func() bool {
		for _, d := range c.View().Dispatches {
			if d.DispatchID == "dispatch-004" {
				return d.Terminal()
			}
		}
		return false
	})
	cl.Close()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(logPath)
	if strings.Contains(string(data), "SECRET-OUTPUT") {
		t.Fatalf("the log holds a pane's output or argv:\n%s", data)
	}
	// The answer, as someone debugging would find it.
	var opened, paneOpened, settled map[string]any
	for _, l := range readLog(t, logPath) {
		switch {
		case l["msg"] == "request" && l["method"] == "open-pane" && l["dispatch"] == "dispatch-004":
			opened = l
		case l["msg"] == "pane opened" && l["dispatch"] == "dispatch-004":
			paneOpened = l
		case l["msg"] == "dispatch settled" && l["dispatch"] == "dispatch-004":
			settled = l
		}
	}
	if opened == nil || opened["client"] != "team dispatch" || opened["pane"] != res.PaneID || opened["outcome"] != "ok" {
		t.Fatalf("no open-pane request for dispatch-004 by team dispatch in %s: %v\n%s", res.PaneID, opened, data)
	}
	if paneOpened == nil || paneOpened["pane"] != res.PaneID {
		t.Fatalf("no pane opened for dispatch-004: %v\n%s", paneOpened, data)
	}
	if settled == nil || settled["status"] != "error" || settled["reason"] != "the CLI exited 1 before writing a result" ||
		settled["exit"] != float64(1) || settled["pane"] != res.PaneID || settled["wrapperPid"] != float64(os.Getpid()) {
		t.Fatalf("the settle of dispatch-004 does not say why it ended as error: %v\n%s", settled, data)
	}
}

// TestLogFileRefusesASymlinkAndRotates: the log is never opened through a
// planted symlink (the target stays untouched), and past its size it is
// renamed to .1 and a new one started.
func TestLogFileRefusesASymlinkAndRotates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cockpit-engine.log")
	outside := filepath.Join(dir, "outside")
	if err := os.WriteFile(outside, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, path); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenLog(path); err == nil || !strings.Contains(err.Error(), path+" is a symlink") {
		t.Fatalf("a symlinked log: %v, want a refusal naming it", err)
	}
	if data, _ := os.ReadFile(outside); string(data) != "precious\n" {
		t.Fatalf("the symlink's target was written: %q", data)
	}
	os.Remove(path)
	lf, err := OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	lf.max = 100
	line := strings.Repeat("x", 59) + "\n"
	for range 3 {
		if _, err := lf.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	old, _ := os.ReadFile(path + ".1")
	cur, _ := os.ReadFile(path)
	if string(old) != line {
		t.Fatalf("rotated log %q", old)
	}
	if string(cur) != line {
		t.Fatalf("current log %q, want the last line", cur)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the new log's mode: %v %v", st.Mode(), err)
	}
}
