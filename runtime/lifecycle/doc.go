// Package lifecycle is the one dispatch lifecycle both the engine and the
// lead's commands call: plan a batch and verify every job before anything
// starts (PlanBatch: shape, roster role, digests, catalog, identity),
// record it as one unit (RecordBatch), start it in the cockpit's panes
// (OpenPanes) and record where it runs (MarkLaunched), checkpoint what
// started (Recording.Checkpoints, Recorder), settle dispatches from their
// sidecars (SettleVerdict, Settle), collect them (Collect), reclaim
// finished panes (Reclaim) and tear the run down (Teardown). The engine
// settles through it; runtime/team is what the lead's commands do with it
// (team dispatch, worker-dispatch, await, liveness, gates, lead-progress).
// It reaches a running cockpit only through its control socket, and draws
// nothing.
package lifecycle
