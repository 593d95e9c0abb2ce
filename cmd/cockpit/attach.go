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

// engineTarget says which engine a command means, as tmux's -t does: a
// NAME (or pid) from `cockpit ls`, else --socket, else the run
// (--project-root, --run-manifest), else the user's only live engine.
type engineTarget struct {
	Run    runFlags
	Socket string
	// Name is the engine's name or pid: the command's argument, or -t.
	Name string
	// verb is what the command does to the engine ("attach to", "stop"),
	// for its messages.
	verb string
}

func (e *engineTarget) add(f *Factory, cmd *cobra.Command, verb string) {
	e.verb = verb
	e.Run.add(f, cmd)
	cmd.Flags().StringVar(&e.Socket, "socket", "", "the engine's control socket `path` (instead of a name or the run's flags)")
	cmd.Flags().StringVarP(&e.Name, "target", "t", "", "the engine's `name` or pid, as the argument (tmux's -t)")
}

// args takes the optional NAME argument (or -t, not both).
func (e *engineTarget) args(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) > 1:
		return &usageError{fmt.Errorf("unexpected argument %q; %s takes one engine name", args[1], cmd.CommandPath())}
	case len(args) == 1 && e.Name != "":
		return &usageError{fmt.Errorf("the engine is named twice (%q and -t %q); give one", args[0], e.Name)}
	case len(args) == 1:
		e.Name = args[0]
	}
	if e.Name != "" && e.Socket != "" {
		return &usageError{fmt.Errorf("an engine name and --socket both say which engine; give one")}
	}
	return nil
}

// resolved is the engine a target names: its socket, its registered name
// ("" when none was found), and how it was found, for messages.
type resolved struct {
	socket, name, via string
}

// resolve finds the engine meant. With no target and several live engines
// it lists them on errw and fails with exit 2; with none, or a name that
// matches none, exit 1.
func (e *engineTarget) resolve(ctx context.Context, errw io.Writer) (resolved, error) {
	switch {
	case e.Name != "":
		entries, err := registry.List()
		if err != nil {
			return resolved{}, err
		}
		m := registry.Match(entries, e.Name)
		switch {
		case len(m) == 1:
			return resolved{socket: m[0].Socket, name: m[0].Name, via: fmt.Sprintf("the name %q", e.Name)}, nil
		case len(m) > 1:
			printEngines(errw, describeEngines(ctx, m))
			return resolved{}, &codedError{code: exitUsage, err: fmt.Errorf("%q names %d engines; give more of the name", e.Name, len(m))}
		case len(entries) == 0:
			return resolved{}, fmt.Errorf("no engine is named %q: no cockpit engine is running", e.Name)
		}
		var names []string
		for _, en := range entries {
			names = append(names, en.Name)
		}
		return resolved{}, fmt.Errorf("no engine is named %q (nor has that pid); running: %s (`cockpit ls` lists them)", e.Name, strings.Join(names, ", "))
	case e.Socket != "":
		return resolved{socket: e.Socket, name: nameOfSocket(e.Socket), via: "--socket " + e.Socket}, nil
	case e.Run.RunManifest != "":
		run, err := e.Run.load()
		if err != nil {
			return resolved{}, err
		}
		sock := control.SocketPath(run)
		via := fmt.Sprintf("--run-manifest %s, whose socket is %s", run.Manifest.Display, sock)
		if os.Getenv(envSocket) != "" {
			via = fmt.Sprintf("--run-manifest %s and $%s, %s", run.Manifest.Display, envSocket, sock)
		}
		return resolved{socket: sock, name: nameOfSocket(sock), via: via}, nil
	}
	entries, err := registry.List()
	if err != nil {
		return resolved{}, err
	}
	switch len(entries) {
	case 0:
		if e.verb == "stop" {
			return resolved{}, errors.New("no cockpit engine is running; nothing to stop (`cockpit ls` lists the running ones)")
		}
		return resolved{}, errors.New("no cockpit engine is running; `cockpit open --project-root <dir> --run-manifest <path>` starts one for a run, `cockpit demo` one to try")
	case 1:
		return resolved{socket: entries[0].Socket, name: entries[0].Name, via: "the only engine running"}, nil
	}
	printEngines(errw, describeEngines(ctx, entries))
	return resolved{}, &codedError{code: exitUsage, err: fmt.Errorf("%d engines are running; name one: `cockpit %s NAME`", len(entries), e.verb)}
}

// nameOfSocket is the registered name of the engine serving sock, "" when
// none is registered.
func nameOfSocket(sock string) string {
	entries, _ := registry.List()
	for _, e := range entries {
		if e.Socket == sock {
			return e.Name
		}
	}
	return ""
}

// nameOfPID is the registered name of the engine with pid, "" when none.
func nameOfPID(pid int) string {
	entries, _ := registry.List()
	for _, e := range entries {
		if e.PID == pid {
			return e.Name
		}
	}
	return ""
}

