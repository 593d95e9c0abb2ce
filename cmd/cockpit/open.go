package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/tui"
	"github.com/okstra/cockpit/tui/attach"
)

// OpenOptions are the flags of `open`.
type OpenOptions struct {
	IO     *IOStreams
	Ctx    context.Context
	Run    runFlags
	Prefix string
	Alerts alertsFlag
	Lead   []string // the lead command after --lead --; $SHELL when empty
	// LeadGiven says a lead command was given (not the $SHELL default).
	LeadGiven bool
	Shell     string // $SHELL, or /bin/sh
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
"running elsewhere" with their log. Press ? for the keys.

The run's engine (panes, emulators, the control socket, gates) runs in the
background, in its own session, logging to cockpit-engine.log in the run's
state directory; this terminal is one screen attached to it. ctrl+b d (or
closing the terminal) detaches: the engine, the lead and every worker go on,
and cockpit attach brings the screen back. q asks whether to detach or end
the run. If an engine already serves the run, open attaches to it and the
lead command is not used.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if (dash < 0 && len(args) > 0) || dash > 0 {
				return &usageError{fmt.Errorf("unexpected argument %q; put the lead command after --lead --", args[0])}
			}
			if err := opts.Alerts.check(); err != nil {
				return err
			}
			p, err := tui.ParsePrefix(opts.Prefix)
			if err != nil {
				return &usageError{fmt.Errorf("--prefix (or $COCKPIT_PREFIX): %w", err)}
			}
			opts.Prefix = p
			opts.Ctx, opts.Lead, opts.LeadGiven = cmd.Context(), args, len(args) > 0
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
	opts.Alerts.add(f, cmd)
	cmd.Flags().StringVar(&opts.Prefix, "prefix", f.envOr("COCKPIT_PREFIX", tui.DefaultPrefix), "the key that leaves a pane, tmux-style (default $COCKPIT_PREFIX or ctrl+b)")
	defaultSaid(cmd, "prefix")
	return cmd
}

func openRun(o *OpenOptions) error {
	run, err := o.Run.load()
	if err != nil {
		return err
	}
	in, out, p, err := screenParams(o.IO, false, o.Alerts)
	if err != nil {
		return err
	}
	sock := control.SocketPath(run)
	conn, hello, err := openEngine(o, sock, p, func() error {
		self, err := selfPath()
		if err != nil {
			return err
		}
		args := engineArgs(run.Root.Dir(), run.Manifest.Display, "", p.Cols, p.Rows, o.Prefix, o.Lead)
		return spawnEngine(self, args, engineLog(run))
	})
	if err != nil {
		return err
	}
	return runClient(o.IO, conn, in, out, p, hello, comeBack{socket: sock})
}

// openEngine attaches a screen to the engine serving the run at sock, or,
// when none does, starts one with spawn (it reconciles what an earlier one
// left) and attaches to it. When another open started one meanwhile (spawn
// lost the race: ErrServing), it attaches to that one. Whenever the screen
// is not of an engine this open started, a lead command given is not used,
// and open says so.
func openEngine(o *OpenOptions, sock string, p attach.Params, spawn func() error) (io.ReadWriteCloser, control.HelloResult, error) {
	conn, hello, err := dialScreen(o.Ctx, sock, "open", p)
	ours := false
	if errors.Is(err, control.ErrNoCockpit) {
		serr := spawn()
		if serr != nil && !strings.Contains(serr.Error(), control.ErrServing.Error()) {
			return nil, hello, serr
		}
		ours = serr == nil
		conn, hello, err = dialScreen(o.Ctx, sock, "open", p)
	}
	if err != nil {
		return nil, hello, err
	}
	if !ours && o.LeadGiven {
		fmt.Fprintf(o.IO.Err, "cockpit open: an engine already serves this run (pid %d); attaching to it, the lead command is ignored (it is only used when an engine starts)\n", hello.PID)
	}
	return conn, hello, nil
}
