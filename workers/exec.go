package workers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/state"
)

// WrapperName is what the wrapper records as the sidecar's "wrapper" and
// prefixes its error lines with.
const WrapperName = "cockpit worker exec"

// Exit statuses of the wrapper besides the CLI's own.
const (
	exitUsage         = 64  // usage, bad flag, unknown provider, role, invocation metadata
	exitProjectRoot   = 65  // project root missing or not a directory
	exitModel         = 66  // model execution value empty or unknown
	exitPrompt        = 67  // prompt missing, unreadable, outside the root, no Result Path
	exitWorktree      = 68  // worktree missing, not a directory, outside the root
	exitCantCreate    = 73  // log or sidecar could not be written
	exitTimeout       = 124 // idle timeout
	exitNotExecutable = 126 // the CLI exists but could not be started
	exitNotFound      = 127 // the CLI is not on PATH
)

// Environment the wrapper gives the CLI, and the one it reads itself.
const (
	EnvProjectRoot = "COCKPIT_PROJECT_ROOT"   // absolute project root
	EnvPromptPath  = "COCKPIT_PROMPT_PATH"    // absolute prompt path
	EnvResultPath  = "COCKPIT_RESULT_PATH"    // absolute Result Path
	EnvRole        = "COCKPIT_ROLE"           // canonical role, or "worker"
	EnvSessionID   = "COCKPIT_SESSION_ID"     // --session-id, when given
	EnvIdleTimeout = "COCKPIT_IDLE_TIMEOUT_S" // idle limit in seconds, 0 for none
	// EnvKillGrace (a Go duration, default 5s) is how long the wrapper waits
	// after SIGTERM/SIGHUP/SIGINT before it sends SIGKILL. Tests shorten it.
	EnvKillGrace = "COCKPIT_KILL_GRACE"
)

// DefaultKillGrace is the wait between the polite signal and SIGKILL.
const DefaultKillGrace = 5 * time.Second

// Presentations of the CLI's output.
const (
	PresentationLive  = "live"  // log and the wrapper's stdout
	PresentationQuiet = "quiet" // the log only
)

// execUsage is okstra-provider-exec.py's usage line (seed 004) with this
// program's name.
const execUsage = "usage: cockpit worker exec <provider> <project-root> <model-execution-value> <prompt-path> [worktree-path] [role] [idle-timeout-seconds] [--presentation live|quiet] [--session-id <uuid>] [--invocation-metadata path]"

// preflightError is a refusal before anything starts: one line and an exit
// status.
type preflightError struct {
	code int
	msg  string
}

func (e *preflightError) Error() string { return e.msg }

func refuse(code int, format string, args ...any) *preflightError {
	return &preflightError{code: code, msg: fmt.Sprintf(format, args...)}
}

// execArgs are the wrapper's parsed arguments; "" means not given.
type execArgs struct {
	provider, root, model, prompt, worktree, role, idle string
	presentation, sessionID, metadata                   string
}

// parseExecArgs splits flags (anywhere, as --flag value or --flag=value)
// from the positional arguments.
func parseExecArgs(args []string) (*execArgs, *preflightError) {
	a := &execArgs{}
	var pos []string
	seen := map[string]bool{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" || isNumber(arg[1:]) {
			pos = append(pos, arg)
			continue
		}
		name, val, hasVal := strings.Cut(arg, "=")
		var dst *string
		switch name {
		case "--presentation":
			dst = &a.presentation
		case "--session-id":
			dst = &a.sessionID
		case "--invocation-metadata":
			dst = &a.metadata
		default:
			return nil, refuse(exitUsage, "unknown flag %s; %s", name, execUsage)
		}
		if seen[name] {
			return nil, refuse(exitUsage, "flag %s is given twice", name)
		}
		seen[name] = true
		if !hasVal {
			if i+1 >= len(args) {
				return nil, refuse(exitUsage, "flag %s needs a value; %s", name, execUsage)
			}
			i++
			val = args[i]
		}
		if val == "" {
			return nil, refuse(exitUsage, "flag %s has an empty value", name)
		}
		*dst = val
	}
	if len(pos) < 4 || len(pos) > 7 {
		return nil, refuse(exitUsage, "expected 4 to 7 positional arguments, got %d; %s", len(pos), execUsage)
	}
	for len(pos) < 7 {
		pos = append(pos, "")
	}
	a.provider, a.root, a.model, a.prompt = pos[0], pos[1], pos[2], pos[3]
	a.worktree, a.role, a.idle = pos[4], pos[5], pos[6]
	switch a.presentation {
	case "":
		a.presentation = PresentationLive
	case PresentationLive, PresentationQuiet:
	default:
		return nil, refuse(exitUsage, "--presentation is %q; expected live or quiet", a.presentation)
	}
	return a, nil
}

