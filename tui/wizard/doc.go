// Package wizard is the form of `cockpit wizard`: one huh v2 form per step
// inside the package's own bubbletea model, which owns the step order, going
// back, the refusals, the frame and the final summary, in the alternate
// screen.
//
// Everything the form decides goes through a workers/setup Session, the
// same one `--answers` drives headless, so the form and a file of answers
// give the same outcome and the same refusals. This package holds only what
// draws: it keeps no rule of its own. cmd/cockpit wires the command
// (docs/WIZARD.md).
package wizard
