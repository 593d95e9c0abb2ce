package state

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// The five digests a v2 jobs file carries per job (docs/FILES.md, "Jobs
// file: digests"). okstra's `agent-prompt jobs` "derives … all five
// digests"; the seeds name one, writePolicyDigest, and the cockpit names
// the other four. Each is "sha256:" and 64 lowercase hex digits.
const (
	DigestPrompt        = "promptDigest"        // the prompt file's bytes
	DigestMetadata      = "metadataDigest"      // the invocation metadata file's bytes
	DigestWritePolicy   = "writePolicyDigest"   // as the run manifest's invocation records it
	DigestRoleExecution = "roleExecutionDigest" // the role execution row, canonical JSON
	DigestInvocation    = "invocationDigest"    // the invocation row, canonical JSON
)

// Digest is the digest of data as the run files write it.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// FileDigest is the digest of the file at path. It reads through
// ReadRegular: a FIFO or a device is refused, never opened for reading.
func FileDigest(path, display string) (string, error) {
	data, err := ReadRegular(path, display)
	if err != nil {
		return "", err
	}
	return Digest(data), nil
}

// CanonicalJSON is raw re-encoded as Python's json.dumps(v,
// sort_keys=True, separators=(",", ":"), ensure_ascii=False) writes it:
// object keys sorted, no whitespace, UTF-8 as is, numbers as written.
func CanonicalJSON(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := bytes.TrimRight(b.Bytes(), "\n")
	// encoding/json escapes U+2028 and U+2029 even without HTML escaping;
	// Python with ensure_ascii=False writes them as they are.
	out = bytes.ReplaceAll(out, []byte(`\u2028`), []byte("\u2028"))
	out = bytes.ReplaceAll(out, []byte(`\u2029`), []byte("\u2029"))
	return out, nil
}

// manifestRows are the raw rows of a run manifest, for the row digests.
type manifestRows struct {
	RoleExecutions []json.RawMessage `json:"roleExecutions"`
	Invocations    []json.RawMessage `json:"invocations"`
}

// rowDigest is the canonical digest of the manifest's roleExecutions (or
// invocations) row whose refKey member is ref; "" when there is none.
func (m *RunManifest) rowDigest(invocations bool, refKey, ref string) string {
	if m.raw == nil {
		return ""
	}
	var rows manifestRows
	if json.Unmarshal(m.raw, &rows) != nil {
		return ""
	}
	list := rows.RoleExecutions
	if invocations {
		list = rows.Invocations
	}
	for _, r := range list {
		var id map[string]json.RawMessage
		if json.Unmarshal(r, &id) != nil {
			continue
		}
		var got string
		if json.Unmarshal(id[refKey], &got) != nil || got != ref {
			continue
		}
		c, err := CanonicalJSON(r)
		if err != nil {
			return ""
		}
		return Digest(c)
	}
	return ""
}

// RoleExecutionDigest is the digest of the role execution ref.
func (m *RunManifest) RoleExecutionDigest(ref string) string {
	return m.rowDigest(false, "roleExecutionRef", ref)
}

// InvocationDigest is the digest of the invocation ref.
func (m *RunManifest) InvocationDigest(ref string) string {
	return m.rowDigest(true, "invocationRef", ref)
}

