package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/runtime/engine"
	"github.com/okstra/cockpit/runtime/view"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/tui"
)

// BenchmarkSidecarToStatusLine measures what the human waits for: from a
// worker's sidecar renamed into place (terminal) to the screen's status line
// showing the new count — the watcher, the engine's settle and view, and the
// screen model's Update and View. It reports p50 and p99 over b.N events
// (use -benchtime=250x: at least 200).
func BenchmarkSidecarToStatusLine(b *testing.B) {
	root := b.TempDir()
	os.MkdirAll(filepath.Join(root, "run/state"), 0o755)
	os.MkdirAll(filepath.Join(root, "run/prompts"), 0o755)
	os.WriteFile(filepath.Join(root, "run/state/run-manifest.json"), []byte(`{"taskKey":"bench","taskType":"t","runSeq":"001","teamStatePath":"run/state/team-state.json","leadEventsPath":"run/state/lead-events.jsonl","terminalBackend":"cockpit-pane"}`), 0o644)
	run, err := state.LoadRun(root, "run/state/run-manifest.json")
	if err != nil {
		b.Fatal(err)
	}
	var sidecars []string
	err = state.UpdateTeamState(run.TeamStatePath, "team-state", "bench", func(ts *state.TeamState) error {
		for i := 0; i < b.N; i++ {
			prompt := fmt.Sprintf("run/prompts/w%03d.md", i)
			sp := filepath.Join(root, state.SidecarPath(prompt))
			sidecars = append(sidecars, sp)
			if err := state.WriteSidecar(sp, &state.Sidecar{Status: "started", PID: os.Getpid()}); err != nil {
				return err
			}
			ts.WorkerDispatches = append(ts.WorkerDispatches, state.Dispatch{DispatchID: fmt.Sprintf("dispatch-%03d", i+1), DispatchKind: "initial", Role: "W", PromptPath: prompt, StatusPath: state.SidecarPath(prompt), Status: state.StatusInProgress, DispatchedAt: "2026-11-29T10:00:00Z"})
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	cp, err := engine.Start(engine.Config{Run: run, NoServer: true})
	if err != nil {
		b.Fatal(err)
	}
	defer cp.Close()
	app := tui.New(tui.Config{Manager: cp.Manager(), NoColor: true})
	defer app.Stop()
	var model tea.Model = app
	model, _ = model.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	events, stop := cp.Subscribe()
	defer stop()
	zero := 0
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		want := fmt.Sprintf("done=%d", i+1)
		start := time.Now()
		if err := state.WriteSidecar(sidecars[i], &state.Sidecar{Status: "completed", PID: os.Getpid(), ExitCode: &zero}); err != nil {
			b.Fatal(err)
		}
		for {
			ev := <-events
			model, _ = model.Update(ev)
			if _, ok := ev.(view.ViewUpdated); ok && strings.Contains(model.View().Content, want) {
				break
			}
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms/p50")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ms/p99")
}
