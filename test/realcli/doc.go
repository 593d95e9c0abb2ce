// Package realcli holds the end-to-end tests that run the real worker CLIs
// (claude, codex, gemini, grok — the npm packages testdata/realcli pins)
// as workers under the cockpit, offline, against internal/mockllm: through
// `cockpit worker-dispatch` (the cli-wrapper backend) and through `team
// dispatch` into the panes of a served run. It has no code of its own
// besides the tests; internal/realcli sets the CLIs up.
package realcli
