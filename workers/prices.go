package workers

import (
	"regexp"
	"strings"
)

// ServedPrice is the list price of a model a provider's CLI reports
// serving: the name its token evidence carries, which is not always a
// catalog row (claude's row "opus" runs "claude-opus-4-8-…"). Source says
// where the price was read, and when.
type ServedPrice struct {
	Model   string
	Pricing Pricing
	Source  string
}

// anthropicPricing is the page the claude prices come from.
const anthropicPricing = "platform.claude.com/docs/en/about-claude/pricing, read 2026-12-01"

// claudeServed are the Claude models with a published list price
// (input, cache hits, output in USD per 1M tokens; 5-minute cache writes
// cost 1.25× input and are priced as input). Models whose price was not on
// that page as read (Sonnet 5, Sonnet 5.5, Opus 5.5, Haiku 5.5, Fable)
// are left out: unpriced, shown as "?".
var claudeServed = []ServedPrice{
	{"claude-opus-5", Pricing{5, 0.50, 25}, anthropicPricing},
	{"claude-opus-4-8", Pricing{5, 0.50, 25}, anthropicPricing},
	{"claude-opus-4-7", Pricing{5, 0.50, 25}, anthropicPricing},
	{"claude-opus-4-6", Pricing{5, 0.50, 25}, anthropicPricing},
	{"claude-opus-4-5", Pricing{5, 0.50, 25}, anthropicPricing},
	{"claude-opus-4-1", Pricing{15, 1.50, 75}, anthropicPricing},
	{"claude-opus-4-0", Pricing{15, 1.50, 75}, anthropicPricing},
	{"claude-opus-4", Pricing{15, 1.50, 75}, anthropicPricing},
	{"claude-sonnet-4-6", Pricing{3, 0.30, 15}, anthropicPricing},
	{"claude-sonnet-4-5", Pricing{3, 0.30, 15}, anthropicPricing},
	{"claude-sonnet-4-0", Pricing{3, 0.30, 15}, anthropicPricing},
	{"claude-sonnet-4", Pricing{3, 0.30, 15}, anthropicPricing},
	{"claude-haiku-4-5", Pricing{1, 0.10, 5}, anthropicPricing},
}

// simPricing prices the sim provider's simulated tokens at codex
// gpt-6.1-sol's list price (okstra's codex adapter, checked 2026-09-30),
// so the demo's figures are of a real run's order. Simulated tokens, so a
// simulated cost: never shown for a real CLI.
var simPricing = Pricing{Input: 2.0, CachedInput: 0.10, Output: 10.0}

// snapshotRE is the date suffix of a model snapshot: 20250929, 2025-09-29.
var snapshotRE = regexp.MustCompile(`^\d{4}-?\d{2}-?\d{2}$`)

// PriceOf returns the price of model as the provider knows it: its row
// (by execution value or id), a name it accepts without a row (the sim's
// parametric names), or a served model, exactly or as a dated snapshot
// ("claude-sonnet-4-5-20250929"). nil when none has a price.
func (p *Provider) PriceOf(model string) *Pricing {
	if model == "" {
		return nil
	}
	for _, m := range p.Models {
		if m.ExecutionValue == model || m.ID == model {
			if m.Pricing != nil {
				pr := *m.Pricing
				return &pr
			}
			break
		}
	}
	if p.acceptPricing != nil && p.accept != nil && p.accept(model) {
		pr := *p.acceptPricing
		return &pr
	}
	var best *Pricing
	bestLen := 0
	for _, s := range p.Served {
		if s.Model == model {
			pr := s.Pricing
			return &pr
		}
		if rest, ok := strings.CutPrefix(model, s.Model+"-"); ok && snapshotRE.MatchString(rest) && len(s.Model) > bestLen {
			pr := s.Pricing
			best, bestLen = &pr, len(s.Model)
		}
	}
	return best
}
