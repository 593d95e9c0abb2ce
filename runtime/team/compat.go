package team

import (
	"github.com/okstra/cockpit/runtime/lifecycle"
	"github.com/okstra/cockpit/state"
)

// The engine's old names for the lifecycle's settle, until it calls
// runtime/lifecycle itself.
type Verdict = lifecycle.Verdict

var (
	Settle         = lifecycle.Settle
	SidecarVerdict = lifecycle.SidecarVerdict
)

// TeamName is the run's team name.
func TeamName(run *state.Run) string { return run.TeamName() }
