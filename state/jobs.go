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
	PromptDigest        string `json:"promptDigest"`
	MetadataDigest      string `json:"metadataDigest"`
	WritePolicyDigest   string `json:"writePolicyDigest"`
	RoleExecutionDigest string `json:"roleExecutionDigest"`
	InvocationDigest    string `json:"invocationDigest"`
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

// LoadJobs reads a jobs file and checks its shape against the run: the
// dispatch kind (and the --dispatch-kind flag when given), one kind for all
// jobs, identity fields for a v2 run, paths inside the root, prompts and
// metadata that exist as regular files, and no prompt twice. It checks
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
	jf := &JobsFile{Display: path}
	if err := readJSON(abs, path, jf); err != nil {
		return nil, nil, err
	}
	f := path
	if jf.DispatchKind == "" {
		return nil, nil, errf(f, "dispatchKind", "is missing; expected initial, reverify-r<N>, critic, report-writer or translator")
	}
	if err := CheckDispatchKind(jf.DispatchKind); err != nil {
		return nil, nil, wrapf(err, f, "dispatchKind", "%v", err)
	}
	if wantKind != "" && wantKind != jf.DispatchKind {
		return nil, nil, errf(f, "dispatchKind", "is %q but --dispatch-kind is %q; dispatch the file its own kind or fix the flag", jf.DispatchKind, wantKind)
	}
	if len(jf.Jobs) == 0 {
		return nil, nil, errf(f, "jobs", "is empty; a jobs file needs at least one job")
	}
	fileV2 := jf.ExecutionIdentityVersion >= 2
	if fileV2 && !run.Manifest.IsV2() {
		return nil, nil, errf(f, "executionIdentityVersion", "is 2 but the run manifest %s is v1; regenerate the jobs file for this run", run.Manifest.Display)
	}
	if run.Manifest.IsV2() && !fileV2 {
		return nil, nil, errf(f, "executionIdentityVersion", "is missing or 1 but the run manifest is v2; regenerate it with `okstra agent-prompt jobs`")
	}
	if jf.RunManifestPath != "" {
		mp, err := run.Root.Resolve(jf.RunManifestPath, "runManifestPath")
		if err != nil {
			return nil, nil, relabel(err, f)
		}
		if !sameFile(mp, run.Manifest.Path) {
			return nil, nil, errf(f, "runManifestPath", "names %s, not the run manifest %s; dispatch it against its own run", jf.RunManifestPath, run.Manifest.Display)
		}
	}
	seen := map[string]int{}
	out := make([]ResolvedJob, 0, len(jf.Jobs))
	for i, j := range jf.Jobs {
		at := fmt.Sprintf("jobs[%d]", i)
		if j.DispatchKind != "" && j.DispatchKind != jf.DispatchKind {
			return nil, nil, errf(f, at+".dispatchKind", "is %q but the file is %q; one jobs file holds one dispatch kind", j.DispatchKind, jf.DispatchKind)
		}
		if j.Provider == "" {
			return nil, nil, errf(f, at+".provider", "is missing")
		}
		if j.ModelExecutionValue == "" {
			return nil, nil, errf(f, at+".modelExecutionValue", "is missing")
		}
		if j.IdleTimeoutSeconds < 0 {
			return nil, nil, errf(f, at+".idleTimeoutSeconds", "is negative")
		}
		if fileV2 {
			for _, req := range []struct{ name, v string }{
				{"invocationRef", j.InvocationRef}, {"roleExecutionRef", j.RoleExecutionRef},
				{"participantRef", j.ParticipantRef}, {"executionLabel", j.ExecutionLabel},
				{"role", j.Role}, {"metadataPath", j.MetadataPath},
			} {
				if req.v == "" {
					return nil, nil, errf(f, at+"."+req.name, "is missing (required by executionIdentityVersion 2)")
				}
			}
		}
		if j.Role != "" {
			if _, err := NormalizeRole(j.Role); err != nil {
				return nil, nil, wrapf(err, f, at+".role", "%v", err)
			}
		}
		rj := ResolvedJob{Job: j}
		if rj.Prompt, err = run.Root.Resolve(j.PromptPath, at+".promptPath"); err != nil {
			return nil, nil, relabel(err, f)
		}
		if k := regularKind(rj.Prompt); k != "" {
			return nil, nil, errf(f, at+".promptPath", "%s is %s, not a regular file; materialize the prompt again", j.PromptPath, k)
		}
		if !isFile(rj.Prompt) {
			return nil, nil, errf(f, at+".promptPath", "%s does not exist; materialize the prompt first", j.PromptPath)
		}
		if k, dup := seen[rj.Prompt]; dup {
			return nil, nil, errf(f, at+".promptPath", "is the same prompt as jobs[%d]; each job needs its own prompt", k)
		}
		seen[rj.Prompt] = i
		if rj.Result, err = run.Root.Resolve(j.ResultPath, at+".resultPath"); err != nil {
			return nil, nil, relabel(err, f)
		}
		if j.MetadataPath != "" {
			if rj.Metadata, err = run.Root.Resolve(j.MetadataPath, at+".metadataPath"); err != nil {
				return nil, nil, relabel(err, f)
			}
			if k := regularKind(rj.Metadata); k != "" {
				return nil, nil, errf(f, at+".metadataPath", "%s is %s, not a regular file; materialize the prompt again", j.MetadataPath, k)
			}
			if !isFile(rj.Metadata) {
				return nil, nil, errf(f, at+".metadataPath", "%s does not exist", j.MetadataPath)
			}
		}
		if j.Worktree != "" {
			if rj.Worktree, err = run.Root.Resolve(j.Worktree, at+".worktree"); err != nil {
				return nil, nil, relabel(err, f)
			}
			if !isDir(rj.Worktree) {
				return nil, nil, errf(f, at+".worktree", "%s is not a directory", j.Worktree)
			}
		}
		out = append(out, rj)
	}
	return jf, out, nil
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
