// Package approval owns two gate files of an okstra run: the
// approval-decision ledger (approval-decisions*.json, rows C-NNN that a gate
// shows) and the user-response sidecar (the Markdown file, owned by the user,
// that records their answers beside a report).
//
// It validates ledger rows (ids, options, reach, scope effects,
// dispositions, statuses), opens, carries and resolves rows, derives the
// obsolete status of a superseded row, and reads, merges and writes the
// sidecar exactly as okstra serializes it. Every write happens under the
// file's lock (state.WithLock) and replaces the file atomically
// (state.WriteFileAtomic); a rejected input writes nothing. A ledger rewrite
// keeps every member it does not know, of the file and of each row, in its
// place.
//
// It starts no process and draws nothing; it imports only the state package.
// The cobra commands that call it (`cockpit approval-decision …`,
// `cockpit user-response …`) live in cmd/cockpit and are described in
// docs/GATES.md.
package approval
