package main

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime/engine"
	"github.com/okstra/cockpit/tui"
)

// OpenOptions are the flags of `open`.
type OpenOptions struct {
	IO     *IOStreams
	Ctx    context.Context
	Run    runFlags
	Prefix string
	Lead   []string // the lead command after --lead --; $SHELL when empty
	Shell  string   // $SHELL, or /bin/sh
}

// NewCmdOpen parses and checks `open`; runF (openRun when nil) does it.
func NewCmdOpen(f *Factory, runF func(*OpenOptions) error) *cobra.Command {
	opts := &OpenOptions{IO: f.IO, Shell: f.envOr("SHELL", "/bin/sh")}
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
			opts.Ctx, opts.Lead = cmd.Context(), args
			if len(opts.Lead) == 0 {
				opts.Lead = []string{opts.Shell}
			}
			if runF != nil {
				return runF(opts)
			}
			return openRun(opts)
		},
	}
	opts.Run.add(f, cmd)
	cmd.Flags().Bool("lead", false, "the lead command follows after --")
	cmd.Flags().StringVar(&opts.Prefix, "prefix", f.envOr("COCKPIT_PREFIX", tui.DefaultPrefix), "the key that leaves a pane, tmux-style (default $COCKPIT_PREFIX or ctrl+b)")
	return cmd
}

func openRun(o *OpenOptions) error {
	cp, stop, err := startCockpit(&o.Run, o.Lead)
	if err != nil {
		return err
	}
	defer stop()
	return runScreen(o.Ctx, cp, o.Prefix)
}

// startCockpit starts the engine on the run with lead in its lead pane (none
// when empty), the okstra shim first on the lead's PATH; stop removes the
// shim once the cockpit is closed.
func startCockpit(r *runFlags, lead []string) (cp *engine.Engine, stop func(), err error) {
	run, err := r.load()
	if err != nil {
		return nil, nil, err
	}
	self, err := selfPath()
	if err != nil {
		return nil, nil, err
	}
	cfg := engine.Config{Run: run, Self: self, Lead: lead}
	stop = func() {}
	if len(lead) > 0 {
		shim, removeShim, err := okstraShim(self)
		if err != nil {
			return nil, nil, err
		}
		cfg.LeadPath, stop = []string{shim}, removeShim
	}
	if cp, err = engine.Start(cfg); err != nil {
		stop()
		return nil, nil, err
	}
	return cp, stop, nil
}

// runScreen runs the screen on a started cockpit until the human quits or
// a signal ends ctx (through tea.WithContext: the program stops and gives
// the terminal back), then closes the cockpit (every pane gets its hang-up;
// the workers write terminal sidecars). A signal is the screen's normal
// end, as quitting is: exit 0.
func runScreen(ctx context.Context, cp *engine.Engine, prefix string) error {
	ctx, cancel := context.WithCancel(ctx)
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
	prog := tea.NewProgram(app, append(tui.ProgramOptions(), tea.WithContext(ctx))...)
	events, stop := cp.Subscribe()
	go func() {
		for ev := range events {
			prog.Send(ev)
		}
	}()
	_, runErr := prog.Run()
	if errors.Is(runErr, tea.ErrProgramKilled) && ctx.Err() != nil {
		runErr = nil // stopped by a signal
	}
	app.Stop()
	stop()
	if err := cp.Close(); err != nil && runErr == nil {
		return err
	}
	return runErr
}
