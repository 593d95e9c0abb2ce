package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/tui"
)

// alertsFlag is --alerts, of the commands that show a screen (open, attach,
// demo): which alerts ring this terminal (tui.ParseAlerts). The screen runs
// in the engine; the choice travels with the client's terminal environment
// (attach.Params.Env) as $COCKPIT_ALERTS, so each attached terminal has its
// own.
type alertsFlag struct {
	value  string
	parsed tui.Alerts // set by check
}

func (a *alertsFlag) add(f *Factory, cmd *cobra.Command) {
	cmd.Flags().StringVar(&a.value, "alerts", f.envOr(tui.AlertsEnv, "all"),
		"which alerts ring this terminal (bell, desktop notification): all, off, or a `list` of gate, fail, batch, pane and bell, osc; -name leaves one out (default $"+tui.AlertsEnv+" or all)")
	defaultSaid(cmd, "alerts")
}

// check reads the flag; bad input is a usage error naming the flag.
func (a *alertsFlag) check() error {
	al, err := tui.ParseAlerts(a.value)
	if err != nil {
		return &usageError{fmt.Errorf("--alerts %q (or $%s): %v", a.value, tui.AlertsEnv, err)}
	}
	a.parsed = al
	return nil
}

// env sets $COCKPIT_ALERTS in a client's environment to the checked flag.
func (a *alertsFlag) env(env []string) []string {
	al := a.parsed
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, tui.AlertsEnv+"=") {
			out = append(out, kv)
		}
	}
	return append(out, tui.AlertsEnv+"="+al.String())
}
