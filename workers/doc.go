// Package workers owns the provider catalog (models, pricing, argv templates,
// user overrides from providers.json), the built-in sim provider, and the
// worker wrapper that `cockpit worker exec` runs: prompt on stdin, output
// tee'd to a log, idle timeout, signal forwarding and the status-sidecar
// lifecycle, with the v2 invocation preflight. It knows nothing of panes or
// the screen.
package workers
