package state

import "path/filepath"

// InvocationMetadata is the file `agent-prompt materialize` writes beside a
// prompt (`<prompt>.meta.json`): the identity a worker claims, checked by the
// wrapper against the run manifest before it starts anything.
type InvocationMetadata struct {
	SchemaVersion            string `json:"schemaVersion"`
	ExecutionIdentityVersion int    `json:"executionIdentityVersion"`
	InvocationRef            string `json:"invocationRef"`
	RoleExecutionRef         string `json:"roleExecutionRef"`
	ParticipantRef           string `json:"participantRef"`
	DutyID                   string `json:"dutyId"`
	ExecutionLabel           string `json:"executionLabel"`
	Attempt                  int    `json:"attempt"`
	ModelAssignment          *struct {
		Provider            string `json:"provider"`
		ModelExecutionValue string `json:"modelExecutionValue"`
		Runner              string `json:"runner"`
	} `json:"modelAssignment"`
	Prompt *struct {
		Path string `json:"path"`
	} `json:"prompt"`
	ContractSource *struct {
		RunManifestPath string `json:"runManifestPath"`
	} `json:"contractSource"`
	// PromptDigest is the digest of the prompt as materialized, and
	// WritePolicyDigest the invocation's write-policy digest
	// (CheckDigests verifies both when present).
	PromptDigest      string `json:"promptDigest,omitempty"`
	WritePolicyDigest string `json:"writePolicyDigest,omitempty"`
}

// ReadInvocationMetadata reads invocation metadata and validates it against
// assets/schemas/invocation-metadata.schema.json: v2, its identity refs,
// the model assignment, the prompt and run manifest paths, the digests'
// form. What ties it to the run is IdentityMatches and PromptMatches.
func ReadInvocationMetadata(path, display string) (*InvocationMetadata, error) {
	data, err := readFileOf(path, display)
	if err != nil {
		return nil, err
	}
	if err := checkSchema(schemaInvocation, display, data); err != nil {
		return nil, err
	}
	md := &InvocationMetadata{}
	if err := decodeStrict(data, md, display); err != nil {
		return nil, err
	}
	return md, nil
}

func (md *InvocationMetadata) Identity(role string) Identity {
	return Identity{
		Provider:         md.ModelAssignment.Provider,
		Model:            md.ModelAssignment.ModelExecutionValue,
		Runner:           md.ModelAssignment.Runner,
		Role:             role,
		DutyID:           md.DutyID,
		RoleExecutionRef: md.RoleExecutionRef,
		ParticipantRef:   md.ParticipantRef,
		InvocationRef:    md.InvocationRef,
		ExecutionLabel:   md.ExecutionLabel,
	}
}

// PromptMatches reports whether md's prompt path names prompt (absolute).
func (md *InvocationMetadata) PromptMatches(root Root, prompt string) bool {
	p, err := root.Resolve(md.Prompt.Path, "prompt.path")
	if err != nil {
		return false
	}
	a, _ := filepath.EvalSymlinks(p)
	b, _ := filepath.EvalSymlinks(prompt)
	return a != "" && a == b
}

// IdentityMatches checks md's claimed identity against the run manifest.
func (md *InvocationMetadata) IdentityMatches(m *RunManifest, role string) error {
	return m.CheckIdentity(md.Identity(role))
}
