package main

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/state"
)

// testFactory is a Factory on buffers (never terminals) whose environment
// is env alone.
func testFactory(env map[string]string) *Factory {
	return &Factory{
		IO:     newIOStreams(&bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}),
		Getenv: func(k string) string { return env[k] },
	}
}

// parse runs cmd on args the way Main does (flag errors are usage errors)
// and returns what it returned; runF has captured the options by then.
func parse(t *testing.T, cmd *cobra.Command, args ...string) error {
	t.Helper()
	cmd.SetFlagErrorFunc(flagError)
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.ExecuteContext(context.Background())
}

// isUsage reports whether err is a usage error (exit 2) whose text is want.
func isUsage(err error, want string) bool {
	var u *usageError
	return errors.As(err, &u) && err.Error() == want
}

func TestFlagsLeadProgressAppend(t *testing.T) {
	var got *LeadProgressOptions
	runF := func(o *LeadProgressOptions) error { got = o; return nil }
	f := testFactory(map[string]string{envProjectRoot: "/p", envRunManifest: "m.json"})
	if err := parse(t, NewCmdLeadProgressAppend(f, runF), "--phase", "phase-5-poll", "--field", "pending=2", "--field", "done=1=x", "--worker", "Codex worker", "--detail", "d"); err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"pending", "2"}, {"done", "1=x"}}
	if got.Phase != "phase-5-poll" || !reflect.DeepEqual(got.Fields, want) || got.Worker != "Codex worker" || got.Detail != "d" ||
		got.Run.ProjectRoot != "/p" || got.Run.RunManifest != "m.json" {
		t.Fatalf("options %+v", got)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "--phase is required"},
		{[]string{"--phase", "complete", "--field", "novalue"}, `--field "novalue" must be NAME=VALUE with a NAME free of spaces`},
		{[]string{"--phase", "complete", "--field", "a b=1"}, `--field "a b=1" must be NAME=VALUE with a NAME free of spaces`},
		{[]string{"--phase", "complete", "--field", "k=two\nlines"}, "--field k: the value must be one line"},
		{[]string{"--phase", "complete", "--detail", "a\nb"}, "--detail must be one line"},
		{[]string{"--phase", "complete", "--worker", "a\nb"}, "--worker must be one line"},
		{[]string{"--phase", "complete", "extra"}, `unexpected argument "extra"; append takes flags only`},
		// Issue 17.18: an enumerated flag exits 2 with the values listed.
		{[]string{"--phase", "phase-9"}, `--phase "phase-9": choose phase-1-intake, phase-2-prompts, phase-3-team-create, phase-4-dispatch, phase-5-poll, phase-5-collect, phase-5-stage, phase-5-stage-complete, phase-5.5-convergence, phase-5.6-critic, phase-batch-cleanup, phase-gate-cleanup, phase-6-synthesis, phase-5.5.9-plan-verify, user-confirm, phase-7-persist, phase-7-teardown or complete`},
	} {
		got = nil
		err := parse(t, NewCmdLeadProgressAppend(f, runF), c.args...)
		if !isUsage(err, c.want) || got != nil {
			t.Errorf("%q: %v (ran: %v), want usage error %q", c.args, err, got != nil, c.want)
		}
	}
}

