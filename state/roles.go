package state

import (
	"fmt"
	"strings"
)

// Canonical roles of a role execution. "lead" and "executor" are read-only
// aliases of leader and implementer: accepted on input, never written.
var CanonicalRoles = []string{
	"leader", "analyser", "critic", "designer", "planner",
	"implementer", "verifier", "report-writer", "translator",
}

var roleAliases = map[string]string{
	"lead":     "leader",
	"executor": "implementer",
}

// NormalizeRole returns the canonical spelling of role, resolving aliases.
func NormalizeRole(role string) (string, error) {
	r := strings.ToLower(strings.TrimSpace(role))
	if a, ok := roleAliases[r]; ok {
		return a, nil
	}
	for _, c := range CanonicalRoles {
		if r == c {
			return c, nil
		}
	}
	return "", fmt.Errorf("unknown role %q (known: %s; aliases lead, executor)", role, strings.Join(CanonicalRoles, ", "))
}

// dutyRoles maps an invocation's dutyId to the role that performs it.
var dutyRoles = map[string]string{
	"analysis":       "analyser",
	"critic":         "critic",
	"critique":       "critic",
	"design":         "designer",
	"planning":       "planner",
	"implementation": "implementer",
	"verification":   "verifier",
	"reverification": "verifier",
	"report-writing": "report-writer",
	"report-writer":  "report-writer",
	"translation":    "translator",
	"synthesis":      "leader",
}

// RoleForDuty returns the role that performs dutyId.
func RoleForDuty(dutyID string) (string, error) {
	if r, ok := dutyRoles[strings.ToLower(strings.TrimSpace(dutyID))]; ok {
		return r, nil
	}
	return "", fmt.Errorf("unknown duty %q", dutyID)
}

// IsTerminal reports whether status is a terminal worker status: completed,
// timeout, error or not-run, after which nothing changes.
func IsTerminal(status Status) bool {
	switch status {
	case StatusCompleted, StatusTimeout, StatusError, StatusNotRun:
		return true
	}
	return false
}

// CheckDispatchKind checks a jobs file's dispatch kind: initial, reverify-r<N>,
// critic, report-writer or translator.
func CheckDispatchKind(kind DispatchKind) error {
	switch kind {
	case DispatchInitial, DispatchCritic, DispatchReportWriter, DispatchTranslator:
		return nil
	}
	if n, ok := strings.CutPrefix(string(kind), "reverify-r"); ok && n != "" && strings.Trim(n, "0123456789") == "" && n[0] != '0' {
		return nil
	}
	return fmt.Errorf("unknown dispatch kind %q (known: initial, reverify-r<N>, critic, report-writer, translator)", kind)
}
