package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/internal/fixture"
	"github.com/okstra/cockpit/state"
)

// groupsOf lists every command group of the tree (a command with
// subcommands and nothing to run itself), the root excluded.
func groupsOf(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, sub := range c.Commands() {
		if sub.HasSubCommands() && !sub.Runnable() {
			out = append(out, sub)
		}
		out = append(out, groupsOf(sub)...)
	}
	return out
}

// TestEveryGroupRefusesAnUnknownSubcommand walks the command tree: every
// group (completion included) answers an unknown subcommand with cobra's
// one line and exit 2, and prints its help with exit 0 when bare.
func TestEveryGroupRefusesAnUnknownSubcommand(t *testing.T) {
	root := newRootCmd(testFactory(nil))
	root.InitDefaultCompletionCmd()
	groups := groupsOf(root)
	var names []string
	for _, g := range groups {
		names = append(names, g.CommandPath())
	}
	for _, want := range []string{"cockpit team", "cockpit gate", "cockpit approval-decision", "cockpit user-response", "cockpit worker", "cockpit lead-progress", "cockpit completion"} {
		if !slices.Contains(names, want) {
			t.Fatalf("the walk missed the group %q (found %v)", want, names)
		}
	}
	for _, g := range groups {
		path := strings.Fields(g.CommandPath())[1:]
		var out, errb bytes.Buffer
		code := Main(append(path, "zzz", "--flag-of-zzz", "v"), nil, &out, &errb)
		// One line, with a did-you-mean of the group's own names at most.
		want := g.CommandPath() + `: unknown command "zzz" for "` + g.CommandPath() + `"`
		if line := errb.String(); code != exitUsage || !strings.HasPrefix(line, want) || strings.Count(line, "\n") != 1 || out.Len() != 0 {
			t.Errorf("%s zzz: exit %d, stderr %q, stdout %q; want exit 2 and %q", g.CommandPath(), code, errb.String(), out.String(), want)
		}
		out.Reset()
		errb.Reset()
		code = Main(path, nil, &out, &errb)
		if code != exitOK || errb.Len() != 0 || !strings.Contains(out.String(), "Available Commands:") {
			t.Errorf("bare %s: exit %d, stderr %q, stdout %q; want its help and exit 0", g.CommandPath(), code, errb.String(), out.String())
		}
	}
}

