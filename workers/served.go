package workers

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/okstra/cockpit/internal/lazyre"
	"github.com/okstra/cockpit/state"
)

// The served-model attestation (seed 004's servedModelAttestation): which
// model the CLI's own evidence says served the run, the catalog ref that
// name stands for, and how it compares with the role execution's binding.
// Levels:
const (
	// ServedVerified: the evidence names a model that is the binding's
	// resolvedExecutionValue, or that the provider's normalizer maps to it.
	ServedVerified = "verified"
	// ServedMismatch: a built-in provider's evidence names a model that is
	// not the bound one. The worker's terminal status is then error.
	ServedMismatch = "mismatch"
	// ServedObserved: a model was seen, but there is no rule to compare it
	// with the binding (a provider providers.json added, whose CLI's
	// aliases the cockpit does not know, and the name is not the bound
	// one).
	ServedObserved = "observed"
	// ServedUnknown: the CLI left no evidence naming a model.
	ServedUnknown = "unknown"
)

// Sources of an attestation: the evidence the model was read from.
const (
	SourceStreamJSON    = "stream-json"    // claude's or gemini's stream-json in the pane log
	SourceSessionLog    = "session-log"    // claude's session transcript (and the sim's claude-shaped file)
	SourceRollout       = "rollout"        // codex's rollout
	SourceExecLog       = "exec-log"       // codex exec's "model rerouted: A -> B" line in the log
	SourceChatRecording = "chat-recording" // gemini-cli's chat recording
	SourceWireLog       = "wire-log"       // kimi-cli's wire.jsonl
	SourceUnavailable   = "unavailable"    // nothing read
)

// ServedEvidence is what the wrapper knows of a finished CLI for finding
// the evidence it left: the same facts the engine's usage tracker gets of
// a dispatch.
type ServedEvidence struct {
	Provider  string
	Model     string // the model execution value the CLI was given
	Prompt    string // absolute prompt path
	Log       string // absolute log path
	Cwd       string // where the CLI ran
	SessionID string // the session id of the run (codex: the one it printed)
	Started   time.Time
}

// ServedObservation is the model the evidence names as having served the
// run (the one with most tokens), and the evidence's source; Model is ""
// when it names none.
type ServedObservation struct {
	Model  string
	Source string
}

// servedReader reads the observation. workers/usage, which owns the
// evidence formats and imports this package, registers it in its init; a
// binary that does not link workers/usage records unknown.
var servedReader func(*Catalog, ServedEvidence) ServedObservation

// RegisterServedModelReader sets the function the wrapper reads the served
// model with once the CLI has exited. workers/usage calls it in its init.
func RegisterServedModelReader(f func(*Catalog, ServedEvidence) ServedObservation) {
	servedReader = f
}

// Attestation is the sidecar's servedModelAttestation.
type Attestation struct {
	ObservedModel      *string `json:"observedModel"`
	NormalizedModelRef *string `json:"normalizedModelRef"`
	Level              string  `json:"level"`
	Source             string  `json:"source"`
}

// UnknownAttestation is the attestation of a run whose evidence named no
// model (and the started sidecar's, before the CLI ran).
func UnknownAttestation() Attestation {
	return Attestation{Level: ServedUnknown, Source: SourceUnavailable}
}

// JSON is the attestation as the sidecar carries it.
func (a Attestation) JSON() json.RawMessage {
	data, _ := json.Marshal(a)
	return data
}

// normalizer maps a served model name to the catalog refs it can stand
// for, most specific first.
type normalizer func(p *Provider, served string) []string

// ServedRefs returns the model refs (rows' execution values, or a CLI
// alias) that served, a name the CLI's evidence carries, stands for, most
// specific first; none when it maps to nothing the provider knows. See
// docs/OKSTRA.md for each provider's rule.
func (p *Provider) ServedRefs(served string) []string {
	if served == "" {
		return nil
	}
	if p.normalize == nil {
		return exactRefs(p, served)
	}
	return p.normalize(p, served)
}

// Attest builds the attestation of obs against bound, the role
// execution's resolvedExecutionValue (re names it in the error), and
// returns the verifier's error: "" unless the level is mismatch.
func (p *Provider) Attest(obs ServedObservation, bound, re string) (Attestation, string) {
	if obs.Model == "" {
		return UnknownAttestation(), ""
	}
	observed := obs.Model
	a := Attestation{ObservedModel: &observed, Source: obs.Source}
	refs := p.ServedRefs(observed)
	for _, r := range refs {
		if r == bound {
			a.NormalizedModelRef, a.Level = &bound, ServedVerified
			return a, ""
		}
	}
	if observed == bound {
		a.NormalizedModelRef, a.Level = &bound, ServedVerified
		return a, ""
	}
	if len(refs) > 0 {
		ref := refs[0]
		a.NormalizedModelRef = &ref
	}
	if p.normalize == nil || bound == "" {
		a.Level = ServedObserved
		return a, ""
	}
	a.Level = ServedMismatch
	as := ""
	if a.NormalizedModelRef != nil && *a.NormalizedModelRef != observed {
		as = " (" + *a.NormalizedModelRef + ")"
	}
	return a, fmt.Sprintf("served model mismatch: role execution %s is bound to %s, but the %s names %s%s; dispatch again once the provider serves %s, or bind the role to the model it serves", re, bound, obs.Source, observed, as, bound)
}

