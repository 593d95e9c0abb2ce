package team

import (
	"testing"

	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/state"
)

// --worker rewrites a functional label into the roster role the run
// records; only a label that matches no roster role is refused.
func TestRosterRoleRewritesFunctionalLabels(t *testing.T) {
	run := runtest.FixtureRun(t, state.BackendCockpitPane)
	for _, c := range []struct{ in, want string }{
		{"Codex worker", "Codex worker"},                 // exact
		{"codex-worker", "Codex worker"},                 // hyphenated
		{"report-writer-worker", "Report writer worker"}, // hyphenated
		{"Codex verifier", "Codex worker"},               // a role execution's label
		{"codex-verifier", "Codex worker"},
		{"Codex analyser", "Codex worker"},
		{"Claude analyser", "Claude worker"},                    // claude: three roster roles; the analyser's
		{"claude-analyzer", "Claude worker"},                    // the other spelling
		{"Claude report writer", "Report writer worker"},        // the report writer's
		{"Antigravity verifier", "Antigravity worker"},          // one roster role of that provider
		{"antigravity", "Antigravity worker"},                   // the provider alone
		{"Report writer", "Report writer worker"},               // a label without the model
		{"Okstra lead", "Lead role"},                            // the lead's label
		{"Claude lead", "Lead role"},                            // provider and function
		{"CLAUDE   Analyser", "Claude worker"},                  // case and spaces
		{"Antigravity analyser · gemini", "Antigravity worker"}, // provider first
		// Issue 18.13: the seed's own example. claude is the lead, an
		// analyser and the report writer here; a function none of them has
		// names claude's generic worker, not the lead or the report writer.
		{"Claude verifier", "Claude worker"},
		{"claude-critic", "Claude worker"},
	} {
		got, err := RosterRole(run, c.in)
		if err != nil || got != c.want {
			t.Errorf("--worker %q: got %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"Gemini verifier", `--worker: "Gemini verifier" is not a roster role of this run (known: Lead role, Codex worker, Antigravity worker, Claude worker, Report writer worker); pass the roster role, e.g. "Lead role"`},
	} {
		got, err := RosterRole(run, c.in)
		if err == nil || err.Error() != c.want {
			t.Errorf("--worker %q: got %q, %v; want the error %s", c.in, got, err, c.want)
		}
	}
}

// lead-progress append records the rewritten role.
func TestAppendProgressRewritesTheWorker(t *testing.T) {
	run := runtest.FixtureRun(t, state.BackendCockpitPane)
	line, err := AppendProgress(run, "phase-5-collect", "Codex verifier", [][2]string{{"status", "completed"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := "PROGRESS: phase-5-collect worker=Codex worker status=completed"; line != want {
		t.Fatalf("line %q, want %q", line, want)
	}
	wantLines(t, "ledger", ledgerLines(t, run), "PROGRESS: phase-5-collect worker=Codex worker status=completed")
	if _, err := AppendProgress(run, "phase-5-collect", "Gemini verifier", nil, ""); err == nil {
		t.Fatal("a label matching no roster role was accepted")
	}
	wantLines(t, "ledger after the refusal", ledgerLines(t, run), "PROGRESS: phase-5-collect worker=Codex worker status=completed")
}
