package usage

import (
	"github.com/okstra/cockpit/workers"
)

// Where a Summary's cost comes from (Summary.CostSource, view.Usage).
const (
	// CostCatalog: the tokens priced at the catalog's list prices.
	CostCatalog = "catalog"
	// CostCLI: the figure the CLI itself reported (claude's result event
	// total_cost_usd), shown as it is.
	CostCLI = "cli"
)

// Summary is one worker's tokens and their price, as the view shows them
// (runtime/view.Usage has the same fields; docs/COST.md).
type Summary struct {
	Input      int64 `json:"input"`      // input not read from a cache; cache writes included
	Cached     int64 `json:"cached"`     // input read from a cache
	Output     int64 `json:"output"`     // output, reasoning included
	CacheWrite int64 `json:"cacheWrite"` // of Input, the tokens written to a cache
	Model      string
	// CostUSD is the cost shown, when Priced: the CLI's own figure when
	// CostSource is CostCLI, else ListUSD.
	CostUSD    float64
	Priced     bool
	CostSource string // CostCLI, CostCatalog, "" when unpriced
	// ListUSD is the tokens at the catalog's list prices, when ListPriced
	// (every model that used tokens has a price).
	ListUSD    float64
	ListPriced bool
	Source     string
}

// Price prices t with the catalog. Each model the evidence names is looked
// up with provider's PriceOf, then every provider's (a providers.json
// provider running claude prices claude's models); a model the evidence
// does not name is dispatchModel. ListPriced is false when any model that
// used tokens has no price: ListUSD is then of the priced ones only. Cache
// writes are priced at the served model's cache-write prices, 5-minute and
// 1-hour (workers.Provider.CacheWriteOf), else as input. When the CLI reported
// its own cost (t.CLICost), that is the cost shown.
func Price(cat *workers.Catalog, provider, dispatchModel string, t Totals, source string) Summary {
	s := Summary{ListPriced: true, Source: source}
	var most int64
	for model, tok := range t.ByModel {
		if tok.Sum() == 0 {
			continue
		}
		if model == "" {
			model = dispatchModel
		}
		s.Input += tok.Input + tok.CacheWrite
		s.CacheWrite += tok.CacheWrite
		s.Cached += tok.CacheRead
		s.Output += tok.Output
		if n := tok.Sum(); n > most || (n == most && model < s.Model) {
			most, s.Model = n, model
		}
		pr, ok := lookup(cat, provider, model)
		if !ok {
			s.ListPriced = false
			continue
		}
		usd, ok := pr.tiered(tok, t.Requests[model])
		if !ok {
			s.ListPriced = false
			continue
		}
		s.ListUSD += usd
	}
	if last := t.Last; last != "" && t.ByModel[last].Sum() == most {
		s.Model = last
	}
	if s.Model == "" {
		s.Model = dispatchModel
	}
	switch {
	case t.CLICost:
		s.CostUSD, s.Priced, s.CostSource = t.CLICostUSD, true, CostCLI
	case s.ListPriced:
		s.CostUSD, s.Priced, s.CostSource = s.ListUSD, true, CostCatalog
	}
	return s
}

// Lookup returns the price of model: as provider knows it, else as any
// provider knows it (workers.Provider.PriceOf); nil when none has a price.
// A price with a long-context tier is the price up to it.
func Lookup(cat *workers.Catalog, provider, model string) *workers.Pricing {
	if p, ok := lookup(cat, provider, model); ok {
		return &p.Pricing
	}
	return nil
}

// price is a model's price as the provider that knew it has it: the cache
// writes' prices (5 minutes, 1 hour; its input price when it has none
// apart) and the long-context tier, when it has one.
type price struct {
	workers.Pricing
	min5, hour float64
	tier       *workers.Tier
}

// lookup is Lookup with the whole price.
func lookup(cat *workers.Catalog, provider, model string) (price, bool) {
	if cat == nil || model == "" {
		return price{}, false
	}
	of := func(pv *workers.Provider) (price, bool) {
		pr := pv.PriceOf(model)
		if pr == nil {
			return price{}, false
		}
		p := price{Pricing: *pr, min5: pr.Input, hour: pr.Input}
		if m, h, ok := pv.CacheWriteOf(model); ok {
			p.min5, p.hour = m, h
		}
		if t, ok := pv.TierOf(model); ok {
			p.tier = &t
		}
		return p, true
	}
	if pv, err := cat.Provider(provider); err == nil {
		if p, ok := of(pv); ok {
			return p, true
		}
	}
	for _, pv := range cat.Providers() {
		if p, ok := of(pv); ok {
			return p, true
		}
	}
	return price{}, false
}

// usd is tok at the base price.
func (p price) usd(tok Tokens) float64 {
	writes := float64(tok.CacheWrite-tok.CacheWrite1h)*p.min5 + float64(tok.CacheWrite1h)*p.hour
	return (float64(tok.Input)*p.Input + writes + float64(tok.CacheRead)*p.CachedInput + float64(tok.Output)*p.Output) / 1e6
}

// tiered prices tok, one model's tokens, of which reqs are the requests
// the evidence kept (nil: only the total is known). Without a tier it is
// usd. With one, each request is priced by its own prompt: over the
// tier's bound at the tier's price (cache writes as its input), else at
// the base price. Tokens the requests do not account for, and a total
// kept without requests, are priced at the base price when their prompt
// is within the bound all together — every request in it was then within
// it — and are not priced at all otherwise (ok false): which requests
// were long is not known, and a guess is never shown.
func (p price) tiered(tok Tokens, reqs []Tokens) (float64, bool) {
	if p.tier == nil {
		return p.usd(tok), true
	}
	long := price{Pricing: p.tier.Pricing, min5: p.tier.Pricing.Input, hour: p.tier.Pricing.Input}
	var usd float64
	rest := tok
	for _, r := range reqs {
		if r.Prompt() > p.tier.Above {
			usd += long.usd(r)
		} else {
			usd += p.usd(r)
		}
		rest = rest.sub(r)
	}
	if rest.Sum() == 0 {
		return usd, true
	}
	if rest.Prompt() > p.tier.Above || rest.Input < 0 || rest.CacheRead < 0 || rest.Output < 0 {
		return 0, false
	}
	return usd + p.usd(rest), true
}
