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
		p, min5, hour := lookup(cat, provider, model)
		if p == nil {
			s.ListPriced = false
			continue
		}
		writes := float64(tok.CacheWrite-tok.CacheWrite1h)*min5 + float64(tok.CacheWrite1h)*hour
		s.ListUSD += (float64(tok.Input)*p.Input + writes + float64(tok.CacheRead)*p.CachedInput + float64(tok.Output)*p.Output) / 1e6
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
func Lookup(cat *workers.Catalog, provider, model string) *workers.Pricing {
	p, _, _ := lookup(cat, provider, model)
	return p
}

// lookup is Lookup with the cache-write prices (5 minutes, 1 hour) of the
// provider that knew model: its input price when it has none apart.
func lookup(cat *workers.Catalog, provider, model string) (p *workers.Pricing, min5, hour float64) {
	if cat == nil || model == "" {
		return nil, 0, 0
	}
	of := func(pv *workers.Provider) (*workers.Pricing, float64, float64) {
		pr := pv.PriceOf(model)
		if pr == nil {
			return nil, 0, 0
		}
		if m, h, ok := pv.CacheWriteOf(model); ok {
			return pr, m, h
		}
		return pr, pr.Input, pr.Input
	}
	if pv, err := cat.Provider(provider); err == nil {
		if pr, m, h := of(pv); pr != nil {
			return pr, m, h
		}
	}
	for _, pv := range cat.Providers() {
		if pr, m, h := of(pv); pr != nil {
			return pr, m, h
		}
	}
	return nil, 0, 0
}