// plan is a checked invocation: everything the run needs, resolved.
type plan struct {
	root         state.Root
	provider     *Provider
	model        string // the model execution value as given
	role         string // canonical, or "worker" when not given
	prompt       string // absolute
	result       string // absolute Result Path
	worktree     string // absolute, "" when not given
	idle         time.Duration
	presentation string
	sessionID    string // the dispatcher's, else one the wrapper issued
	promptText   string
	grace        time.Duration
	argv         []string
	v2           *v2Fields
	addDirs      []string // write-scope directories other than the root
	catalog      *Catalog
}

// v2Fields are the identity fields a v2 sidecar carries.
type v2Fields struct {
	participantRef, roleExecutionRef, executionLabel, dutyID, invocationRef string
	attempt                                                                 int
	writePolicyDigest                                                       string
	writeEnforcement                                                        json.RawMessage
}

// preflight checks the invocation before anything starts and returns the
// plan, or the refusal with its exit status.
func preflight(a *execArgs) (*plan, *preflightError) {
	p := &plan{presentation: a.presentation, sessionID: a.sessionID, grace: DefaultKillGrace, role: "worker"}
	if p.sessionID == "" {
		// Without one the CLI picks its own id and nothing downstream can
		// map that session back to this worker (seed 004).
		p.sessionID = NewSessionID()
	} else if !uuidRE.Get().MatchString(p.sessionID) {
		return nil, refuse(exitUsage, "--session-id is %q; expected a UUID such as 0b7c4c1e-8f0a-4d3e-9a51-2f6c7d8e9f01 (claude and gemini take only UUIDs)", p.sessionID)
	}
	if a.idle != "" {
		n, err := strconv.Atoi(a.idle)
		if err != nil || n < 0 {
			return nil, refuse(exitUsage, "idle-timeout-s is %q; expected a whole number of seconds (0 for no limit)", a.idle)
		}
		p.idle = time.Duration(n) * time.Second
	}
	if g := os.Getenv(EnvKillGrace); g != "" {
		d, err := time.ParseDuration(g)
		if err != nil || d < 0 {
			return nil, refuse(exitUsage, "%s is %q; expected a duration such as 5s", EnvKillGrace, g)
		}
		p.grace = d
	}

	if a.root == "" {
		return nil, refuse(exitProjectRoot, "project-root is empty; pass the project's root directory")
	}
	root, err := state.OpenRoot(a.root)
	if err != nil {
		return nil, refuse(exitProjectRoot, "project-root: %v", err)
	}
	p.root = root

	cat, err := LoadCatalog(root.Dir())
	if err != nil {
		return nil, refuse(exitUsage, "load provider catalog: %v", err)
	}
	p.catalog = cat
	if a.provider == "" {
		return nil, refuse(exitUsage, "%s", execUsage)
	}
	if p.provider, err = cat.Provider(a.provider); err != nil {
		return nil, refuse(exitUsage, "%v", err)
	}
	if a.role != "" {
		if p.role, err = state.NormalizeRole(a.role); err != nil {
			return nil, refuse(exitUsage, "role: %v", err)
		}
		if !p.provider.SupportsRole(p.role) {
			return nil, refuse(exitUsage, "provider %q does not support role %q (it runs: %s)", p.provider.ID, p.role, strings.Join(p.provider.Roles, ", "))
		}
	}

	if a.model == "" {
		return nil, refuse(exitModel, "model-execution-value is empty; pass the model the job names")
	}
	if err := cat.CheckModel(p.provider.ID, a.model); err != nil {
		return nil, refuse(exitModel, "model-execution-value: %v", err)
	}
	p.model = a.model

	if e := p.checkPrompt(a.prompt); e != nil {
		return nil, e
	}
	if a.worktree != "" {
		wt, err := resolveIn(root, a.worktree, "worktree")
		if err != nil {
			return nil, refuse(exitWorktree, "%v", err)
		}
		st, err := os.Stat(wt)
		if err != nil {
			return nil, refuse(exitWorktree, "worktree-path %s does not exist", a.worktree)
		}
		if !st.IsDir() {
			return nil, refuse(exitWorktree, "worktree-path %s is not a directory", a.worktree)
		}
		p.worktree = wt
	}

	if a.metadata != "" {
		var perr *preflightError
		if p.v2, perr = p.checkMetadata(a.metadata); perr != nil {
			return nil, perr
		}
	}

	p.argv, err = p.provider.Argv(Vars{
		Model:       p.model,
		ProjectRoot: root.Dir(),
		PromptPath:  p.prompt,
		Worktree:    p.worktree,
		ResultPath:  p.result,
		Role:        p.role,
		SessionID:   p.sessionID,
		Prompt:      p.promptText,
		AddDirs:     p.addDirs,
	})
	if err != nil {
		code := exitUsage
		if len(p.promptText) > MaxArgPrompt {
			code = exitPrompt
		}
		return nil, refuse(code, "%v", err)
	}
	if e := p.checkCLI(); e != nil {
		return nil, e
	}
	return p, nil
}