// rowRef is the execution value of the row name is (by execution value or
// id), or a name the provider accepts without a row; "" when none.
func (p *Provider) rowRef(name string) string {
	if m, ok := p.Model(name); ok {
		return m.ExecutionValue
	}
	return ""
}

// addRef appends ref to refs unless it is "" or there already.
func addRef(refs []string, ref string) []string {
	if ref == "" {
		return refs
	}
	for _, r := range refs {
		if r == ref {
			return refs
		}
	}
	return append(refs, ref)
}

// exactRefs: the row served names; providers.json's own providers, grok,
// kimi, the sim.
func exactRefs(p *Provider, served string) []string {
	return addRef(nil, p.rowRef(served))
}

// snapshotSuffixRE is a dated snapshot's suffix: -20250805, -2025-08-07.
var snapshotSuffixRE = &lazyre.Regexp{Pattern: `-(\d{8}|\d{4}-\d{2}-\d{2})$`}

// snapshotRefs: the row served names, as given or without a dated
// snapshot suffix (OpenAI's gpt-5-2025-08-07 is row gpt-5). Codex.
func snapshotRefs(p *Provider, served string) []string {
	refs := exactRefs(p, served)
	return addRef(refs, p.rowRef(snapshotSuffixRE.Get().ReplaceAllString(served, "")))
}

// claudeRefs: the row served names, as given or without its snapshot
// date, then claude-code's alias of its family: the first all-letter part
// of the name after "claude-" (claude-opus-4-1-20250805 → opus,
// claude-3-5-sonnet-20241022 → sonnet), which is what claude resolves the
// rows opus and sonnet through (2.1.332: opus → claude-opus-5-5).
func claudeRefs(p *Provider, served string) []string {
	refs := snapshotRefs(p, served)
	rest, ok := strings.CutPrefix(served, "claude-")
	if !ok {
		return refs
	}
	for _, part := range strings.Split(rest, "-") {
		if part != "" && strings.Trim(part, "abcdefghijklmnopqrstuvwxyz") == "" {
			if ref := p.rowRef(part); ref != "" {
				return addRef(refs, ref)
			}
			return addRef(refs, part)
		}
	}
	return refs
}

// geminiSuffixRE is what gemini model names carry past the model itself: a
// release stage, a variant, a dated or numbered version.
var geminiSuffixRE = &lazyre.Regexp{Pattern: `-(preview|customtools|latest|exp|\d{2}-\d{2}|\d{3})$`}

// geminiTierRE finds the tier of a Gemini name: gemini-3.1-pro-… → pro.
var geminiTierRE = &lazyre.Regexp{Pattern: `^gemini-[0-9.]+-(pro|flash-lite|flash)(-|$)`}

// geminiRefs: the row served names, as given or with its stage, variant
// and version suffixes taken off one by one (gemini-3.1-pro-preview-
// customtools → gemini-3.1-pro-preview → gemini-3.1-pro, the names
// gemini-cli 0.61 sends Gemini 3.1 Pro under), then gemini-cli's alias of
// its tier (pro, flash, flash-lite).
func geminiRefs(p *Provider, served string) []string {
	refs := exactRefs(p, served)
	for name := served; ; {
		short := geminiSuffixRE.Get().ReplaceAllString(name, "")
		if short == name {
			break
		}
		name = short
		refs = addRef(refs, p.rowRef(name))
	}
	if m := geminiTierRE.Get().FindStringSubmatch(served); m != nil {
		refs = addRef(refs, m[1])
	}
	return refs
}

// attest reads the served model from the evidence the CLI left and
// attests it against the binding (the model execution value, which
// preflight checked is the role execution's resolvedExecutionValue).
func (p *plan) attest(start time.Time, sessionID string) (Attestation, string) {
	if servedReader == nil || p.v2 == nil {
		return UnknownAttestation(), ""
	}
	cwd := p.root.Dir()
	if p.worktree != "" {
		cwd = p.worktree
	}
	obs := servedReader(p.catalog, ServedEvidence{
		Provider: p.provider.ID, Model: p.model, Prompt: p.prompt, Log: state.LogPath(p.prompt),
		Cwd: cwd, SessionID: sessionID, Started: start,
	})
	return p.provider.Attest(obs, p.model, p.v2.roleExecutionRef)
}