// NewCmdAttach parses `attach`; runF (attachRun when nil) does it.
func NewCmdAttach(f *Factory, runF func(*AttachOptions) error) *cobra.Command {
	opts := &AttachOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "attach [NAME | --socket <path> | --project-root <dir> --run-manifest <path>] [--read-only]",
		Short: "Attach this terminal to a running engine's screen",
		Long: `attach brings back the screen of a run whose engine is running (started by
cockpit open, cockpit demo or cockpit serve): every pane, the timeline, counts
and gates, as they are. NAME is the engine's name from cockpit ls (or its pid,
or the start of its name), as tmux attach -t takes a session; without one it
attaches to your only live engine. ctrl+b d detaches again; q asks whether to
detach or end the run. --read-only watches without typing into panes or
answering gates. From another machine: ssh -t host cockpit attach NAME.`,
		Example: `  cockpit ls
  cockpit attach dev-10860-002
  cockpit attach 48213 --read-only`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.Target.args(cmd, args); err != nil {
				return err
			}
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
	opts.Target.add(f, cmd, "attach")
	cmd.Flags().BoolVar(&opts.ReadOnly, "read-only", false, "watch only: no typing into panes, no answering gates")
	opts.Alerts.add(f, cmd)
	return cmd
}

func attachRun(o *AttachOptions) error {
	target, err := o.Target.resolve(o.Ctx, o.IO.Err)
	if err != nil {
		return err
	}
	in, out, p, err := screenParams(o.IO, o.ReadOnly, o.Alerts)
	if err != nil {
		return err
	}
	conn, hello, err := dialScreen(o.Ctx, target.socket, "attach", p)
	if err != nil {
		return err
	}
	return runClient(o.IO, conn, in, out, p, hello, comeBack{socket: target.socket, bySocket: o.Target.Socket != ""})
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

// dialScreen asks the engine at sock for a screen. p.TTY offers the
// terminal (attach.LocalParams); when the engine takes the offer, the
// connection says so and attach.Run hands the terminal over.
func dialScreen(ctx context.Context, sock, client string, p attach.Params) (io.ReadWriteCloser, control.HelloResult, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	nc, r, hello, res, err := control.DialAttach(ctx, sock, client, control.AttachParams{Cols: p.Cols, Rows: p.Rows, Env: p.Env, ReadOnly: p.ReadOnly, TTY: p.TTY})
	if err != nil {
		return nil, hello, err
	}
	if p.TTY && res.TTY {
		return attach.BufferedTTY(nc, r), hello, nil
	}
	return attach.Buffered(nc, r), hello, nil
}

// runClient relays the terminal to the attached screen until it ends, then
// says how it ended: detached and run-ended are exit 0, the rest exit 1.
func runClient(s *IOStreams, conn io.ReadWriteCloser, in, out *os.File, p attach.Params, hello control.HelloResult, back comeBack) error {
	outcome, err := attach.Run(conn, in, out, attach.ClientOptions{Cols: p.Cols, Rows: p.Rows})
	if err != nil && outcome.Reason != attach.ReasonLost {
		return err
	}
	switch outcome.Reason {
	case attach.ReasonDetached:
		fmt.Fprintln(s.Out, back.line(hello))
		return nil
	case attach.ReasonRunEnded:
		fmt.Fprintln(s.Out, outcome.Message)
		return nil
	case attach.ReasonLost:
		return fmt.Errorf("the engine is gone (pid %d died or was killed); `cockpit open --project-root %s --run-manifest %s` reconciles the run",
			hello.PID, hello.ProjectRoot, hello.RunManifest)
	case attach.ReasonKicked:
		// The engine goes on: say how to come back.
		return fmt.Errorf("%s; `cockpit attach %s` attaches again", outcome.Message, back.target(hello))
	}
	return fmt.Errorf("the screen ended (%s): %s", outcome.Reason, outcome.Message)
}

// comeBack says, after a detach, how to attach to the engine again and how
// to end its run: by the engine's name (cockpit ls), else by its run, else
// by its socket.
type comeBack struct {
	socket string
	// bySocket: the engine was named by --socket, so the run may not lead
	// back to it.
	bySocket bool
	// note follows the line (the demo's grace).
	note string
}

// target is what names the engine to attach or stop: its name, else its
// run's flags, else its socket.
func (c comeBack) target(hello control.HelloResult) string {
	switch name := nameOfPID(hello.PID); {
	case name != "":
		return shellQuote(name)
	case !c.bySocket && hello.RunManifest != "" && hello.ProjectRoot != "":
		return fmt.Sprintf("--project-root %s --run-manifest %s", shellQuote(hello.ProjectRoot), shellQuote(hello.RunManifest))
	}
	return "--socket " + shellQuote(c.socket)
}

// line is the detach line: what was left, the command that comes back and
// the one that ends the run.
func (c comeBack) line(hello control.HelloResult) string {
	target := c.target(hello)
	what := hello.RunManifest
	if name := nameOfPID(hello.PID); name != "" {
		what = name + " (" + hello.RunManifest + ")"
	}
	line := fmt.Sprintf("detached from %s; `cockpit attach %s` comes back, `cockpit stop %s` ends the run", what, target, target)
	if c.note != "" {
		line += "; " + c.note
	}
	return line
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