// checkPrompt resolves the prompt inside the root, reads it and finds its
// Result Path, which must resolve inside the root too.
func (p *plan) checkPrompt(raw string) *preflightError {
	if raw == "" {
		return refuse(exitPrompt, "prompt-path is empty; pass the prompt the job names")
	}
	abs, err := resolveIn(p.root, raw, "prompt-path")
	if err != nil {
		return refuse(exitPrompt, "%v", err)
	}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return refuse(exitPrompt, "prompt %s does not exist; materialize it first", raw)
	case err != nil:
		return refuse(exitPrompt, "prompt %s: %v", raw, err)
	case !st.Mode().IsRegular():
		return refuse(exitPrompt, "prompt %s is %s, not a regular file; materialize the prompt as a file", raw, fileKind(st.Mode()))
	}
	data, err := readRegular(abs)
	if err != nil {
		return refuse(exitPrompt, "prompt %s is unreadable: %v", raw, err)
	}
	rp := PromptResultPath(string(data))
	if rp == "" {
		return refuse(exitPrompt, "prompt %s has no %s line; the worker would not know where to write", raw, resultPathHeader)
	}
	res, err := p.root.Resolve(rp, "Result Path")
	if err != nil {
		return refuse(exitPrompt, "prompt %s: %v", raw, err)
	}
	// The log and the status sidecar go beside the prompt: a prompts
	// directory the wrapper cannot write to is refused here, by name,
	// instead of a wrapper that exits before writing any status.
	if err := unix.Access(filepath.Dir(abs), unix.W_OK); err != nil {
		return refuse(exitPrompt, "prompt %s: its directory %s is not writable (%v); the wrapper writes the log and the status sidecar beside the prompt", raw, p.root.Rel(filepath.Dir(abs)), err)
	}
	p.prompt, p.result, p.promptText = abs, res, string(data)
	return nil
}

// checkMetadata verifies the v2 identity the invocation metadata claims
// against the wrapper's arguments and the run manifest it names.
func (p *plan) checkMetadata(raw string) (*v2Fields, *preflightError) {
	abs, err := resolveIn(p.root, raw, "--invocation-metadata")
	if err != nil {
		return nil, refuse(exitUsage, "invocation metadata is invalid: %v", err)
	}
	md, err := state.ReadInvocationMetadata(abs, raw)
	if err != nil {
		return nil, refuse(exitUsage, "invocation metadata is invalid: %v", err)
	}
	// Resolved here first so a path outside the root is named by its field.
	if _, err := resolveIn(p.root, md.ContractSource.RunManifestPath, "contractSource.runManifestPath"); err != nil {
		return nil, refuse(exitUsage, "invocation metadata run manifest is invalid: %s: %v", raw, err)
	}
	run, err := state.LoadRun(p.root.Dir(), md.ContractSource.RunManifestPath)
	if err != nil {
		return nil, refuse(exitUsage, "invocation metadata run manifest is invalid: %s: contractSource.runManifestPath: %v", raw, err)
	}
	m := run.Manifest
	if !m.IsV2() {
		return nil, refuse(exitUsage, "new worker dispatch requires v2 invocation metadata: --invocation-metadata needs a v2 run manifest; %s has executionIdentityVersion %d", m.Display, m.ExecutionIdentityVersion)
	}
	ma := md.ModelAssignment
	if ma.Provider != p.provider.ID || ma.ModelExecutionValue != p.model {
		return nil, refuse(exitUsage, "invocation metadata model assignment does not match wrapper: %s assigns %s/%s, but the wrapper was asked to run %s/%s", raw, ma.Provider, ma.ModelExecutionValue, p.provider.ID, p.model)
	}
	dutyRole, err := state.RoleForDuty(md.DutyID)
	if err != nil {
		return nil, refuse(exitUsage, "invocation metadata role is invalid: %s: dutyId: %v", raw, err)
	}
	if p.role == "worker" {
		return nil, refuse(exitUsage, "invocation metadata duty does not match role: role is missing; with --invocation-metadata pass the role argument (duty %q belongs to role %s)", md.DutyID, dutyRole)
	}
	if dutyRole != p.role {
		return nil, refuse(exitUsage, "invocation metadata duty does not match role: %s: duty %q belongs to role %s, but the role argument is %s", raw, md.DutyID, dutyRole, p.role)
	}
	if !md.PromptMatches(p.root, p.prompt) {
		return nil, refuse(exitUsage, "invocation metadata prompt does not match wrapper: %s: prompt.path %q is not the prompt %s", raw, md.Prompt.Path, p.root.Rel(p.prompt))
	}
	if err := m.CheckIdentity(md.Identity(p.role)); err != nil {
		return nil, refuse(exitUsage, "%s: %s: %v", manifestMismatch(err), raw, err)
	}
	inv := m.Invocation(md.InvocationRef)
	dirs, perr := p.writeScope(raw, inv.WritePolicy)
	if perr != nil {
		return nil, perr
	}
	p.addDirs = dirs
	v2 := &v2Fields{
		participantRef:    md.ParticipantRef,
		roleExecutionRef:  md.RoleExecutionRef,
		executionLabel:    md.ExecutionLabel,
		dutyID:            md.DutyID,
		invocationRef:     md.InvocationRef,
		attempt:           md.Attempt,
		writePolicyDigest: inv.WritePolicyDigest,
	}
	if v2.attempt == 0 {
		v2.attempt = inv.Attempt
	}
	if inv.WriteEnforcement != nil {
		if v2.writeEnforcement, err = json.Marshal(inv.WriteEnforcement); err != nil {
			return nil, refuse(exitUsage, "invocation write contract is invalid: %s: writeEnforcement: %v", inv.InvocationRef, err)
		}
	}
	return v2, nil
}

