// Package wizard owns `cockpit wizard`: setting up an okstra task (task key
// and group, task type, related tasks, directive, roster, role models and
// counts, lead, executor, report language) in Korean or English, and turning
// the answers into the `okstra render-bundle` arguments and config actions a
// lead runs.
//
// The logic is a plain Session that both faces drive: Run reads a JSON file
// of answers (--answers) with no terminal, and New returns the interactive
// bubbletea model, one huh v2 form per step inside the package's own model.
// Both refuse the same answers with the same messages, okstra's word for word
// where okstra has one (an executor outside the roster, one worker id on two
// models). Render prints the outcome as a summary or as JSON.
//
// Texts come from assets/prompts/wizard.<lang>.json. The package reads the
// project's .okstra/tasks/*/task-manifest.json and the provider catalog; it
// writes nothing. cmd/cockpit wires the command (docs/WIZARD.md).
package wizard
