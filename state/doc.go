// Package state owns the run's files: the run manifest, jobs files,
// team-state, status sidecars, the lead-events ledger, the approval-decision
// ledger, user-response sidecars and the next-phase pointer. It parses and
// validates them, resolves their project-root-relative paths (refusing any
// that escape the root), and writes them atomically (temp file + rename in the
// same directory) under a file lock, keeping every field it does not know in
// place. It starts no processes and draws nothing; it imports no other
// cockpit package.
package state
