package state

import (
	"encoding/json"
	"errors"
	"io/fs"
)

// Sidecar is a worker's status file, `<promptPath>.status.json`, written by
// the worker wrapper: "started", then one terminal status.
type Sidecar struct {
	Status    Status `json:"status"`
	Wrapper   string `json:"wrapper"`
	Role      string `json:"role"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	PID       int    `json:"pid"`
	ChildPID  int    `json:"childPid,omitempty"`
	StartedAt string `json:"startedAt"`
	EndedAt   string `json:"endedAt,omitempty"`
	ExitCode  *int   `json:"exitCode"`
	Reason    string `json:"reason"`
	LogPath   string `json:"logPath"`
	// ResultPath is where the worker was told to write (the prompt's Result
	// Path); the cockpit adds it so readers need not parse the prompt.
	ResultPath string `json:"resultPath,omitempty"`
	SessionID  string `json:"sessionId,omitempty"`

	// v2 identity, present when the wrapper ran with --invocation-metadata.
	SchemaVersion            string          `json:"schemaVersion,omitempty"`
	ExecutionIdentityVersion int             `json:"executionIdentityVersion,omitempty"`
	ParticipantRef           string          `json:"participantRef,omitempty"`
	RoleExecutionRef         string          `json:"roleExecutionRef,omitempty"`
	ExecutionLabel           string          `json:"executionLabel,omitempty"`
	DutyID                   string          `json:"dutyId,omitempty"`
	InvocationRef            string          `json:"invocationRef,omitempty"`
	Attempt                  int             `json:"attempt,omitempty"`
	ServedModelAttestation   json.RawMessage `json:"servedModelAttestation,omitempty"`
	WritePolicyDigest        string          `json:"writePolicyDigest,omitempty"`
	WriteEnforcement         json.RawMessage `json:"writeEnforcement,omitempty"`
}

// SidecarPath is where the sidecar of a prompt lives.
func SidecarPath(promptPath string) string { return promptPath + ".status.json" }

// LogPath is where the wrapper tees a prompt's worker output.
func LogPath(promptPath string) string { return promptPath + ".log" }

// WriteSidecar writes s atomically. Only the wrapper writes a sidecar, so no
// lock is needed; the rename makes every read see a whole file.
func WriteSidecar(path string, s *Sidecar) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(data, '\n'), 0o644)
}

// ReadSidecar reads a sidecar. A missing sidecar returns (nil, nil): the
// worker has not started.
func ReadSidecar(path, display string) (*Sidecar, error) {
	data, err := ReadRegular(path, display)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s := &Sidecar{}
	if err := decodeStrict(data, s, display); err != nil {
		return nil, err
	}
	if s.Status == "" {
		return nil, errf(display, "status", "is missing")
	}
	return s, nil
}