// TestUsageErrors runs the real binary: unknown subcommands of every group
// and of the root, unknown flags of a group, and every command with a
// required flag called without it. Each prints exactly one line on stderr,
// nothing on stdout, exits 2 and changes no file. Under -short each case
// runs Main in this process, in root with none of the cockpit's variables
// set (the same checks, without the 50 processes); the full tier runs
// the binary.
func TestUsageErrors(t *testing.T) {
	root := fixture.Copy(t)
	run := func(args ...string) []string { return runArgs(root, args...) }
	plain := func(args ...string) []string { return args }
	const noManifest = ": --run-manifest is required (or set $COCKPIT_RUN_MANIFEST)"
	const noJobs = ": --jobs-file: is required; pass the jobs file written by `okstra agent-prompt jobs`"
	const ledger = "state/approval-decisions.json"
	cases := []struct {
		args []string
		want string
	}{
		// Unknown subcommands, with or without flags after them.
		{plain("team", "create"), `cockpit team: unknown command "create" for "cockpit team"`},
		{plain("team", "create", "--jobs-file", "x.json"), `cockpit team: unknown command "create" for "cockpit team"`},
		{plain("gate", "bogus"), `cockpit gate: unknown command "bogus" for "cockpit gate"`},
		{plain("approval-decision", "close"), `cockpit approval-decision: unknown command "close" for "cockpit approval-decision"`},
		{plain("user-response", "nope"), `cockpit user-response: unknown command "nope" for "cockpit user-response"`},
		{plain("worker", "nope"), `cockpit worker: unknown command "nope" for "cockpit worker"`},
		{plain("lead-progress", "add"), `cockpit lead-progress: unknown command "add" for "cockpit lead-progress"`},
		{plain("completion", "tcsh"), `cockpit completion: unknown command "tcsh" for "cockpit completion"`},
		{plain("bogus"), `cockpit: unknown command "bogus" for "cockpit"`},
		{plain("tem"), `cockpit: unknown command "tem" for "cockpit"; did you mean team?`}, // a near miss: still one line
		{plain("atach"), `cockpit: unknown command "atach" for "cockpit"; did you mean attach?`},
		{plain("stpo"), `cockpit: unknown command "stpo" for "cockpit"; did you mean stop?`},
		{plain("team", "dispach"), `cockpit team: unknown command "dispach" for "cockpit team"; did you mean dispatch?`},
		{plain("attach", "a", "b"), `cockpit attach: unexpected argument "b"; cockpit attach takes one engine name`},
		{plain("stop", "x", "-t", "y"), `cockpit stop: the engine is named twice ("x" and -t "y"); give one`},
		{plain("stop", "x", "--socket", "/s"), `cockpit stop: an engine name and --socket both say which engine; give one`},
		{plain("wizard", "--lang", "fr"), `cockpit wizard: --lang "fr": choose ko or en`},
		{plain("demo", "--grace", "0s"), `cockpit demo: --grace 0s: give a positive duration such as 1m or 30s`},
		{plain("demo", "--grace", "soon"), `cockpit demo: --grace "soon": time: invalid duration "soon"`},
		{plain("version", "x"), `cockpit version: unexpected argument "x"; cockpit version takes flags only`},
		{plain("team", "--bogus"), "cockpit team: unknown flag: --bogus"},
		{plain("--bogus"), "cockpit: unknown flag: --bogus"},
		// Missing required flags.
		{run("team", "dispatch"), "cockpit team dispatch" + noJobs},
		{run("worker-dispatch"), "cockpit worker-dispatch" + noJobs},
		{run("codex-dispatch"), "cockpit codex-dispatch" + noJobs},
		{plain("team", "dispatch", "--jobs-file", fixture.JobsInitial, "--project-root", root), "cockpit team dispatch" + noManifest},
		{plain("team", "await", "--project-root", root), "cockpit team await" + noManifest},
		{plain("team", "reclaim", "--project-root", root), "cockpit team reclaim" + noManifest},
		{plain("team", "teardown", "--project-root", root), "cockpit team teardown" + noManifest},
		{run("worker-liveness"), "cockpit worker-liveness: --dispatch-id is required"},
		{plain("worker-liveness", "--dispatch-id", "dispatch-001", "--project-root", root), "cockpit worker-liveness" + noManifest},
		{run("lead-progress", "append"), "cockpit lead-progress append: --phase is required"},
		{plain("lead-progress", "append", "--phase", "complete", "--project-root", root), "cockpit lead-progress append" + noManifest},
		// Issue 17.17: every missing flag at once.
		{plain("approval-decision", "open", "--project-root", root), "cockpit approval-decision open: --ledger, --clarification-id, --statement and --expected-form: are required (--ledger: pass the approval-decision ledger's path (or --run-manifest, whose approvalDecisionsPath it defaults to); --clarification-id: give the row's id, C-NNN; --statement: state the question the user must decide; --expected-form: give the shape of the answer (one of the options, a file path, a number, a date))"},
		{plain("approval-decision", "open", "--project-root", root, "--ledger", ledger), "cockpit approval-decision open: --clarification-id, --statement and --expected-form: are required (--clarification-id: give the row's id, C-NNN; --statement: state the question the user must decide; --expected-form: give the shape of the answer (one of the options, a file path, a number, a date))"},
		{plain("approval-decision", "open", "--project-root", root, "--ledger", ledger, "--clarification-id", "C-001"), "cockpit approval-decision open: --statement and --expected-form: are required (--statement: state the question the user must decide; --expected-form: give the shape of the answer (one of the options, a file path, a number, a date))"},
		{plain("approval-decision", "open", "--project-root", root, "--ledger", ledger, "--clarification-id", "C-001", "--statement", "s"), "cockpit approval-decision open: --expected-form: is required; give the shape of the answer (one of the options, a file path, a number, a date)"},
		{plain("approval-decision", "option", "--project-root", root), "cockpit approval-decision option: --ledger: is required; pass the approval-decision ledger's path"},
		{plain("approval-decision", "option", "--project-root", root, "--ledger", ledger), "cockpit approval-decision option: --clarification-id: is required; name the open row the options belong to"},
		{plain("approval-decision", "carry", "--project-root", root), "cockpit approval-decision carry: --ledger: is required"},
		{plain("approval-decision", "carry", "--project-root", root, "--ledger", ledger), "cockpit approval-decision carry: --from-responses: is required"},
		{plain("approval-decision", "resolve", "--project-root", root), "cockpit approval-decision resolve: --ledger: is required; pass the approval-decision ledger's path"},
		{plain("approval-decision", "resolve", "--project-root", root, "--ledger", ledger), "cockpit approval-decision resolve: --clarification-id: is required; give the row's id, C-NNN"},
		{plain("approval-decision", "resolve", "--project-root", root, "--ledger", ledger, "--clarification-id", "C-001"), "cockpit approval-decision resolve: --disposition: is required; give select, accept-risk, request-revision or reject"},
		{plain("user-response", "write", "--project-root", root), "cockpit user-response write: --report: is required"},
		{plain("user-response", "show", "--project-root", root), "cockpit user-response show: --report: is required"},
		{run("gate", "ask"), "cockpit gate ask: --clarification-id is required"},
		{plain("gate", "ask", "--clarification-id", "C-001", "--project-root", root), "cockpit gate ask" + noManifest},
		{plain("gate", "report-authoring", "--project-root", root), "cockpit gate report-authoring" + noManifest},
		{plain("events", "--project-root", root), "cockpit events" + noManifest},
		{plain("serve", "--project-root", root), "cockpit serve" + noManifest},
		{plain("open", "--project-root", root), "cockpit open" + noManifest},
		{plain("replay"), "cockpit replay: replay takes exactly one file, got 0 arguments"},
		// Enumerated flags: one line listing the allowed values.
		{plain("approval-decision", "resolve", "--project-root", root, "--ledger", ledger, "--clarification-id", "C-001", "--disposition", "approve"), `cockpit approval-decision resolve: --disposition "approve": choose select, accept-risk, request-revision or reject`},
		{plain("approval-decision", "open", "--project-root", root, "--ledger", ledger, "--clarification-id", "C-001", "--statement", "s", "--expected-form", "f", "--recommended-disposition", "maybe"), `cockpit approval-decision open: --recommended-disposition "maybe": choose select, accept-risk, request-revision or reject`},
		{run("worker-dispatch", "--jobs-file", fixture.JobsInitial, "--dispatch-kind", "reverify"), `cockpit worker-dispatch: --dispatch-kind "reverify": choose initial, reverify-r<N>, critic, report-writer or translator`},
		{run("team", "dispatch", "--jobs-file", fixture.JobsInitial, "--dispatch-kind", "final"), `cockpit team dispatch: --dispatch-kind "final": choose initial, reverify-r<N>, critic, report-writer or translator`},
		{plain("demo", "--backend", "screen"), `cockpit demo: --backend "screen": choose cmux-pane or cli-wrapper`},
		// --alerts: one line naming the flag, the variable and the choices.
		{plain("demo", "--alerts", "beep"), `cockpit demo: --alerts "beep" (or $COCKPIT_ALERTS): unknown alert "beep": use all, off, or a comma-separated list of gate, fail, batch, pane (what) and bell, osc (how); -name leaves one out`},
		{run("open", "--alerts", "gate,loud"), `cockpit open: --alerts "gate,loud" (or $COCKPIT_ALERTS): unknown alert "loud": use all, off, or a comma-separated list of gate, fail, batch, pane (what) and bell, osc (how); -name leaves one out`},
		{plain("attach", "--alerts", "-nope"), `cockpit attach: --alerts "-nope" (or $COCKPIT_ALERTS): unknown alert "-nope": use all, off, or a comma-separated list of gate, fail, batch, pane (what) and bell, osc (how); -name leaves one out`},
	}
	before := snapshotFiles(t, root)
	if testing.Short() {
		t.Chdir(root)
		withoutCockpitEnv(t)
	}
	t.Run("cases", func(t *testing.T) { // returns when every parallel case has
		for _, c := range cases {
			t.Run(strings.Join(c.args[:min(len(c.args), 3)], " "), func(t *testing.T) {
				var res result
				if testing.Short() {
					res = mainInProcess(c.args...)
				} else {
					t.Parallel() // each waits on a process of its own
					res = cockpit(t, root, nil, c.args...)
				}
				if res.code != 2 || res.stderr != c.want+"\n" || res.stdout != "" {
					t.Fatalf("cockpit %v:\nexit %d, stderr %q, stdout %q\nwant exit 2, stderr %q", c.args, res.code, res.stderr, res.stdout, c.want+"\n")
				}
			})
		}
	})
	if d := diffSnapshots(before, snapshotFiles(t, root)); len(d) > 0 {
		t.Fatalf("files changed: %v", d)
	}
}

