package tui

import (
	"time"

	"github.com/okstra/cockpit/state"
)

// batch is the dispatches of one dispatch command: consecutive dispatches
// of the same kind and dispatch time (the engine's "current batch" is the
// last one).
type batch struct {
	kind       state.DispatchKind
	at         string // dispatchedAt
	dispatches []int  // indexes into RunView.Dispatches
}

// batches groups the run's dispatches by batch, oldest first.
func batches(ds []state.Dispatch) []batch {
	var out []batch
	for i, d := range ds {
		if n := len(out); n > 0 && out[n-1].kind == d.DispatchKind && out[n-1].at == d.DispatchedAt {
			out[n-1].dispatches = append(out[n-1].dispatches, i)
			continue
		}
		out = append(out, batch{kind: d.DispatchKind, at: d.DispatchedAt, dispatches: []int{i}})
	}
	return out
}

// span is how long a batch has run: from its dispatch time to the last
// settle time once every dispatch settled, else to now. ok is false
// without a dispatch time.
func (b batch) span(ds []state.Dispatch, now time.Time) (d time.Duration, settled, ok bool) {
	start := parseTime(b.at)
	if start.IsZero() {
		return 0, false, false
	}
	var end time.Time
	for _, i := range b.dispatches {
		if !ds[i].Terminal() {
			return max(now.Sub(start), 0), false, true
		}
		if t := parseTime(ds[i].SettledAt); t.After(end) {
			end = t
		}
	}
	if end.IsZero() {
		end = now
	}
	return max(end.Sub(start), 0), true, true
}

// batchElapsed is the current batch's elapsed time for the status line.
func (a *screenEnv) batchElapsed() (time.Duration, bool) {
	bs := batches(a.run.Dispatches)
	if len(bs) == 0 {
		return 0, false
	}
	d, _, ok := bs[len(bs)-1].span(a.run.Dispatches, a.now())
	return d, ok
}

// batchRunning reports whether the current batch still has a dispatch
// running, so its elapsed time on the status line advances.
func (a *screenEnv) batchRunning() bool {
	return a.haveRun && a.run.Batch.Pending > 0
}

// totalCost is the run's cost so far for the status line: "$4.12", with a
// "?" when some workers used tokens at no known price (the sum is then a
// lower bound); empty while no usage is known.
func (a *screenEnv) totalCost() string {
	if len(a.run.Usage) == 0 {
		return ""
	}
	usd, unpriced := a.run.TotalCost()
	s := formatUSD(usd)
	if unpriced > 0 {
		s += "?"
	}
	return s
}
