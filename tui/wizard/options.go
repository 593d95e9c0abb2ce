package wizard

import (
	"github.com/okstra/cockpit/workers/setup"
)

// Options are the form's options: the setup options (project root,
// language, environment, catalog) and NoColor.
type Options struct {
	setup.Options
	// NoColor turns colour off; NO_COLOR in the environment does too.
	NoColor bool
}
