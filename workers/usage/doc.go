// Package usage reads the token evidence a worker CLI leaves behind and
// prices it: claude's session JSONL (~/.claude/projects/<cwd>/<id>.jsonl),
// codex's rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl), the
// stream-json events of claude and gemini in a worker's pane log, kimi's
// wire.jsonl, and the sim provider's claude-shaped file beside its prompt.
//
// It owns the formats, the incremental reading (a Follower remembers its
// offset and parses only appended bytes; a torn last line waits for the
// rest), where each CLI's file is and how it is tied to one worker, and the
// price (workers.Catalog rows, USD per million tokens; unpriced when the
// catalog has no price). It does no watching: the engine tells a Tracker
// which files changed (runtime/watch) and reads the totals back. See
// docs/COST.md.
package usage
