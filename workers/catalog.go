package workers

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/okstra/cockpit/state"
)

// Prompt delivery modes of a provider CLI.
const (
	PromptOnStdin = "stdin" // the prompt file is the CLI's standard input
	PromptOnFile  = "file"  // the CLI reads the prompt file named by {promptPath}
	PromptOnArgv  = "argv"  // the prompt's text is one argv element, {prompt}
)

// Pricing is a model's list price in USD per million tokens. Cost reports
// estimate with it; a model without pricing is reported as unpriced.
type Pricing struct {
	Input       float64
	CachedInput float64
	Output      float64
}

// Model is one model row of a provider.
type Model struct {
	// ID names the row in the catalog, in providers.json and in pickers.
	ID string
	// Display is the human name shown in pickers.
	Display string
	// ExecutionValue is what {model} expands to on the CLI's argv and what
	// run manifests and jobs files carry as modelExecutionValue.
	ExecutionValue string
	// Pricing is nil when the price is unknown.
	Pricing *Pricing
	// CLIArgs are extra argv tokens {modelArgs...} expands to.
	CLIArgs []string
	// Selectable rows are offered by the wizard; the others are kept so past
	// runs still price and a run that names them still executes.
	Selectable bool
}

// Provider is one worker CLI: how to run it and which models it serves.
type Provider struct {
	// ID is the provider id of run manifests and jobs files ("codex").
	ID string
	// DisplayLabel is the human name ("Codex").
	DisplayLabel string
	// Command is the argv template; see Argv for its placeholders.
	Command []string
	// Models are the provider's rows, built-in rows first in catalog order.
	Models []Model
	// DefaultModels maps a canonical role to a model id.
	DefaultModels map[string]string
	// Roles the provider may run; empty means every canonical role.
	Roles []string
	// Source says where the provider's last definition came from: "built-in"
	// or the providers.json path that last changed it.
	Source string
	// Served are list prices of the models the CLI reports in its token
	// evidence when they are not rows (see PriceOf).
	Served []ServedPrice
	// Wrapper is what the status sidecar's "wrapper" says ran the CLI: the
	// name okstra's provider spec gives its wrapper (okstra accepts only the
	// names of its _SUPPORTED_WRAPPERS), so okstra reads a cockpit sidecar as
	// its own. "" is WrapperName.
	Wrapper string

	promptOn string
	// accept recognises model names outside Models (the sim provider's
	// parametric names such as sim-ok-3s).
	accept func(model string) bool
	// acceptPricing prices the names accept recognises.
	acceptPricing *Pricing
	// normalize maps a model name the CLI's evidence carries to the refs
	// it stands for (ServedRefs); nil for a provider providers.json added,
	// whose CLI's aliases the cockpit does not know.
	normalize normalizer
}

// Catalog is the set of providers the cockpit can run: the built-in ones with
// the user's providers.json overrides applied.
type Catalog struct {
	providers map[string]*Provider
	// idle holds the idle budgets providers.json files set, by canonical
	// role or IdleDefault; a later file's entry replaces an earlier one's.
	idle map[string]idleBudget
	// Files lists the providers.json files that were applied, lowest
	// priority first.
	Files []string
}

// UserProvidersFile returns the user-level providers.json path,
// os.UserConfigDir()/cockpit/providers.json, or "" when there is no user
// config directory.
func UserProvidersFile() string {
	dir, err := os.UserConfigDir()
	if err != nil || dir == "" {
		return ""
	}
	return filepath.Join(dir, "cockpit", "providers.json")
}

// ProjectProvidersFile returns the project-level providers.json path,
// <projectRoot>/.cockpit/providers.json.
func ProjectProvidersFile(projectRoot string) string {
	return filepath.Join(projectRoot, ".cockpit", "providers.json")
}

// LoadCatalog returns the built-in catalog with the user's overrides applied:
// first the user config dir's providers.json, then the project's
// .cockpit/providers.json, which wins. Missing files are skipped; a file that
// exists but is malformed is an error naming the file and the field. An empty
// projectRoot skips the project file.
func LoadCatalog(projectRoot string) (*Catalog, error) {
	c := builtinCatalog()
	files := []string{UserProvidersFile()}
	if projectRoot != "" {
		files = append(files, ProjectProvidersFile(projectRoot))
	}
	for _, f := range files {
		if f == "" {
			continue
		}
		applied, err := c.applyFile(f)
		if err != nil {
			return nil, err
		}
		if applied {
			c.Files = append(c.Files, f)
		}
	}
	return c, nil
}

// BuiltinCatalog returns the catalog without any providers.json applied.
func BuiltinCatalog() *Catalog { return builtinCatalog() }

// Provider returns the provider with id, or an error listing the known ids.
func (c *Catalog) Provider(id string) (*Provider, error) {
	if p, ok := c.providers[id]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("unknown provider %q (known: %s)", id, strings.Join(c.ids(), ", "))
}

// Providers returns every provider sorted by id.
func (c *Catalog) Providers() []*Provider {
	out := make([]*Provider, 0, len(c.providers))
	for _, id := range c.ids() {
		out = append(out, c.providers[id])
	}
	return out
}

// CheckModel checks that provider serves model (an id or an execution
// value). Rows that are not selectable still check: they exist so runs that
// name them work.
func (c *Catalog) CheckModel(provider, model string) error {
	p, err := c.Provider(provider)
	if err != nil {
		return err
	}
	if model == "" {
		return fmt.Errorf("model is empty for provider %s (known: %s)", provider, strings.Join(p.modelIDs(), ", "))
	}
	if _, ok := p.Model(model); ok {
		return nil
	}
	return fmt.Errorf("unknown model %q for provider %s (known: %s)", model, provider, strings.Join(p.modelIDs(), ", "))
}