func TestFlagsDispatch(t *testing.T) {
	for name, newCmd := range map[string]func(*Factory, func(*DispatchOptions) error) *cobra.Command{
		"worker-dispatch": NewCmdWorkerDispatch, "team dispatch": NewCmdTeamDispatch,
	} {
		t.Run(name, func(t *testing.T) {
			var got *DispatchOptions
			runF := func(o *DispatchOptions) error { got = o; return nil }
			f := testFactory(nil)
			if err := parse(t, newCmd(f, runF), "--jobs-file", "j.json", "--dispatch-kind", "reverify-r2", "--run-manifest", "m.json", "--json"); err != nil {
				t.Fatal(err)
			}
			if got.JobsFile != "j.json" || got.Kind != "reverify-r2" || !got.JSON || got.Run.ProjectRoot != "." || got.Run.RunManifest != "m.json" || got.Ctx == nil {
				t.Fatalf("options %+v", got)
			}
			for _, c := range []struct {
				args []string
				want string
			}{
				{nil, "--jobs-file: is required; pass the jobs file written by `okstra agent-prompt jobs`"},
				{[]string{"--jobs-file", "j", "--dispatch-kind", "reverify"}, `--dispatch-kind "reverify": choose initial, reverify-r<N>, critic, report-writer or translator`},
				{[]string{"--jobs-file", "j", "--dispatch-kind", "bogus"}, `--dispatch-kind "bogus": choose initial, reverify-r<N>, critic, report-writer or translator`},
			} {
				got = nil
				if err := parse(t, newCmd(f, runF), c.args...); !isUsage(err, c.want) || got != nil {
					t.Errorf("%q: %v, want usage error %q", c.args, err, c.want)
				}
			}
		})
	}
}

func TestFlagsTeam(t *testing.T) {
	var aw *AwaitOptions
	if err := parse(t, NewCmdTeamAwait(testFactory(nil), func(o *AwaitOptions) error { aw = o; return nil }), "--timeout", "90s", "--json"); err != nil {
		t.Fatal(err)
	}
	if aw.Timeout != 90*time.Second || !aw.JSON {
		t.Fatalf("await options %+v", aw)
	}
	if err := parse(t, NewCmdTeamAwait(testFactory(nil), nil), "--timeout", "soon"); !isUsage(err, `--timeout "soon": time: invalid duration "soon"`) {
		t.Fatalf("await --timeout soon: %v", err)
	}
	var p *PanesOptions
	capture := func(o *PanesOptions) error { p = o; return nil }
	if err := parse(t, NewCmdTeamReclaim(testFactory(nil), capture), "--gate", "--dry-run"); err != nil || !p.Gate || !p.DryRun || p.JSON {
		t.Fatalf("reclaim options %+v (%v)", p, err)
	}
	if err := parse(t, NewCmdTeamTeardown(testFactory(nil), capture), "--dry-run", "--json"); err != nil || p.Gate || !p.DryRun || !p.JSON {
		t.Fatalf("teardown options %+v (%v)", p, err)
	}
	if err := parse(t, NewCmdTeamTeardown(testFactory(nil), capture), "--gate"); !isUsage(err, "unknown flag: --gate") {
		t.Fatalf("teardown --gate: %v", err)
	}
}

func TestFlagsLivenessAndTail(t *testing.T) {
	var l *LivenessOptions
	capture := func(o *LivenessOptions) error { l = o; return nil }
	if err := parse(t, NewCmdWorkerLiveness(testFactory(nil), capture), "--dispatch-id", "dispatch-002", "--wait", "--timeout", "1m", "--team-state", "ts.json"); err != nil {
		t.Fatal(err)
	}
	if l.DispatchID != "dispatch-002" || !l.Wait || l.Timeout != time.Minute || l.TeamState != "ts.json" {
		t.Fatalf("options %+v", l)
	}
	l = nil
	if err := parse(t, NewCmdWorkerLiveness(testFactory(nil), capture), "--wait"); !isUsage(err, "--dispatch-id is required") || l != nil {
		t.Fatalf("no --dispatch-id: %v", err)
	}
	var tl *TailOptions
	if err := parse(t, NewCmdWorkerTail(testFactory(nil), func(o *TailOptions) error { tl = o; return nil }), "--pid", "42", "w.log"); err != nil || tl.PID != 42 || tl.Log != "w.log" {
		t.Fatalf("tail options %+v (%v)", tl, err)
	}
	if err := parse(t, NewCmdWorkerTail(testFactory(nil), nil), "a", "b"); !isUsage(err, "worker tail takes one log file") {
		t.Fatalf("tail a b: %v", err)
	}
	if err := parse(t, NewCmdWorkerTail(testFactory(nil), nil), "log"); !isUsage(err, "--pid is required: the worker process whose exit ends the tail") {
		t.Fatalf("tail without --pid: %v", err)
	}
}

