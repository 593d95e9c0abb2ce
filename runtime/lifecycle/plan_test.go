package lifecycle

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/state"
	"github.com/okstra/cockpit/workers"
)

// dropIdleTimeout removes idleTimeoutSeconds from job i of the fixture's
// initial jobs file.
func dropIdleTimeout(t *testing.T, root string, i int) {
	t.Helper()
	path := filepath.Join(root, fixture.JobsInitial)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var jf map[string]any
	if err := json.Unmarshal(data, &jf); err != nil {
		t.Fatal(err)
	}
	delete(jf["jobs"].([]any)[i].(map[string]any), "idleTimeoutSeconds")
	out, _ := json.MarshalIndent(jf, "", "  ")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// idleArg is the idle limit a worker argv passes to `cockpit worker exec`
// (its seventh argument after "worker exec").
func idleArg(t *testing.T, argv []string) string {
	t.Helper()
	if len(argv) < 10 || argv[1] != "worker" || argv[2] != "exec" {
		t.Fatalf("argv %q", argv)
	}
	return argv[9]
}

// A job without idleTimeoutSeconds runs under its role's idle budget, and
// its dispatch records the budget and where it came from; a job with one
// records "jobs-file". The worker argv carries the limit applied, for the
// pane and the cli-wrapper backends alike.
func TestDispatchAppliesTheRolesIdleBudget(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no user providers.json
	for _, c := range []struct {
		name, providers string
		wantSource      string
		wantSeconds     func(cat *workers.Catalog) int
	}{
		{"catalog", "", workers.IdleFromCatalog, func(cat *workers.Catalog) int { s, _ := cat.IdleBudget("analyser"); return s }},
		{"providers.json", `{"idleBudgets": {"analyser": 1234}}`, workers.IdleFromProviders, func(*workers.Catalog) int { return 1234 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := fixture.Copy(t)
			fixture.SetTerminalBackend(t, root, fixture.PaneBackend)
			dropIdleTimeout(t, root, 0)
			if c.providers != "" {
				os.MkdirAll(filepath.Join(root, ".cockpit"), 0o755)
				if err := os.WriteFile(filepath.Join(root, ".cockpit", "providers.json"), []byte(c.providers), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			run, err := state.LoadRun(root, fixture.RunManifest)
			if err != nil {
				t.Fatal(err)
			}
			cat, err := workers.LoadCatalog(root)
			if err != nil {
				t.Fatal(err)
			}
			b, err := PlanBatch(run, cat, filepath.Join(root, fixture.JobsInitial), "")
			if err != nil {
				t.Fatal(err)
			}
			rg, err := RecordBatch(b, state.BackendCmuxPane)
			if err != nil {
				t.Fatal(err)
			}
			recs := rg.Recs
			ts, err := state.ReadTeamState(run.TeamStatePath, "team-state")
			if err != nil {
				t.Fatal(err)
			}
			want := []struct {
				seconds int
				source  string
			}{{c.wantSeconds(cat), c.wantSource}, {900, workers.IdleFromJobsFile}, {900, workers.IdleFromJobsFile}}
			if len(ts.WorkerDispatches) != len(want) || len(recs) != len(want) {
				t.Fatalf("%d dispatches recorded", len(ts.WorkerDispatches))
			}
			for i, w := range want {
				d := ts.WorkerDispatches[i]
				if d.IdleTimeoutSeconds != w.seconds || d.IdleTimeoutSource != w.source {
					t.Errorf("%s: idleTimeoutSeconds=%d idleTimeoutSource=%q, want %d %q", d.DispatchID, d.IdleTimeoutSeconds, d.IdleTimeoutSource, w.seconds, w.source)
				}
				for _, presentation := range []string{"live", "quiet"} { // team dispatch, worker-dispatch
					if got := idleArg(t, WorkerArgv("/bin/cockpit", run, recs[i].Job, presentation)); got != strconv.Itoa(w.seconds) {
						t.Errorf("%s (%s): the worker runs with idle limit %q, want %d", d.DispatchID, presentation, got, w.seconds)
					}
				}
			}
			// The record is in the team-state file as written.
			raw, _ := os.ReadFile(run.TeamStatePath)
			var doc struct {
				WorkerDispatches []map[string]any `json:"workerDispatches"`
			}
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			d0 := doc.WorkerDispatches[0]
			if d0["idleTimeoutSeconds"] != float64(c.wantSeconds(cat)) || d0["idleTimeoutSource"] != c.wantSource {
				t.Fatalf("team-state records %v %v", d0["idleTimeoutSeconds"], d0["idleTimeoutSource"])
			}
		})
	}
}