// CheckDigests verifies every digest a job of the jobs file carries, and
// the ones its invocation metadata carries, before anything starts: the
// prompt and metadata bytes as they are now, the write-policy digest and
// the role-execution and invocation rows of the run manifest. A job that
// carries none (a jobs file written before digests, or by hand) is not
// checked; one that carries a digest the files no longer match is refused
// with one line naming the jobs file, the job and the digest.
func CheckDigests(run *Run, jobsFile string, jobs []ResolvedJob) error {
	const again = "materialize the batch again (okstra agent-prompt materialize … --jobs-out, or agent-prompt jobs) and dispatch the new jobs file"
	for i, j := range jobs {
		at := fmt.Sprintf("jobs[%d]", i)
		mismatch := func(name, want, got, what string) error {
			return errf(jobsFile, at+"."+name, "is %s but %s now hashes to %s: %s changed after the jobs file was written; %s", want, what, got, what, again)
		}
		for _, f := range []struct{ name, want string }{
			{DigestPrompt, j.PromptDigest}, {DigestMetadata, j.MetadataDigest}, {DigestWritePolicy, j.WritePolicyDigest},
			{DigestRoleExecution, j.RoleExecutionDigest}, {DigestInvocation, j.InvocationDigest},
		} {
			if f.want != "" && !validDigest(f.want) {
				return errf(jobsFile, at+"."+f.name, "is %q; expected sha256: and 64 lowercase hex digits", f.want)
			}
		}
		var prompt string
		if j.PromptDigest != "" || j.Metadata != "" {
			var err error
			if prompt, err = FileDigest(j.Prompt, j.PromptPath); err != nil {
				return err
			}
		}
		if j.PromptDigest != "" && j.PromptDigest != prompt {
			return mismatch(DigestPrompt, j.PromptDigest, prompt, "the prompt "+j.PromptPath)
		}
		if j.MetadataDigest != "" {
			if j.Metadata == "" {
				return errf(jobsFile, at+"."+DigestMetadata, "is set but the job names no metadataPath; regenerate the jobs file")
			}
			got, err := FileDigest(j.Metadata, j.MetadataPath)
			if err != nil {
				return err
			}
			if got != j.MetadataDigest {
				return mismatch(DigestMetadata, j.MetadataDigest, got, "the invocation metadata "+j.MetadataPath)
			}
		}
		inv := run.Manifest.Invocation(j.InvocationRef)
		if j.WritePolicyDigest != "" {
			if inv == nil || inv.WritePolicyDigest == "" {
				return errf(jobsFile, at+"."+DigestWritePolicy, "is set but the run manifest %s records no writePolicyDigest for invocation %q; regenerate the jobs file for this run", run.Manifest.Display, j.InvocationRef)
			}
			if inv.WritePolicyDigest != j.WritePolicyDigest {
				return mismatch(DigestWritePolicy, j.WritePolicyDigest, inv.WritePolicyDigest, "the write policy of "+j.InvocationRef+" in "+run.Manifest.Display)
			}
		}
		if j.RoleExecutionDigest != "" {
			if got := run.Manifest.RoleExecutionDigest(j.RoleExecutionRef); got != j.RoleExecutionDigest {
				return mismatch(DigestRoleExecution, j.RoleExecutionDigest, orNone(got), "the role execution "+j.RoleExecutionRef+" of "+run.Manifest.Display)
			}
		}
		if j.InvocationDigest != "" {
			if got := run.Manifest.InvocationDigest(j.InvocationRef); got != j.InvocationDigest {
				return mismatch(DigestInvocation, j.InvocationDigest, orNone(got), "the invocation "+j.InvocationRef+" of "+run.Manifest.Display)
			}
		}
		if j.Metadata == "" {
			continue
		}
		md, err := ReadInvocationMetadata(j.Metadata, j.MetadataPath)
		if err != nil {
			return err
		}
		if md.PromptDigest != "" && md.PromptDigest != prompt {
			return errf(j.MetadataPath, DigestPrompt, "is %s but the prompt %s now hashes to %s: the prompt changed after it was materialized; %s", md.PromptDigest, j.PromptPath, prompt, again)
		}
		if md.WritePolicyDigest != "" && inv != nil && inv.WritePolicyDigest != "" && md.WritePolicyDigest != inv.WritePolicyDigest {
			return errf(j.MetadataPath, DigestWritePolicy, "is %s but the run manifest %s records %s for %s; %s", md.WritePolicyDigest, run.Manifest.Display, inv.WritePolicyDigest, j.InvocationRef, again)
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "nothing (no such row)"
	}
	return s
}

func validDigest(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	return strings.Trim(h, "0123456789abcdef") == ""
}
