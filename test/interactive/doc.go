// Package interactive holds the end-to-end tests of the real worker CLIs
// (claude, codex, gemini, grok) as a person uses them in the cockpit: each
// runs as the lead of `cockpit open --lead -- <cli>` in a real terminal
// (a tmux pane), and the same program runs in a plain tmux pane of the
// lead pane's size beside it, both against the mock LLM API
// (internal/mockllm) in homes set up by internal/realcli. The first
// screen, a typed prompt with its answer, and a resize must look the same
// in both (differential) and as the golden files under testdata/ say. The
// package has no code of its own beyond the tests and the recording
// helper internal/mockserve.
package interactive
