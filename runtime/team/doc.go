// Package team is what the lead's commands do: `team dispatch`
// (TeamDispatch), `worker-dispatch` (RunCLIWrapper, or
// WorkerDispatchInPanes on a pane run a cockpit serves), `team await`
// (Await), `worker-liveness` (Liveness), the gates (AskGate) and
// `lead-progress append` (AppendProgress, RosterRole). Each is a sequence
// of the dispatch lifecycle's steps (runtime/lifecycle), which the engine
// calls too.
package team
