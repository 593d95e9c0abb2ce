package wizard

import (
	"context"

	"github.com/okstra/cockpit/workers/setup"
)

// Options are the form's options: the setup options (project root,
// language, environment, catalog) and NoColor.
type Options struct {
	setup.Options
	// NoColor turns colour off; NO_COLOR in the environment does too.
	NoColor bool
	// Ctx ends the form when it is done (the command's signal context: a
	// SIGHUP when the terminal closes); nil: never.
	Ctx context.Context
}
