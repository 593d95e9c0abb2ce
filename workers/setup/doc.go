// Package setup is the logic of `cockpit wizard` with no user interface:
// setting up an okstra task (task key and group, task type, related tasks,
// directive, roster, role models and counts, lead, executor, report
// language) from the provider catalog and the project's tasks, and turning
// the answers into the `okstra render-bundle` arguments and config actions a
// lead runs.
//
// A Session holds the answers and refuses the ones okstra would, word for
// word where okstra has a message (an executor outside the roster, one
// worker id on two models). The answers' shape is
// assets/schemas/wizard-answers.schema.json, validated with the JSON Schema
// library (schema.go): an answers file whole, each answer of the form
// against its member's part; the checks by hand are what a schema cannot
// say (the catalog, roles, the project's tasks, the roster). Run and RunAnswers drive a session from a JSON
// file of answers (--answers); tui/wizard drives the same session from its
// form, so both give the same outcome and the same refusals. Render prints
// an outcome as a summary or as JSON.
//
// Texts come from assets/prompts/wizard.<lang>.json. The package reads the
// project's .okstra/tasks/*/task-manifest.json and the provider catalog; it
// writes nothing, starts no process and draws nothing: it must not import
// bubbletea, huh or lipgloss (TestNoFormLibrary), so the headless path does
// not link them (docs/WIZARD.md).
package setup