// TestFlagsPassThrough: worker exec and worker sim hand every argument,
// flags included, to the wrapper unparsed, and handle their own signals.
func TestFlagsPassThrough(t *testing.T) {
	for _, newCmd := range []func(*Factory, func(*PassThroughOptions) error) *cobra.Command{NewCmdWorkerExec, NewCmdWorkerSim} {
		var got *PassThroughOptions
		cmd := newCmd(testFactory(nil), func(o *PassThroughOptions) error { got = o; return nil })
		args := []string{"codex", ".", "gpt", "p.md", "--presentation", "bogus", "--help"}
		if err := parse(t, cmd, args...); err != nil || !slices.Equal(got.Args, args) {
			t.Fatalf("%s: %v, args %v", cmd.Name(), err, got)
		}
		if cmd.Annotations[annotationOwnSignals] == "" {
			t.Fatalf("%s does not own its signals", cmd.Name())
		}
	}
}

func TestFlagsScreenCommands(t *testing.T) {
	f := testFactory(map[string]string{"SHELL": "/bin/zsh", "COCKPIT_PREFIX": "ctrl+a"})
	var o *OpenOptions
	capture := func(x *OpenOptions) error { o = x; return nil }
	if err := parse(t, NewCmdOpen(f, capture), "--run-manifest", "m.json"); err != nil || !slices.Equal(o.Lead, []string{"/bin/zsh"}) || o.Prefix != "ctrl+a" {
		t.Fatalf("open: %+v (%v)", o, err)
	}
	if err := parse(t, NewCmdOpen(f, capture), "--lead", "--", "claude", "--model", "x"); err != nil || !slices.Equal(o.Lead, []string{"claude", "--model", "x"}) {
		t.Fatalf("open --lead: %+v (%v)", o, err)
	}
	if err := parse(t, NewCmdOpen(f, capture), "claude"); !isUsage(err, `unexpected argument "claude"; put the lead command after --lead --`) {
		t.Fatalf("open claude: %v", err)
	}
	var s *ServeOptions
	if err := parse(t, NewCmdServe(f, func(x *ServeOptions) error { s = x; return nil }), "--json", "--", "lead", "-x"); err != nil || !s.JSON || !slices.Equal(s.Lead, []string{"lead", "-x"}) {
		t.Fatalf("serve: %+v (%v)", s, err)
	}
	var d *DemoOptions
	captureDemo := func(x *DemoOptions) error { d = x; return nil }
	if err := parse(t, NewCmdDemo(f, captureDemo), "--backend", "cli-wrapper", "--keep"); err != nil || d.Backend != state.BackendCLIWrapper || !d.Keep || !d.Headless {
		t.Fatalf("demo: %+v (%v); a demo whose stdout is no terminal is headless", d, err)
	}
	d = nil
	if err := parse(t, NewCmdDemo(f, captureDemo), "--backend", "screen"); !isUsage(err, `--backend "screen": choose cmux-pane or cli-wrapper`) || d != nil {
		t.Fatalf("demo --backend screen: %v", err)
	}
	var r *ReplayOptions
	if err := parse(t, NewCmdReplay(f, func(x *ReplayOptions) error { r = x; return nil }), "w.log", "--size", "80X24", "--ansi", "--stats"); err != nil || r.Cols != 80 || r.Rows != 24 || !r.ANSI || !r.Stats || r.File != "w.log" {
		t.Fatalf("replay: %+v (%v)", r, err)
	}
	for _, size := range []string{"80", "1x24", "80x0", "3000x24", "axb"} {
		if err := parse(t, NewCmdReplay(f, nil), "w.log", "--size", size); !isUsage(err, `--size "`+size+`" must be COLSxROWS, e.g. 200x50`) {
			t.Errorf("replay --size %s: %v", size, err)
		}
	}
}

