package state

import (
	"fmt"
	"os"
)

// JobsFile is one dispatch batch: every job runs one worker on one prompt.
type JobsFile struct {
	SchemaVersion            string       `json:"schemaVersion"`
	ExecutionIdentityVersion int          `json:"executionIdentityVersion"`
	DispatchKind             DispatchKind `json:"dispatchKind"`
	RunManifestPath          string       `json:"runManifestPath"`
	Jobs                     []Job        `json:"jobs"`

	Display string `json:"-"`
}

// Job is one worker of a batch. Paths are project-root-relative.
type Job struct {
	InvocationRef       string       `json:"invocationRef"`
	RoleExecutionRef    string       `json:"roleExecutionRef"`
	ParticipantRef      string       `json:"participantRef"`
	Role                string       `json:"role"`
	RosterRole          string       `json:"rosterRole"`
	WorkerID            string       `json:"workerId"`
	Provider            string       `json:"provider"`
	ModelExecutionValue string       `json:"modelExecutionValue"`
	ExecutionLabel      string       `json:"executionLabel"`
	PromptPath          string       `json:"promptPath"`
	ResultPath          string       `json:"resultPath"`
	MetadataPath        string       `json:"metadataPath"`
	Worktree            string       `json:"worktree"`
	IdleTimeoutSeconds  int          `json:"idleTimeoutSeconds"`
	DispatchKind        DispatchKind `json:"dispatchKind"`
	SessionID           string       `json:"sessionId"`

	// The digests okstra's jobs generation derives (CheckDigests): each is
	// verified before anything starts when the job carries it.
	PromptDigest        string `json:"promptDigest,omitempty"`
	MetadataDigest      string `json:"metadataDigest,omitempty"`
	WritePolicyDigest   string `json:"writePolicyDigest,omitempty"`
	RoleExecutionDigest string `json:"roleExecutionDigest,omitempty"`
	InvocationDigest    string `json:"invocationDigest,omitempty"`
}

// ResolvedJob is a verified job with absolute paths.
type ResolvedJob struct {
	Job
	Prompt   string // absolute
	Result   string
	Metadata string // "" when the job has none (v1)
	Worktree string // "" to run in the project root
	// IdleSource says where Job.IdleTimeoutSeconds came from once the
	// dispatcher applied the role's idle budget (see Dispatch).
	IdleSource string
}

// LoadJobs reads a jobs file, validates it against
// assets/schemas/jobs.schema.json (the dispatch kind's form, at least one
// job, each job's provider, model, paths, idle limit and digests' form, the
// v2 identity members), and checks what a schema cannot say, against the
// run: the --dispatch-kind flag when given, one kind for all jobs, the
// file's identity version against the manifest's, paths inside the root,
// prompts and metadata that exist as regular files, and no prompt twice. It checks
// every job before returning, so a batch is refused whole. The roster role
// (RosterFor, from team-state), the digests (CheckDigests), provider and
// model checks against the catalog, and identity checks against the
// manifest are the caller's.
func LoadJobs(run *Run, path string, wantKind DispatchKind) (*JobsFile, []ResolvedJob, error) {
	if path == "" {
		return nil, nil, &Error{Field: "--jobs-file", Msg: "is required; pass the jobs file written by `okstra agent-prompt jobs`"}
	}
	abs, err := run.Root.Resolve(path, "--jobs-file")
	if err != nil {
		return nil, nil, err
	}
	if err := run.Manifest.CheckSchema(); err != nil {
		return nil, nil, err
	}
	jf := &JobsFile{Display: path}
	data, err := readFileOf(abs, path)
	if err != nil {
		return nil, nil, err
	}
	// The shape is assets/schemas/jobs.schema.json's, validated with it;
	// what follows is what a schema cannot say.
	if err := checkSchema(schemaJobs, path, data); err != nil {
		return nil, nil, err
	}
	if err := decodeStrict(data, jf, path); err != nil {
		return nil, nil, err
	}
	if err := jf.checkAgainst(run, wantKind); err != nil {
		return nil, nil, err
	}
	seen := map[string]int{}
	out := make([]ResolvedJob, 0, len(jf.Jobs))
	for i, j := range jf.Jobs {
		rj, err := jf.resolveJob(run, i, j, seen)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, rj)
	}
	return jf, out, nil
}

