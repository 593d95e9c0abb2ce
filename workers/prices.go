package workers

import (
	"strings"

	"github.com/okstra/cockpit/internal/lazyre"
)

// ServedPrice is the list price of a model a provider's CLI reports
// serving: the name its token evidence carries, which is not always a
// catalog row (claude's row "sonnet" runs "claude-sonnet-5-5"). CacheWrite
// and CacheWrite1h are the prices of writing input to a cache for 5
// minutes and for an hour (USD per 1M tokens; 0: priced as input). Source
// says where the price was read, and when. A model priced by the length of
// each request's prompt (Gemini's long-context tier) has LongAbove > 0: a
// request whose prompt (its input tokens, cached ones included) is over
// LongAbove tokens is priced, all of it, at Long instead of Pricing.
type ServedPrice struct {
	Model        string
	Pricing      Pricing
	CacheWrite   float64
	CacheWrite1h float64
	LongAbove    int64
	Long         Pricing
	Source       string
}

// Tier is the long-context tier of a served model's price: a request whose
// prompt is over Above tokens is priced at Pricing.
type Tier struct {
	Above   int64
	Pricing Pricing
}

// The pages the claude prices come from.
const (
	anthropicPricing = "platform.claude.com/docs/en/about-claude/pricing, read 2026-12-01"
	sonnet5Page      = "platform.claude.com/docs/models/sonnet-5/overview, read 2026-12-01"
	opus55Page       = "platform.claude.com/docs/models/opus-5-5/overview, read 2026-12-01"
	// Sonnet 5.5's model page as stored gives $0.20 cache hits; Anthropic
	// cut them to $0.10 on 2026-10-07, and claude-code 2.1.332 prices
	// them so (its total_cost_usd for known usage, costBasis "list").
	sonnet55Cut = "platform.claude.com/docs/models/sonnet-5-5/overview and the cache-read cut of 2026-10-07 (claude-code 2.1.332's own total_cost_usd), read 2026-12-01"
)

// claude prices a Claude model at Anthropic's list price: input, cache
// hits, output in USD per 1M tokens; cache writes at 1.25× input for 5
// minutes and 2× for an hour (the multipliers of every Claude model's
// row on the pricing page).
func claude(model string, in, cached, out float64, source string) ServedPrice {
	return ServedPrice{Model: model, Pricing: Pricing{in, cached, out}, CacheWrite: in * 1.25, CacheWrite1h: in * 2, Source: source}
}

// geminiPricing is where the Gemini prices come from.
const geminiPricing = "ai.google.dev/gemini-api/docs/pricing, Gemini 3.1 Pro Preview (standard tier, text), as published 2026-12-02"

// gemini31Pro prices a name gemini-cli 0.61 sends for Gemini 3.1 Pro:
// $2.00 input, $0.20 cached input, $12.00 output per 1M tokens for a
// prompt of at most 200K tokens; $4.00 / $0.40 / $18.00 above, on the
// whole request. Output includes the thinking tokens, as the API bills
// them. Context-cache storage (per hour) is not a token price: not known
// to the evidence, not charged.
func gemini31Pro(model string) ServedPrice {
	return ServedPrice{Model: model, Pricing: Pricing{2.00, 0.20, 12.00}, LongAbove: 200_000, Long: Pricing{4.00, 0.40, 18.00}, Source: geminiPricing}
}

// geminiServed are the Gemini models with a published price, by the names
// gemini-cli 0.61 sends them under (and its chat recording and stream-json
// name): the catalog's gemini-3.1-pro as given (gemini-cli passes a full
// model name through unchanged), and what its "pro" and "auto" aliases
// resolve to, gemini-3.1-pro-preview and, with custom tools,
// gemini-3.1-pro-preview-customtools (priced as the preview).
var geminiServed = []ServedPrice{
	gemini31Pro("gemini-3.1-pro"),
	gemini31Pro("gemini-3.1-pro-preview"),
	gemini31Pro("gemini-3.1-pro-preview-customtools"),
}

