// Package team holds the headless team operations a lead agent calls, each
// a function over the run's files: plan and record a batch (PlanBatch,
// RecordBatch), dispatch it into the cockpit's panes (TeamDispatch) or as
// child processes (RunCLIWrapper), wait for it (Await), settle dispatches
// from their sidecars (Settle), reclaim and tear down panes, liveness,
// gates (AskGate) and the checkpoints they record (Recorder). It reaches a
// running cockpit only through its control socket, and draws nothing.
package team