func TestFlagsGate(t *testing.T) {
	var g *GateOptions
	capture := func(o *GateOptions) error { g = o; return nil }
	if err := parse(t, NewCmdGateAsk(testFactory(nil), capture), "--ledger", "l.json", "--clarification-id", "C-003", "--report", "r.md"); err != nil ||
		g.Ledger != "l.json" || g.ID != "C-003" || g.Report != "r.md" {
		t.Fatalf("gate ask: %+v (%v)", g, err)
	}
	g = nil
	if err := parse(t, NewCmdGateAsk(testFactory(nil), capture), "--ledger", "l.json"); !isUsage(err, "--clarification-id is required") || g != nil {
		t.Fatalf("gate ask without an id: %v", err)
	}
	if err := parse(t, NewCmdGateReportAuthoring(testFactory(nil), capture), "--reason-hint", "the writer failed"); err != nil || g.ReasonHint != "the writer failed" {
		t.Fatalf("gate report-authoring: %+v (%v)", g, err)
	}
	if err := parse(t, NewCmdGateReportAuthoring(testFactory(nil), capture), "--clarification-id", "C-1"); !isUsage(err, "unknown flag: --clarification-id") {
		t.Fatalf("gate report-authoring --clarification-id: %v", err)
	}
}

// TestFlagsApproval: the approval commands' flags land in their options,
// --project-root defaults like every command's, required flags and
// enumerated values are refused before anything runs.
func TestFlagsApproval(t *testing.T) {
	f := testFactory(nil)
	var op *ApprovalOpenOptions
	if err := parse(t, NewCmdApprovalOpen(f, func(o *ApprovalOpenOptions) error { op = o; return nil }),
		"--ledger", "l.json", "--clarification-id", "C-003", "--statement", "s", "--expected-form", "e", "--recommended-disposition", "accept-risk",
		"--option", "{}", "--option", "[]", "--options-file", "o.json", "--supersedes", "C-001", "--task-key", "k", "--json"); err != nil {
		t.Fatal(err)
	}
	if op.ProjectRoot != "." || op.Ledger != "l.json" || op.RecommendedDisposition != "accept-risk" || !slices.Equal(op.Options, []string{"{}", "[]"}) ||
		op.OptionsFile != "o.json" || op.Supersedes != "C-001" || op.TaskKey != "k" || !op.JSON {
		t.Fatalf("open options %+v", op)
	}
	if err := parse(t, NewCmdApprovalOpen(testFactory(map[string]string{envProjectRoot: "/proj"}), func(o *ApprovalOpenOptions) error { op = o; return nil }),
		"--ledger", "l", "--clarification-id", "C", "--statement", "s", "--expected-form", "e"); err != nil || op.ProjectRoot != "/proj" {
		t.Fatalf("open takes $%s as its project root: %+v (%v)", envProjectRoot, op, err)
	}
	base := []string{"--ledger", "l", "--clarification-id", "C", "--statement", "s", "--expected-form", "e"}
	if err := parse(t, NewCmdApprovalOpen(f, nil), append(base, "--recommended-disposition", "maybe")...); !isUsage(err, `--recommended-disposition "maybe": choose select, accept-risk, request-revision or reject`) {
		t.Fatalf("open --recommended-disposition maybe: %v", err)
	}
	var rs *ApprovalResolveOptions
	captureResolve := func(o *ApprovalResolveOptions) error { rs = o; return nil }
	if err := parse(t, NewCmdApprovalResolve(f, captureResolve), "--ledger", "l", "--clarification-id", "C", "--disposition", "reject", "--user-text", "no", "--user-response-ref", "s.md"); err != nil ||
		rs.Disposition != "reject" || rs.UserText != "no" || rs.UserResponseRef != "s.md" {
		t.Fatalf("resolve options %+v (%v)", rs, err)
	}
	rs = nil
	if err := parse(t, NewCmdApprovalResolve(f, captureResolve), "--ledger", "l", "--clarification-id", "C", "--disposition", "approve"); !isUsage(err, `--disposition "approve": choose select, accept-risk, request-revision or reject`) || rs != nil {
		t.Fatalf("resolve --disposition approve: %v", err)
	}
	var on *ApprovalOptionOptions
	if err := parse(t, NewCmdApprovalOption(f, func(o *ApprovalOptionOptions) error { on = o; return nil }), "--ledger", "l", "--clarification-id", "C", "--replace", "--option", "{}"); err != nil || !on.Replace || len(on.Options) != 1 {
		t.Fatalf("option options %+v (%v)", on, err)
	}
	var cr *ApprovalCarryOptions
	if err := parse(t, NewCmdApprovalCarry(f, func(o *ApprovalCarryOptions) error { cr = o; return nil }), "--ledger", "l", "--from-responses", "d", "--clarification-id", "C-1", "--clarification-id", "C-2"); err != nil || !slices.Equal(cr.IDs, []string{"C-1", "C-2"}) {
		t.Fatalf("carry options %+v (%v)", cr, err)
	}
	var w *UserResponseWriteOptions
	captureWrite := func(o *UserResponseWriteOptions) error { w = o; return nil }
	if err := parse(t, NewCmdUserResponseWrite(f, captureWrite), "--report", "r.md", "--answers", "[]", "--report-authoring", `{"status":"approved","reason":"r"}`); err != nil || w.Report != "r.md" || w.InLead {
		t.Fatalf("write options %+v (%v)", w, err)
	}
	w = nil
	inLead := testFactory(map[string]string{envSocket: "/tmp/c.sock"})
	if err := parse(t, NewCmdUserResponseWrite(inLead, captureWrite), "--report", "r.md", "--report-authoring", `{}`); err == nil || !strings.HasPrefix(err.Error(), "--report-authoring is the user's to grant") || w != nil {
		t.Fatalf("write --report-authoring in a lead pane: %v", err)
	}
	var sh *UserResponseShowOptions
	if err := parse(t, NewCmdUserResponseShow(f, func(o *UserResponseShowOptions) error { sh = o; return nil }), "--report", "r.md", "--ledger", "l.json", "--json"); err != nil || sh.Ledger != "l.json" || !sh.JSON {
		t.Fatalf("show options %+v (%v)", sh, err)
	}
	var wz *WizardOptions
	if err := parse(t, NewCmdWizard(f, func(o *WizardOptions) error { wz = o; return nil }), "--lang", "ko_KR.UTF-8", "--answers", "a.json"); err != nil || wz.Lang != "ko_KR.UTF-8" || wz.AnswersFile != "a.json" || wz.ProjectRoot != "." {
		t.Fatalf("wizard options %+v (%v)", wz, err)
	}
}