// claudeServed are the Claude models with a published list price.
// claude-code 2.1.332's aliases resolve to claude-opus-5-5 ("opus"),
// claude-sonnet-5-5 ("sonnet") and claude-haiku-5-5 ("haiku"), as its
// requests to the mock name them. Left out, unpriced ("?"): Haiku 5.5
// (priced by each request's prompt length, which the totals do not keep),
// Fable 5.2 (no cache-read price found), Mythos.
var claudeServed = []ServedPrice{
	claude("claude-fable-5-1", 10, 0.25, 50, anthropicPricing),
	claude("claude-fable-5", 10, 1, 50, anthropicPricing),
	claude("claude-opus-5-5", 4, 0.20, 20, opus55Page),
	claude("claude-opus-5", 5, 0.50, 25, anthropicPricing),
	claude("claude-opus-4-8", 5, 0.50, 25, anthropicPricing),
	claude("claude-opus-4-7", 5, 0.50, 25, anthropicPricing),
	claude("claude-opus-4-6", 5, 0.50, 25, anthropicPricing),
	claude("claude-opus-4-5", 5, 0.50, 25, anthropicPricing),
	claude("claude-opus-4-1", 15, 1.50, 75, anthropicPricing),
	claude("claude-opus-4-0", 15, 1.50, 75, anthropicPricing),
	claude("claude-opus-4", 15, 1.50, 75, anthropicPricing),
	claude("claude-sonnet-5-5", 2, 0.10, 10, sonnet55Cut),
	claude("claude-sonnet-5", 2, 0.20, 10, sonnet5Page),
	claude("claude-sonnet-4-6", 3, 0.30, 15, anthropicPricing),
	claude("claude-sonnet-4-5", 3, 0.30, 15, anthropicPricing),
	claude("claude-sonnet-4-0", 3, 0.30, 15, anthropicPricing),
	claude("claude-sonnet-4", 3, 0.30, 15, anthropicPricing),
	claude("claude-haiku-4-5", 1, 0.10, 5, anthropicPricing),
}

// simPricing prices the sim provider's simulated tokens at codex
// gpt-6.1-sol's list price (okstra's codex adapter, checked 2026-09-30),
// so the demo's figures are of a real run's order. Simulated tokens, so a
// simulated cost: never shown for a real CLI.
var simPricing = Pricing{Input: 2.0, CachedInput: 0.10, Output: 10.0}

// snapshotRE is the date suffix of a model snapshot: 20250929, 2025-09-29.
var snapshotRE = &lazyre.Regexp{Pattern: `^\d{4}-?\d{2}-?\d{2}$`}

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
	if s := p.served(model); s != nil {
		pr := s.Pricing
		return &pr
	}
	return nil
}

// TierOf is the long-context tier of model's price as the provider knows
// it (PriceOf's price holds for a request whose prompt is at most
// tier.Above tokens); ok is false when the price has no tier (a row's
// price, a providers.json price, every Claude model's) or there is no
// price.
func (p *Provider) TierOf(model string) (tier Tier, ok bool) {
	if model == "" {
		return Tier{}, false
	}
	for _, m := range p.Models {
		if m.ExecutionValue == model || m.ID == model {
			if m.Pricing != nil {
				return Tier{}, false
			}
			break
		}
	}
	if p.acceptPricing != nil && p.accept != nil && p.accept(model) {
		return Tier{}, false
	}
	if s := p.served(model); s != nil && s.LongAbove > 0 {
		return Tier{Above: s.LongAbove, Pricing: s.Long}, true
	}
	return Tier{}, false
}

// CacheWriteOf is the price of writing model's input to a cache for 5
// minutes and for an hour, in USD per 1M tokens, when the provider knows
// them apart from the input price (a served model's); ok is false
// otherwise (a row's price, or none: cache writes are then priced as
// input).
func (p *Provider) CacheWriteOf(model string) (min5, hour float64, ok bool) {
	for _, m := range p.Models {
		if (m.ExecutionValue == model || m.ID == model) && m.Pricing != nil {
			return 0, 0, false
		}
	}
	if s := p.served(model); s != nil && s.CacheWrite > 0 {
		hour = s.CacheWrite1h
		if hour == 0 {
			hour = s.CacheWrite
		}
		return s.CacheWrite, hour, true
	}
	return 0, 0, false
}

// served is the served model that model names, exactly or as a dated
// snapshot (the longest such name); nil when none.
func (p *Provider) served(model string) *ServedPrice {
	var best *ServedPrice
	for i := range p.Served {
		s := &p.Served[i]
		if s.Model == model {
			return s
		}
		if rest, ok := strings.CutPrefix(model, s.Model+"-"); ok && snapshotRE.Get().MatchString(rest) && (best == nil || len(s.Model) > len(best.Model)) {
			best = s
		}
	}
	return best
}