// notHeadless are the commands that are not a lead's headless commands and
// take no --json: the screen, the demo, replay's screen dump, the worker
// wrapper and its helpers (a pane's program), and cobra's own.
var notHeadless = []string{
	"cockpit open", "cockpit attach", "cockpit engine", "cockpit demo", "cockpit demo lead", "cockpit replay",
	"cockpit worker exec", "cockpit worker sim", "cockpit worker tail",
	"cockpit help", "cockpit completion bash", "cockpit completion zsh", "cockpit completion fish", "cockpit completion powershell",
}

// TestEveryHeadlessCommandTakesJSON walks the command tree: every runnable
// command but the listed few declares the one shared --json switch.
func TestEveryHeadlessCommandTakesJSON(t *testing.T) {
	root := newRootCmd(testFactory(nil))
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	var walk func(c *cobra.Command)
	var seen []string
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() || slices.Contains(notHeadless, c.CommandPath()) {
			return
		}
		seen = append(seen, strings.TrimPrefix(c.CommandPath(), "cockpit "))
		f := c.Flags().Lookup("json")
		if f == nil || f.Value.Type() != "bool" || f.Usage != "print machine-readable JSON" {
			t.Errorf("%s has no shared --json switch (%+v)", c.CommandPath(), f)
		}
	}
	walk(root)
	slices.Sort(seen)
	want := []string{
		"approval-decision carry", "approval-decision open", "approval-decision option", "approval-decision resolve",
		"events", "gate ask", "gate report-authoring", "lead-progress append", "logs", "ls", "serve", "stop",
		"team await", "team dispatch", "team reclaim", "team teardown",
		"user-response show", "user-response write", "version", "wizard", "worker-dispatch", "worker-liveness",
	}
	if !slices.Equal(seen, want) {
		t.Fatalf("headless commands %v, want %v", seen, want)
	}
}

