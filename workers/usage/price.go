package usage

import (
	"github.com/okstra/cockpit/workers"
)

// Summary is one worker's tokens and their price, as the view shows them
// (runtime/view.Usage has the same fields).
type Summary struct {
	Input   int64 `json:"input"`  // input not read from a cache; cache writes included
	Cached  int64 `json:"cached"` // input read from a cache
	Output  int64 `json:"output"` // output, reasoning included
	Model   string
	CostUSD float64
	Priced  bool
	Source  string
}

// Price prices t with the catalog. Each model the evidence names is looked
// up with provider's PriceOf, then every provider's (a providers.json
// provider running claude prices claude's models); a model the evidence
// does not name is dispatchModel. Priced is false when any model that used tokens has no
// price: the cost is then of the priced ones only. Cache writes are priced
// as input (Anthropic bills them at 1.25× input: a lower bound).
func Price(cat *workers.Catalog, provider, dispatchModel string, t Totals, source string) Summary {
	s := Summary{Priced: true, Source: source}
	var most int64
	for model, tok := range t.ByModel {
		if tok.Sum() == 0 {
			continue
		}
		if model == "" {
			model = dispatchModel
		}
		s.Input += tok.Input + tok.CacheWrite
		s.Cached += tok.CacheRead
		s.Output += tok.Output
		if n := tok.Sum(); n > most || (n == most && model < s.Model) {
			most, s.Model = n, model
		}
		p := Lookup(cat, provider, model)
		if p == nil {
			s.Priced = false
			continue
		}
		s.CostUSD += (float64(tok.Input+tok.CacheWrite)*p.Input + float64(tok.CacheRead)*p.CachedInput + float64(tok.Output)*p.Output) / 1e6
	}
	if last := t.Last; last != "" && t.ByModel[last].Sum() == most {
		s.Model = last
	}
	if s.Model == "" {
		s.Model = dispatchModel
	}
	return s
}

// Lookup returns the price of model: as provider knows it, else as any
// provider knows it (workers.Provider.PriceOf); nil when none has a price.
func Lookup(cat *workers.Catalog, provider, model string) *workers.Pricing {
	if cat == nil || model == "" {
		return nil
	}
	if p, err := cat.Provider(provider); err == nil {
		if pr := p.PriceOf(model); pr != nil {
			return pr
		}
	}
	for _, p := range cat.Providers() {
		if pr := p.PriceOf(model); pr != nil {
			return pr
		}
	}
	return nil
}