// TestOneProjectRootDefault: every command that takes --project-root has
// the same default, "." or $COCKPIT_PROJECT_ROOT.
func TestOneProjectRootDefault(t *testing.T) {
	for _, env := range []map[string]string{nil, {envProjectRoot: "/srv/p"}} {
		want := "."
		if env != nil {
			want = "/srv/p"
		}
		n := 0
		var walk func(c *cobra.Command)
		walk = func(c *cobra.Command) {
			for _, sub := range c.Commands() {
				walk(sub)
			}
			if fl := c.Flags().Lookup("project-root"); fl != nil {
				n++
				// The value before parsing is the default; help says it
				// once, in the usage (DefValue is cleared for that).
				if fl.Value.String() != want || fl.DefValue != "" || !strings.HasSuffix(fl.Usage, "(default $COCKPIT_PROJECT_ROOT or .)") {
					t.Errorf("%s --project-root defaults to %q (DefValue %q, %q), want %q", c.CommandPath(), fl.Value.String(), fl.DefValue, fl.Usage, want)
				}
			}
		}
		walk(newRootCmd(testFactory(env)))
		if n < 19 {
			t.Fatalf("only %d commands take --project-root", n)
		}
	}
}

// TestStreamsDecideTerminalsOnce: buffers are never terminals; the
// streams answer from what they found when made.
func TestStreamsDecideTerminalsOnce(t *testing.T) {
	s := newIOStreams(&bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{})
	if s.IsStdinTTY() || s.IsStdoutTTY() {
		t.Fatal("a buffer reads as a terminal")
	}
}

