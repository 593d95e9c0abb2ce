package state

import (
	"fmt"
	"strings"
)

// The roster role is how team-state and the checkpoints name a worker
// ("Codex worker", "Report writer worker"). okstra writes it in one place:
// team-state's workers[].role (the seed: "`<role>` is the roster role,
// exactly as team-state's `workers[].role` records it"). Neither its jobs
// files nor its run manifests carry it; a rosterRole member in either (the
// shape of the cockpit's own early files) is read as a hint that wins.

// RosterFunction is what a roster role's name says its worker does:
// "report-writer" for a report writer, "leader" for the lead, "" for a
// provider's generic worker ("Codex worker").
func RosterFunction(roster string) string {
	n := strings.Join(strings.Fields(strings.NewReplacer("-", " ", "_", " ").Replace(strings.ToLower(roster))), " ")
	switch {
	case strings.Contains(n, "report writer"):
		return "report-writer"
	case strings.HasPrefix(n, "lead") || strings.Contains(n, " lead"):
		return "leader"
	case strings.Contains(n, "translator"):
		return "translator"
	}
	return ""
}

// DefaultRosterRole is the roster role okstra's roster table gives a
// provider's worker of a role, for a run whose team-state lists no roster:
// "Lead role" for the leader, "Report writer worker" for the report
// writer, else "<Provider> worker" ("Codex worker", "Antigravity worker").
func DefaultRosterRole(provider, role string) string {
	switch r, _ := NormalizeRole(role); r {
	case "leader":
		return "Lead role"
	case "report-writer":
		return "Report writer worker"
	}
	return RosterRoleFromWorker(provider)
}

// RosterFor is the roster role a job records under, in order:
//
//  1. the job's rosterRole, else its role execution's (hints);
//  2. team-state's workers[]: the entry with the job's v1 workerId, else
//     the entry of the job's provider whose function (RosterFunction) is
//     the job's role's — a report writer's, the lead's, else a generic
//     worker's — and, of several, the one with the job's model;
//  3. a v1 workerId ("codex-worker" → "Codex worker");
//  4. DefaultRosterRole of the job's provider and role.
//
// Only a team-state roster that leaves two entries equally right is an
// error, naming them.
func RosterFor(m *RunManifest, ts *TeamState, j Job) (string, error) {
	if j.RosterRole != "" {
		return j.RosterRole, nil
	}
	role := j.Role
	if re := m.RoleExecution(j.RoleExecutionRef); re != nil {
		if re.RosterRole != "" {
			return re.RosterRole, nil
		}
		if role == "" {
			role = re.Role
		}
	}
	if ts != nil && len(ts.Workers) > 0 {
		r, err := rosterFromWorkers(ts.Workers, j.WorkerID, j.Provider, role, j.ModelExecutionValue)
		if r != "" || err != nil {
			return r, err
		}
	}
	if j.WorkerID != "" {
		return RosterRoleFromWorker(j.WorkerID), nil
	}
	return DefaultRosterRole(j.Provider, role), nil
}

// rosterFromWorkers picks the roster entry of a worker (see RosterFor);
// "" when no entry is the provider's.
func rosterFromWorkers(ws []Worker, workerID, provider, role, model string) (string, error) {
	if workerID != "" {
		for _, w := range ws {
			if w.WorkerID == workerID && w.Role != "" {
				return w.Role, nil
			}
		}
	}
	function, _ := NormalizeRole(role)
	if function != "leader" && function != "report-writer" && function != "translator" {
		function = ""
	}
	// The provider's entries with the role's function: the lead's, the
	// report writer's, or the generic workers'.
	var cands []Worker
	for _, w := range ws {
		if w.Role != "" && strings.EqualFold(w.Provider, provider) && RosterFunction(w.Role) == function {
			cands = append(cands, w)
		}
	}
	if len(cands) == 0 {
		return "", nil
	}
	if len(cands) > 1 && model != "" {
		var byModel []Worker
		for _, w := range cands {
			if w.Model == model {
				byModel = append(byModel, w)
			}
		}
		if len(byModel) > 0 {
			cands = byModel
		}
	}
	roles := dedupeRoles(cands)
	if len(roles) == 1 {
		return roles[0], nil
	}
	return "", fmt.Errorf("team-state's roster has %s for provider %s and role %s; add rosterRole to the job to say which", strings.Join(quoteAll(roles), " and "), provider, orDash(role))
}

func dedupeRoles(ws []Worker) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range ws {
		if !seen[w.Role] {
			seen[w.Role] = true
			out = append(out, w.Role)
		}
	}
	return out
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
