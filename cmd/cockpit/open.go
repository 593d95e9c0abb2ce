package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime"
	"github.com/okstra/cockpit/tui"
)

type openOptions struct {
	run    runFlags
	prefix string
}

func newOpenCmd(io *streams) *cobra.Command {
	opts := &openOptions{}
	cmd := &cobra.Command{
		Use:   "open --project-root <dir> --run-manifest <path> [--lead -- <cmd>...]",
		Short: "Open the cockpit screen for a run: the lead pane, worker panes, live counts, gates",
		Long: `open is the screen for a real run. The lead pane runs the given command (e.g.
claude) with COCKPIT_SOCKET, COCKPIT_RUN_MANIFEST and COCKPIT_PROJECT_ROOT in
its environment and this cockpit first on its PATH, so the lead's "cockpit team
dispatch" opens worker panes here; an okstra shim comes first of all, so the
okstra commands of the lead contract ("okstra team dispatch", ...) reach this
cockpit too and the others reach the real okstra (docs/OKSTRA.md). Without a lead command the lead pane runs
$SHELL. Dispatches still running from an earlier session are shown as
"running elsewhere" with their log. Press ? for the keys.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if (dash < 0 && len(args) > 0) || dash > 0 {
				return &usageError{fmt.Errorf("unexpected argument %q; put the lead command after --lead --", args[0])}
			}
			return openRun(io, opts, args)
		},
	}
	opts.run.add(cmd)
	cmd.Flags().Bool("lead", false, "the lead command follows after --")
	cmd.Flags().StringVar(&opts.prefix, "prefix", envOr("COCKPIT_PREFIX", tui.DefaultPrefix), "the key that leaves a pane, tmux-style (default $COCKPIT_PREFIX or ctrl+b)")
	return cmd
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func openRun(io *streams, o *openOptions, lead []string) error {
	run, err := o.run.load()
	if err != nil {
		return err
	}
	if len(lead) == 0 {
		lead = []string{envOr("SHELL", "/bin/sh")}
	}
	self, err := selfPath()
	if err != nil {
		return err
	}
	shim, removeShim, err := okstraShim(self)
	if err != nil {
		return err
	}
	defer removeShim()
	cp, err := runtime.StartCockpit(runtime.CockpitConfig{Run: run, Self: self, Lead: lead, LeadPath: []string{shim}})
	if err != nil {
		return err
	}
	return runScreen(cp, o.prefix)
}

// runScreen runs the screen on a started cockpit until the human quits or
// the process is told to stop, then closes the cockpit (every pane gets its
// hang-up; the workers write terminal sidecars) .
func runScreen(cp *runtime.Cockpit, prefix string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	app := tui.New(tui.Config{
		Manager:  cp.Manager(),
		Prefix:   prefix,
		NoColor:  tui.NoColorFromEnv(),
		LeadPane: cp.LeadPane(),
		Context:  ctx,
		Actions: tui.Actions{
			ClosePane:  func(id string) { _ = cp.ClosePane(id, "closed from the screen") },
			AnswerGate: cp.AnswerGate,
		},
	})
	prog := tea.NewProgram(app, tui.ProgramOptions()...)
	events, stop := cp.Subscribe()
	go func() {
		for ev := range events {
			prog.Send(ev)
		}
	}()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		if _, ok := <-sigs; ok {
			prog.Quit()
		}
	}()
	_, runErr := prog.Run()
	signal.Stop(sigs)
	close(sigs)
	app.Stop()
	stop()
	if err := cp.Close(); err != nil && runErr == nil {
		return err
	}
	return runErr
}