// TestTopLevelNames: the names Main looks a command up by are the names
// and aliases of the command each entry makes, and a call by any of them
// builds the tree with that command alone.
func TestTopLevelNames(t *testing.T) {
	f := testFactory(nil)
	for _, c := range topLevel {
		cmd := c.make(f)
		if want := append([]string{cmd.Name()}, cmd.Aliases...); !slices.Equal(c.names, want) {
			t.Errorf("topLevel lists %v for the command called %v", c.names, want)
		}
		for _, n := range c.names {
			root := newRootCmdFor(f, []string{n, "--help"})
			if subs := root.Commands(); len(subs) != 1 || subs[0].Name() != cmd.Name() {
				t.Errorf("%s: the tree holds %d commands", n, len(subs))
			}
		}
	}
	if n := len(newRootCmdFor(f, []string{"bogus"}).Commands()); n != len(topLevel)+1 {
		t.Errorf("an unknown name builds %d commands, want every one and completion", n)
	}
}

// TestFlagsEngineTarget: attach and stop take the engine as a NAME (or
// pid) argument or -t, as tmux attach -t; --socket and the run's flags
// still work; the verb shapes the messages.
func TestFlagsEngineTarget(t *testing.T) {
	var a *AttachOptions
	if err := parse(t, NewCmdAttach(testFactory(nil), func(o *AttachOptions) error { a = o; return nil }), "demo-1-001", "--read-only"); err != nil || a.Target.Name != "demo-1-001" || !a.ReadOnly || a.Target.verb != "attach" {
		t.Fatalf("attach NAME: %+v (%v)", a, err)
	}
	if err := parse(t, NewCmdAttach(testFactory(nil), func(o *AttachOptions) error { a = o; return nil }), "-t", "4242"); err != nil || a.Target.Name != "4242" {
		t.Fatalf("attach -t: %+v (%v)", a, err)
	}
	var s *StopOptions
	if err := parse(t, NewCmdStop(testFactory(nil), func(o *StopOptions) error { s = o; return nil }), "--socket", "/s.sock", "--json"); err != nil || s.Target.Socket != "/s.sock" || s.Target.Name != "" || !s.JSON || s.Target.verb != "stop" {
		t.Fatalf("stop --socket: %+v (%v)", s, err)
	}
	if err := parse(t, NewCmdStop(testFactory(map[string]string{envRunManifest: "m.json"}), func(o *StopOptions) error { s = o; return nil })); err != nil || s.Target.Run.RunManifest != "m.json" {
		t.Fatalf("stop in a lead pane: %+v (%v)", s, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"a", "b"}, `unexpected argument "b"; stop takes one engine name`},
		{[]string{"a", "-t", "b"}, `the engine is named twice ("a" and -t "b"); give one`},
		{[]string{"-t", "a", "--socket", "/s"}, `an engine name and --socket both say which engine; give one`},
	} {
		s = nil
		if err := parse(t, NewCmdStop(testFactory(nil), func(o *StopOptions) error { s = o; return nil }), c.args...); !isUsage(err, c.want) || s != nil {
			t.Errorf("stop %v: %v", c.args, err)
		}
	}
}