// resolveIn resolves p (relative to the project root, or absolute) inside
// the root. An absolute path is first evaluated through symlinks, so a root
// reached through a symlinked directory still contains it.
func resolveIn(root state.Root, p, what string) (string, error) {
	if filepath.IsAbs(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
	}
	return root.Resolve(p, what)
}

// Exec is `cockpit worker exec`: it checks the invocation (exit 64–68 with
// one line on stderr when it cannot run), then runs the provider CLI on a PTY
// with the prompt, tees its output to `<prompt>.log` (and to stdout with
// --presentation live), writes the status sidecar `<prompt>.status.json`
// (started, then exactly one terminal status), enforces the idle timeout and
// forwards SIGTERM, SIGHUP and SIGINT to the CLI's process group. It returns
// the exit status: the CLI's own, 124 on an idle timeout, 128+n when the
// wrapper or the CLI was ended by signal n. stdin is not read: the CLI's
// stdin is the prompt file.
func Exec(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	_ = stdin
	a, perr := parseExecArgs(args)
	if perr == nil {
		var p *plan
		if p, perr = preflight(a); perr == nil {
			return p.run(stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "%s: %s\n", WrapperName, oneLine(perr.msg))
	return perr.code
}

// Preflight checks the arguments of `cockpit worker exec` (after "worker
// exec") as the wrapper would, without writing or starting anything: a
// dispatcher calls it for every job before it starts any, so a job the
// wrapper would refuse is refused at dispatch with the wrapper's own line
// (a wrapper's stderr is not where anyone looks). The error is that line.
func Preflight(args []string) error {
	a, perr := parseExecArgs(args)
	if perr == nil {
		_, perr = preflight(a)
	}
	if perr != nil {
		return perr
	}
	return nil
}

// ExecArgs returns the arguments of `cockpit worker exec` (after "worker
// exec") that run job, a job loaded with state.LoadJobs, in the given
// presentation. Paths are absolute, so the wrapper's working directory does
// not matter.
func ExecArgs(projectRoot string, job state.ResolvedJob, presentation string) []string {
	idle := ""
	if job.IdleTimeoutSeconds > 0 {
		idle = strconv.Itoa(job.IdleTimeoutSeconds)
	}
	role := job.Role
	args := []string{job.Provider, projectRoot, job.ModelExecutionValue, job.Prompt, job.Worktree, role, idle}
	if presentation != "" {
		args = append(args, "--presentation", presentation)
	}
	// Every dispatch gets a session id of its own (seed 004): the job's,
	// else a fresh one, which the wrapper passes to a CLI that takes one.
	sid := job.SessionID
	if sid == "" {
		sid = NewSessionID()
	}
	args = append(args, "--session-id", sid)
	if job.Metadata != "" {
		args = append(args, "--invocation-metadata", job.Metadata)
	}
	return args
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}