// checkAgainst checks what ties the file to the call and the run: the
// --dispatch-kind flag, the run manifest's identity version, and the run
// manifest the file names.
func (jf *JobsFile) checkAgainst(run *Run, wantKind DispatchKind) error {
	f := jf.Display
	if wantKind != "" && wantKind != jf.DispatchKind {
		return errf(f, "dispatchKind", "is %q but --dispatch-kind is %q; dispatch the file its own kind or fix the flag", jf.DispatchKind, wantKind)
	}
	fileV2 := jf.ExecutionIdentityVersion >= 2
	if fileV2 && !run.Manifest.IsV2() {
		return errf(f, "executionIdentityVersion", "is 2 but the run manifest %s is v1; regenerate the jobs file for this run", run.Manifest.Display)
	}
	if run.Manifest.IsV2() && !fileV2 {
		return errf(f, "executionIdentityVersion", "is missing or 1 but the run manifest is v2; regenerate it with `okstra agent-prompt jobs`")
	}
	if jf.RunManifestPath != "" {
		mp, err := run.Root.Resolve(jf.RunManifestPath, "runManifestPath")
		if err != nil {
			return relabel(err, f)
		}
		if !sameFile(mp, run.Manifest.Path) {
			return errf(f, "runManifestPath", "names %s, not the run manifest %s; dispatch it against its own run", jf.RunManifestPath, run.Manifest.Display)
		}
	}
	return nil
}

// resolveJob checks job i beyond its shape — one dispatch kind per file,
// a known role, paths inside the root to files that exist as regular
// files, no prompt twice (seen) — and resolves its paths.
func (jf *JobsFile) resolveJob(run *Run, i int, j Job, seen map[string]int) (ResolvedJob, error) {
	f, at := jf.Display, fmt.Sprintf("jobs[%d]", i)
	if j.DispatchKind != "" && j.DispatchKind != jf.DispatchKind {
		return ResolvedJob{}, errf(f, at+".dispatchKind", "is %q but the file is %q; one jobs file holds one dispatch kind", j.DispatchKind, jf.DispatchKind)
	}
	if j.Role != "" {
		if _, err := NormalizeRole(j.Role); err != nil {
			return ResolvedJob{}, wrapf(err, f, at+".role", "%v", err)
		}
	}
	rj := ResolvedJob{Job: j}
	var err error
	if rj.Prompt, err = run.Root.Resolve(j.PromptPath, at+".promptPath"); err != nil {
		return ResolvedJob{}, relabel(err, f)
	}
	if err := existingFile(f, at+".promptPath", j.PromptPath, rj.Prompt, "materialize the prompt first", "materialize the prompt again"); err != nil {
		return ResolvedJob{}, err
	}
	if k, dup := seen[rj.Prompt]; dup {
		return ResolvedJob{}, errf(f, at+".promptPath", "is the same prompt as jobs[%d]; each job needs its own prompt", k)
	}
	seen[rj.Prompt] = i
	if rj.Result, err = run.Root.Resolve(j.ResultPath, at+".resultPath"); err != nil {
		return ResolvedJob{}, relabel(err, f)
	}
	if j.MetadataPath != "" {
		if rj.Metadata, err = run.Root.Resolve(j.MetadataPath, at+".metadataPath"); err != nil {
			return ResolvedJob{}, relabel(err, f)
		}
		if err := existingFile(f, at+".metadataPath", j.MetadataPath, rj.Metadata, "", "materialize the prompt again"); err != nil {
			return ResolvedJob{}, err
		}
	}
	if j.Worktree != "" {
		if rj.Worktree, err = run.Root.Resolve(j.Worktree, at+".worktree"); err != nil {
			return ResolvedJob{}, relabel(err, f)
		}
		if !isDir(rj.Worktree) {
			return ResolvedJob{}, errf(f, at+".worktree", "%s is not a directory", j.Worktree)
		}
	}
	return rj, nil
}

// existingFile refuses a path that is not a regular file: one that does
// not exist (missingFix), or one that is something else — a FIFO, a
// directory — saying what it is (otherFix).
func existingFile(file, field, given, abs, missingFix, otherFix string) error {
	if k := regularKind(abs); k != "" {
		return errf(file, field, "%s is %s, not a regular file; %s", given, k, otherFix)
	}
	if !isFile(abs) {
		if missingFix == "" {
			return errf(file, field, "%s does not exist", given)
		}
		return errf(file, field, "%s does not exist; %s", given, missingFix)
	}
	return nil
}

// RosterRoleOf returns the roster role a job records under: its rosterRole
// (which the dispatcher fills with RosterFor), or else the role derived
// from its worker id.
func (j Job) RosterRoleOf() string {
	if j.RosterRole != "" {
		return j.RosterRole
	}
	return RosterRoleFromWorker(j.WorkerID)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	return os.SameFile(sa, sb)
}