func (c *Catalog) ids() []string {
	ids := make([]string, 0, len(c.providers))
	for id := range c.providers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// PromptOn says how the CLI gets its prompt: PromptOnStdin or PromptOnFile.
func (p *Provider) PromptOn() string {
	if p.promptOn == "" {
		return PromptOnStdin
	}
	return p.promptOn
}

// Model returns the row whose execution value or id is name. A name the
// provider accepts without a row (the sim provider's sim-ok-3s) returns a
// synthesised selectable row.
func (p *Provider) Model(name string) (Model, bool) {
	for _, m := range p.Models {
		if m.ExecutionValue == name {
			return m, true
		}
	}
	for _, m := range p.Models {
		if m.ID == name {
			return m, true
		}
	}
	if p.accept != nil && p.accept(name) {
		return Model{ID: name, Display: name, ExecutionValue: name, Pricing: p.acceptPricing}, true
	}
	return Model{}, false
}

// SelectableModels returns the rows the wizard offers, in catalog order.
func (p *Provider) SelectableModels() []Model {
	var out []Model
	for _, m := range p.Models {
		if m.Selectable {
			out = append(out, m)
		}
	}
	return out
}

// DefaultModel returns the id of the model the provider runs for role
// (canonical or an alias). A role without a default gets the first selectable
// model; "" only when the provider has no model at all.
func (p *Provider) DefaultModel(role string) string {
	if r, err := state.NormalizeRole(role); err == nil {
		if id, ok := p.DefaultModels[r]; ok {
			return id
		}
	}
	if sel := p.SelectableModels(); len(sel) > 0 {
		return sel[0].ID
	}
	if len(p.Models) > 0 {
		return p.Models[0].ID
	}
	return ""
}

// SupportsRole reports whether the provider may run role (canonical or an
// alias).
func (p *Provider) SupportsRole(role string) bool {
	r, err := state.NormalizeRole(role)
	if err != nil {
		return false
	}
	return len(p.Roles) == 0 || slices.Contains(p.Roles, r)
}

func (p *Provider) modelIDs() []string {
	ids := make([]string, 0, len(p.Models))
	for _, m := range p.Models {
		ids = append(ids, m.ID)
	}
	if p.ID == SimProviderID {
		ids = append(ids, "sim-ok-<dur>", "sim-fail-<dur>", "sim-slow-<dur>", "sim-flood-<dur>")
	}
	return ids
}

func (p *Provider) clone() *Provider {
	q := *p
	q.Command = slices.Clone(p.Command)
	q.Models = make([]Model, len(p.Models))
	for i, m := range p.Models {
		m.CLIArgs = slices.Clone(m.CLIArgs)
		if m.Pricing != nil {
			pr := *m.Pricing
			m.Pricing = &pr
		}
		q.Models[i] = m
	}
	q.DefaultModels = make(map[string]string, len(p.DefaultModels))
	for k, v := range p.DefaultModels {
		q.DefaultModels[k] = v
	}
	q.Roles = slices.Clone(p.Roles)
	return &q
}

// Sources of a worker's idle limit, recorded on its dispatch as
// idleTimeoutSource.
const (
	IdleFromJobsFile  = "jobs-file"
	IdleFromCatalog   = "catalog"
	IdleFromProviders = "providers.json"
)

// IdleDefault is the key of idleBudgets that stands for every role without
// a budget of its own.
const IdleDefault = "default"

// builtinIdleBudgets is the idle limit, in seconds, of a worker of each
// canonical role when neither its job nor providers.json names one; "default"
// is for an empty or unknown role. The idle clock restarts on every byte the
// CLI prints, but several CLIs print nothing while they think, or nothing
// until they are done (gemini and kimi headless, claude -p without
// stream-json), so a budget is close to the longest silent turn the role
// takes. See docs/DECISIONS.md.
var builtinIdleBudgets = map[string]int{
	"analyser":      1800,
	"critic":        1200,
	"designer":      1800,
	"planner":       1800,
	"implementer":   3600,
	"verifier":      2400,
	"report-writer": 1800,
	"translator":    900,
	"leader":        1800,
	IdleDefault:     1800,
}

// idleBudget is one budget providers.json set, and the file that set it.
type idleBudget struct {
	seconds int
	file    string
}

// IdleBudget returns the idle limit, in seconds, a worker of the canonical
// role runs under when its job names none, and where that budget came from
// (IdleFromCatalog or IdleFromProviders). 0 means no limit. The budget is,
// first found: the role's entry in providers.json's idleBudgets, its
// "default" entry, the catalog's budget for the role, the catalog's general
// budget. Aliases (lead, executor) count as their role; an unknown or empty
// role gets the general budget.
func (c *Catalog) IdleBudget(role string) (seconds int, source string) {
	key := IdleDefault
	if r, err := state.NormalizeRole(role); err == nil {
		key = r
	}
	if b, ok := c.idle[key]; ok {
		return b.seconds, IdleFromProviders
	}
	if b, ok := c.idle[IdleDefault]; ok {
		return b.seconds, IdleFromProviders
	}
	if s, ok := builtinIdleBudgets[key]; ok {
		return s, IdleFromCatalog
	}
	return builtinIdleBudgets[IdleDefault], IdleFromCatalog
}

// IdleBudgetFile returns the providers.json file whose idleBudgets set the
// budget IdleBudget returns for role, or "" when the budget is the catalog's.
func (c *Catalog) IdleBudgetFile(role string) string {
	key := IdleDefault
	if r, err := state.NormalizeRole(role); err == nil {
		key = r
	}
	if b, ok := c.idle[key]; ok {
		return b.file
	}
	return c.idle[IdleDefault].file
}