// TestJSONOnLeadProgressAndUserResponse: lead-progress append --json prints
// what it prints without (it always prints JSON), and user-response write
// --json prints the summary of what it wrote.
func TestJSONOnLeadProgressAndUserResponse(t *testing.T) {
	a, b := fixture.Copy(t), fixture.Copy(t)
	args := []string{"lead-progress", "append", "--phase", "phase-5-poll", "--field", "pending=1", "--field", "done=2"}
	plain := cockpit(t, a, nil, runArgs(a, args...)...)
	withJSON := cockpit(t, b, nil, runArgs(b, append(args, "--json")...)...)
	if plain.code != 0 || withJSON.code != 0 {
		t.Fatalf("lead-progress append: %d %q / --json: %d %q", plain.code, plain.stderr, withJSON.code, withJSON.stderr)
	}
	if want := `{"progressLine":"PROGRESS: phase-5-poll pending=1 done=2"}` + "\n"; plain.stdout != want || withJSON.stdout != want {
		t.Fatalf("lead-progress append printed %q, with --json %q; want %q", plain.stdout, withJSON.stdout, want)
	}
	if la, lb := ledgerLines(t, a), ledgerLines(t, b); !slices.Equal(la, lb) || len(la) != 1 {
		t.Fatalf("ledgers differ: %q vs %q", la, lb)
	}

	report := fixture.RunDir + "/reports/final-report-feature-analysis-002.md"
	for _, r := range []string{a, b} {
		os.MkdirAll(filepath.Join(r, fixture.RunDir, "reports"), 0o755)
		if err := os.WriteFile(filepath.Join(r, report), []byte("# report\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write := []string{"user-response", "write", "--report", report,
		"--answers", `[{"clarificationId":"C-003","answer":"A","disposition":"select"},{"id":"C-001","answer":"B","disposition":"reject"}]`,
		"--plan-decision", `{"status":"approved","implementationOption":"A","reason":"fine"}`}
	// In process, on one clock: the two sidecars' "Created At" must not
	// straddle a second.
	at := state.Now()
	defer func(now func() time.Time) { state.Now = now }(state.Now)
	state.Now = func() time.Time { return at }
	plain = mainInProcess(append(write, "--project-root", a)...)
	withJSON = mainInProcess(append(write, "--project-root", b, "--json")...)
	if plain.code != 0 || withJSON.code != 0 {
		t.Fatalf("user-response write: %d %q / --json: %d %q", plain.code, plain.stderr, withJSON.code, withJSON.stderr)
	}
	var p struct {
		Sidecar string `json:"sidecar"`
	}
	if err := json.Unmarshal([]byte(plain.stdout), &p); err != nil || p.Sidecar == "" {
		t.Fatalf("user-response write printed %q", plain.stdout)
	}
	if got := keysOf(t, json.RawMessage(withJSON.stdout)); !slices.Equal(got, []string{"clarificationIds", "planDecision", "report", "reportAuthoring", "sidecar"}) {
		t.Fatalf("user-response write --json members %v:\n%s", got, withJSON.stdout)
	}
	var j userResponseWriteOutput
	if err := json.Unmarshal([]byte(withJSON.stdout), &j); err != nil {
		t.Fatal(err)
	}
	sidecarA, _ := filepath.Rel(a, absIn(a, p.Sidecar))
	sidecarB, _ := filepath.Rel(b, absIn(b, j.Sidecar))
	if sidecarA != sidecarB || j.Report != report || !slices.Equal(j.ClarificationIDs, []string{"C-003", "C-001"}) || !j.PlanDecision || j.ReportAuthoring != "" {
		t.Fatalf("user-response write --json: %+v (the plain run wrote %s)", j, p.Sidecar)
	}
	da, errA := os.ReadFile(absIn(a, p.Sidecar))
	db, errB := os.ReadFile(absIn(b, j.Sidecar))
	if errA != nil || errB != nil {
		t.Fatalf("sidecars: %v, %v", errA, errB)
	}
	if !bytes.Equal(bytes.ReplaceAll(da, []byte(a), nil), bytes.ReplaceAll(db, []byte(b), nil)) {
		t.Fatalf("--json wrote a different sidecar:\n%s\n---\n%s", da, db)
	}
}

// mainInProcess runs Main in this process (a non-parallel test's
// business: it shares the process's globals).
func mainInProcess(args ...string) result {
	var out, errb bytes.Buffer
	code := Main(args, nil, &out, &errb)
	return result{out.String(), errb.String(), int(code)}
}

// withoutCockpitEnv unsets the cockpit's variables (COCKPIT_*) for the rest
// of t, as cockpitEnv leaves them out of a process's environment: Main run
// in this process reads what a developer's shell in a cockpit pane set.
// Not for a parallel test.
func withoutCockpitEnv(t *testing.T) {
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "COCKPIT_") {
			os.Unsetenv(k)
			t.Cleanup(func() { os.Setenv(k, v) })
		}
	}
}

// absIn makes a path printed by a command run in root absolute.
func absIn(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}
