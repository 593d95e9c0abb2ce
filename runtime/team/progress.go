package team

import (
	"fmt"
	"strings"

	"github.com/okstra/cockpit/runtime/lifecycle"
	"github.com/okstra/cockpit/state"
)

// AppendProgress is `lead-progress append`: it normalises --worker to the
// run's roster role, records the checkpoint and returns its PROGRESS line.
func AppendProgress(run *state.Run, phase, worker string, fields [][2]string, detail string) (string, error) {
	if err := state.CheckPhase(phase); err != nil {
		return "", &state.Error{Field: "--phase", Msg: err.Error()}
	}
	if worker != "" {
		w, err := RosterRole(run, worker)
		if err != nil {
			return "", err
		}
		worker = w
	}
	rec := lifecycle.NewRecorder(run, lifecycle.SourceLeadProgress, true)
	if err := rec.Record(phase, worker, fields, detail); err != nil {
		return "", err
	}
	return rec.Lines()[0], nil
}

// RosterRole resolves a --worker value to the roster role the run records
// (the seed: --worker "rewrites a phase-specific functional label into the
// roster role team-state records"). In order:
//
//  1. a roster role of the run, exactly or hyphenated and in any case
//     ("Codex worker", "codex-worker");
//  2. a role execution's label without its model ("Codex verifier" for
//     "Codex verifier · gpt-6.1-sol"), or a recorded worker id;
//  3. a functional label naming a provider and a function ("Codex
//     verifier", "claude-analyser"): the roster role of the run's role
//     executions and team-state workers of that provider — when several
//     roster roles share the provider, the one whose role is the function
//     named, else the only one that is not the lead's.
//
// Roster roles come from the run manifest's roleExecutions and team-state's
// workers. A label that matches none (or more than one) is refused, listing
// the known roles. When the run lists no roster at all the value is kept as
// given (hyphenation undone).
func RosterRole(run *state.Run, worker string) (string, error) {
	var cands []rosterCandidate
	ts, err := run.TeamState()
	if err != nil {
		ts = nil
	}
	for _, r := range run.Manifest.RoleExecutions {
		j := state.Job{Provider: r.Provider, Role: r.Role, RoleExecutionRef: r.RoleExecutionRef}
		if r.Binding != nil {
			j.ModelExecutionValue = r.Binding.ResolvedExecutionValue
		}
		roster, err := state.RosterFor(run.Manifest, ts, j)
		if err != nil || roster == "" {
			continue
		}
		label, _, _ := strings.Cut(r.ExecutionLabel, "·")
		cands = append(cands, rosterCandidate{roster: roster, provider: r.Provider, role: r.Role, label: label})
	}
	if ts != nil {
		for _, w := range ts.Workers {
			if w.Role != "" {
				cands = append(cands, rosterCandidate{roster: w.Role, provider: w.Provider, role: state.RosterFunction(w.Role), workerID: w.WorkerID})
			}
		}
	}
	var known []string
	for _, c := range cands {
		known = append(known, c.roster)
	}
	known = dedupe(known)
	want := normLabel(worker)
	for _, k := range known {
		if k == worker || normLabel(k) == want {
			return k, nil
		}
	}
	if len(known) == 0 {
		if strings.Contains(worker, "-") {
			return state.RosterRoleFromWorker(worker), nil
		}
		return worker, nil
	}
	pick := func(keep func(c rosterCandidate) bool) []string {
		var out []string
		for _, c := range cands {
			if keep(c) {
				out = append(out, c.roster)
			}
		}
		return dedupe(out)
	}
	if m := pick(func(c rosterCandidate) bool {
		return (c.label != "" && normLabel(c.label) == want) || (c.workerID != "" && normLabel(c.workerID) == want)
	}); len(m) == 1 {
		return m[0], nil
	}
	words := strings.Fields(want)
	var byProvider []rosterCandidate
	for _, c := range cands {
		if len(words) > 0 && c.provider != "" && normLabel(c.provider) == words[0] {
			byProvider = append(byProvider, c)
		}
	}
	fromProvider := func(keep func(c rosterCandidate) bool) []string {
		var out []string
		for _, c := range byProvider {
			if keep(c) {
				out = append(out, c.roster)
			}
		}
		return dedupe(out)
	}
	all := fromProvider(func(rosterCandidate) bool { return true })
	if len(all) == 1 {
		return all[0], nil
	}
	if len(all) > 1 {
		function := normFunction(strings.Join(words[1:], " "))
		if m := fromProvider(func(c rosterCandidate) bool { return c.role != "" && normFunction(c.role) == function }); len(m) == 1 {
			return m[0], nil
		}
		// A function the run gives no role execution of this provider
		// ("Claude verifier" on a run whose claude roles are the lead, an
		// analyser and the report writer) names the provider's generic
		// worker: not the lead's roster role, not the report writer's.
		generic := fromProvider(func(c rosterCandidate) bool {
			f := specialFunction(c)
			return f == "" || (f == function && !isLeadFunction(function))
		})
		if len(generic) == 1 && !isLeadFunction(function) {
			return generic[0], nil
		}
		if m := fromProvider(func(c rosterCandidate) bool { return !isLeadRole(c.role) }); len(m) == 1 && !isLeadFunction(function) {
			return m[0], nil
		}
		example := all[0]
		if len(generic) > 0 {
			example = generic[0]
		}
		return "", &state.Error{Field: "--worker", Msg: fmt.Sprintf("%q is not a roster role of this run (known: %s) and names none of its %s roles alone (%s); pass the roster role, e.g. %q", worker, strings.Join(known, ", "), words[0], strings.Join(all, ", "), example)}
	}
	return "", &state.Error{Field: "--worker", Msg: fmt.Sprintf("%q is not a roster role of this run (known: %s); pass the roster role, e.g. %q", worker, strings.Join(known, ", "), known[0])}
}

// rosterCandidate is one source of a roster role: a role execution of the
// run manifest or a worker of team-state.
type rosterCandidate struct {
	roster, provider, role, label, workerID string
}

// normLabel folds case, hyphens, underscores and runs of spaces.
func normLabel(s string) string {
	s = strings.NewReplacer("-", " ", "_", " ").Replace(strings.ToLower(s))
	return strings.Join(strings.Fields(s), " ")
}

// normFunction folds the spellings of a function ("report-writer",
// "report writer", "analyzer") and drops a trailing "worker".
func normFunction(s string) string {
	s = normLabel(s)
	s = strings.TrimSpace(strings.TrimSuffix(s, "worker"))
	s = strings.ReplaceAll(s, "analyzer", "analyser")
	if s == "lead" || s == "lead role" {
		s = "leader"
	}
	return s
}

func isLeadRole(role string) bool { return normFunction(role) == "leader" }

// specialFunction is a candidate's function when it is one a roster role
// of its own stands for (the lead, the report writer, the translator),
// "" for a provider's generic worker.
func specialFunction(c rosterCandidate) string {
	switch f := normFunction(c.role); f {
	case "leader", "report writer", "translator":
		return f
	}
	switch state.RosterFunction(c.roster) {
	case "leader":
		return "leader"
	case "report-writer":
		return "report writer"
	case "translator":
		return "translator"
	}
	return ""
}

func isLeadFunction(f string) bool { return f == "leader" }

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
