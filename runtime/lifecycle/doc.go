// Package lifecycle is the one dispatch lifecycle both the engine and the
// lead's commands call: plan a batch and verify every job before anything
// starts (PlanBatch: shape, roster role, digests, catalog, identity),
// record it as one unit (RecordBatch), start it in the cockpit's panes
// (OpenPanes) and record where it runs (MarkLaunched), checkpoint what
// started (Recording.Checkpoints, Recorder) — the three in one call,
// StartInPanes —, settle dispatches from their sidecars (SettleVerdict,
// Settle), collect them (Collect), reclaim finished panes (Reclaim) and
// tear the run down (Teardown). The engine settles through it;
// runtime/team is what the lead's commands do with it (team dispatch,
// worker-dispatch, await, liveness, gates, lead-progress).
//
// It reaches a cockpit's panes only through PaneHost, the three calls it
// makes (open-pane, close-panes, list-panes): the commands pass the run's
// control socket (*control.Client, or RunSocket, which dials at its first
// call and is what Reclaim and Teardown use); tests pass a real engine
// in-process (engine.(*Engine).Host), so the same lifecycle runs against
// real panes with no socket in the path. It does not import the engine
// (the engine imports it) and draws nothing.
package lifecycle