// TestFlagsEnumerated: an enumerated flag refuses a value outside its set
// as it is parsed (a usage error, one line), accepts another spelling where
// the flag allows one, and names its values in help.
func TestFlagsEnumerated(t *testing.T) {
	var w *WizardOptions
	capture := func(o *WizardOptions) error { w = o; return nil }
	for _, lang := range []string{"ko", "en", "ko_KR.UTF-8", "en-US"} {
		if err := parse(t, NewCmdWizard(testFactory(nil), capture), "--lang", lang); err != nil || w.Lang != lang {
			t.Errorf("wizard --lang %s: %+v (%v)", lang, w, err)
		}
	}
	w = nil
	if err := parse(t, NewCmdWizard(testFactory(nil), capture), "--lang", "fr"); !isUsage(err, `--lang "fr": choose ko or en`) || w != nil {
		t.Errorf("wizard --lang fr: %v", err)
	}
	var d *DemoOptions
	if err := parse(t, NewCmdDemo(testFactory(nil), func(o *DemoOptions) error { d = o; return nil }), "--backend", "cockpit-pane"); err != nil || d.Backend != state.BackendCockpitPane {
		t.Errorf("demo --backend cockpit-pane (the older name): %+v (%v)", d, err)
	}
	if err := parse(t, NewCmdDemo(testFactory(nil), func(o *DemoOptions) error { d = o; return nil })); err != nil || d.Backend != state.BackendCmuxPane || d.Grace != time.Minute || d.SlowWork != time.Minute {
		t.Errorf("demo defaults: %+v (%v)", d, err)
	}
	if err := parse(t, NewCmdDemo(testFactory(nil), func(o *DemoOptions) error { d = o; return nil }), "--grace", "5s", "--slow-work", "2s"); err != nil || d.Grace != 5*time.Second || d.SlowWork != 2*time.Second {
		t.Errorf("demo --grace 5s --slow-work 2s: %+v (%v)", d, err)
	}
	if err := parse(t, NewCmdDemo(testFactory(nil), nil), "--grace", "-1s"); !isUsage(err, "--grace -1s: give a positive duration such as 1m or 30s") {
		t.Errorf("demo --grace -1s: %v", err)
	}
	help := flagUsages(NewCmdWizard(testFactory(nil), nil).Flags())
	if !strings.Contains(help, "--lang ko|en ") || !strings.Contains(help, "--answers file ") || !strings.Contains(help, "--project-root dir ") {
		t.Errorf("wizard's flag help:\n%s", help)
	}
}

// TestFlagValueNames: no flag of any command shows pflag's type name
// (string, stringArray, int) for its value in help; each has a name that
// says what to pass (--jobs-file file, --run-manifest path, --socket path).
func TestFlagValueNames(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, line := range strings.Split(flagUsages(c.LocalFlags()), "\n") {
			f := strings.Fields(line)
			for i, w := range f {
				if strings.HasPrefix(w, "--") && i+1 < len(f) && slices.Contains([]string{"string", "strings", "stringArray", "stringSlice", "int"}, f[i+1]) {
					t.Errorf("%s: %s", c.CommandPath(), strings.TrimSpace(line))
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(testFactory(nil)))
	for _, c := range []struct {
		cmd  *cobra.Command
		want string
	}{
		{NewCmdStop(testFactory(nil), nil), "--socket path "},
		{NewCmdStop(testFactory(nil), nil), "-t, --target name "},
		{NewCmdWorkerDispatch(testFactory(nil), nil), "--jobs-file file "},
		{NewCmdDemo(testFactory(nil), nil), "--grace duration "},
		{NewCmdDemo(testFactory(nil), nil), "--backend cmux-pane|cli-wrapper "},
	} {
		if help := flagUsages(c.cmd.LocalFlags()); !strings.Contains(help, c.want) {
			t.Errorf("%s help has no %q:\n%s", c.cmd.Name(), c.want, help)
		}
	}
}

// TestVersionCommand: `cockpit version` prints what --version does, and
// {"name","version"} with --json.
func TestVersionCommand(t *testing.T) {
	var out, errw strings.Builder
	if code := Main([]string{"version"}, strings.NewReader(""), &out, &errw); code != 0 || out.String() != "cockpit "+version()+"\n" || errw.Len() != 0 {
		t.Fatalf("cockpit version: exit %d, stdout %q, stderr %q", code, out.String(), errw.String())
	}
	out.Reset()
	if code := Main([]string{"version", "--json"}, strings.NewReader(""), &out, &errw); code != 0 || out.String() != "{\n  \"name\": \"cockpit\",\n  \"version\": \""+version()+"\"\n}\n" {
		t.Fatalf("cockpit version --json: exit %d, stdout %q", code, out.String())
	}
}
