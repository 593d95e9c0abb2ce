package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/registry"
	"github.com/okstra/cockpit/tui/attach"
)

// AttachOptions are the flags of `attach`.
type AttachOptions struct {
	IO       *IOStreams
	Ctx      context.Context
	Target   engineTarget
	ReadOnly bool
	Alerts   alertsFlag
}

// engineTarget says which engine a command means: --socket, else the run
// (--project-root, --run-manifest), else the user's only live engine.
type engineTarget struct {
	Run    runFlags
	Socket string
}

func (e *engineTarget) add(f *Factory, cmd *cobra.Command) {
	e.Run.add(f, cmd)
	cmd.Flags().StringVar(&e.Socket, "socket", "", "the engine's control socket (instead of the run's flags)")
}

// resolve is the socket of the engine meant, and a name for it (its run).
// With no flag and several live engines it lists them on errw and fails
// with exit 2; with none, exit 1.
func (e *engineTarget) resolve(ctx context.Context, errw io.Writer) (socket string, err error) {
	switch {
	case e.Socket != "":
		return e.Socket, nil
	case e.Run.RunManifest != "":
		run, err := e.Run.load()
		if err != nil {
			return "", err
		}
		return control.SocketPath(run), nil
	}
	entries, err := registry.List()
	if err != nil {
		return "", err
	}
	switch len(entries) {
	case 0:
		return "", errors.New("no cockpit engine is running; start one with `cockpit open --project-root <dir> --run-manifest <path>`")
	case 1:
		return entries[0].Socket, nil
	}
	printEngines(errw, describeEngines(ctx, entries))
	return "", &codedError{code: exitUsage, err: fmt.Errorf("%d engines are running; choose one with --project-root and --run-manifest, or --socket", len(entries))}
}

// NewCmdAttach parses `attach`; runF (attachRun when nil) does it.
func NewCmdAttach(f *Factory, runF func(*AttachOptions) error) *cobra.Command {
	opts := &AttachOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "attach [--project-root <dir> --run-manifest <path> | --socket <path>] [--read-only]",
		Short: "Attach this terminal to a running engine's screen",
		Long: `attach brings back the screen of a run whose engine is running (started by
cockpit open, or cockpit serve): every pane, the timeline, counts and gates, as
they are. Without flags it attaches to your only live engine (cockpit ls lists
them). ctrl+b d detaches again; q asks whether to detach or end the run.
--read-only watches without typing into panes or answering gates. From another
machine: ssh -t host cockpit attach.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Alerts.check(); err != nil {
				return err
			}
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return attachRun(opts)
		},
	}
	opts.Target.add(f, cmd)
	cmd.Flags().BoolVar(&opts.ReadOnly, "read-only", false, "watch only: no typing into panes, no answering gates")
	opts.Alerts.add(f, cmd)
	return cmd
}

func attachRun(o *AttachOptions) error {
	sock, err := o.Target.resolve(o.Ctx, o.IO.Err)
	if err != nil {
		return err
	}
	in, out, p, err := screenParams(o.IO, o.ReadOnly, o.Alerts)
	if err != nil {
		return err
	}
	conn, hello, err := dialScreen(o.Ctx, sock, "attach", p)
	if err != nil {
		return err
	}
	return runClient(o.IO, conn, in, out, p, hello, comeBack(hello, sock, o.Target.Socket != ""))
}

// screenParams are what a screen command (open, attach, demo) asks an
// engine for: its terminal — stdin and stdout, both a terminal, or an
// error saying what to do — and that terminal's size and environment, with
// the alerts setting.
func screenParams(s *IOStreams, readOnly bool, alerts alertsFlag) (in, out *os.File, p attach.Params, err error) {
	in, _ = s.In.(*os.File)
	out, _ = s.Out.(*os.File)
	if in == nil || out == nil || !s.IsStdinTTY() || !s.IsStdoutTTY() {
		return nil, nil, p, fmt.Errorf("the screen needs a terminal on stdin and stdout (`cockpit serve` runs an engine without one; `ssh -t` gives a remote command a terminal)")
	}
	if p, err = attach.LocalParams(in, readOnly); err != nil {
		return nil, nil, p, err
	}
	p.Env = alerts.env(p.Env)
	return in, out, p, nil
}

// dialScreen asks the engine at sock for a screen.
func dialScreen(ctx context.Context, sock, client string, p attach.Params) (io.ReadWriteCloser, control.HelloResult, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	nc, r, hello, _, err := control.DialAttach(ctx, sock, client, control.AttachParams{Cols: p.Cols, Rows: p.Rows, Env: p.Env, ReadOnly: p.ReadOnly})
	if err != nil {
		return nil, hello, err
	}
	return attach.Buffered(nc, r), hello, nil
}

// runClient relays the terminal to the attached screen until it ends, then
// says how it ended: detached and run-ended are exit 0, the rest exit 1.
func runClient(s *IOStreams, conn io.ReadWriteCloser, in, out *os.File, p attach.Params, hello control.HelloResult, back string) error {
	outcome, err := attach.Run(conn, in, out, attach.ClientOptions{Cols: p.Cols, Rows: p.Rows})
	if err != nil && outcome.Reason != attach.ReasonLost {
		return err
	}
	switch outcome.Reason {
	case attach.ReasonDetached:
		fmt.Fprintf(s.Out, "detached from %s; `%s` to come back\n", hello.RunManifest, back)
		return nil
	case attach.ReasonRunEnded:
		fmt.Fprintln(s.Out, outcome.Message)
		return nil
	case attach.ReasonLost:
		return fmt.Errorf("the engine is gone (pid %d died or was killed); `cockpit open --project-root %s --run-manifest %s` reconciles the run",
			hello.PID, hello.ProjectRoot, hello.RunManifest)
	case attach.ReasonKicked:
		// The engine goes on: say how to come back.
		return fmt.Errorf("%s; `%s` attaches again", outcome.Message, back)
	}
	return fmt.Errorf("the screen ended (%s): %s", outcome.Reason, outcome.Message)
}

// comeBack is the command that attaches to this engine again: by its run,
// or by its socket when the run does not name it (bySocket).
func comeBack(hello control.HelloResult, sock string, bySocket bool) string {
	if !bySocket && hello.RunManifest != "" && hello.ProjectRoot != "" {
		return fmt.Sprintf("cockpit attach --project-root %s --run-manifest %s", shellQuote(hello.ProjectRoot), shellQuote(hello.RunManifest))
	}
	return "cockpit attach --socket " + shellQuote(sock)
}

// shellQuote quotes s for a shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '+' || r == '@' || r == ',' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
