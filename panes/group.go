package panes

import (
	"context"

	"github.com/okstra/cockpit/internal/proc"
)

// sweepGroup ends what is left of the pane's process group after its
// leader exited: a background job that ignored SIGHUP, a helper that
// daemonised without leaving the group. The kernel hangs up only the
// foreground group when the session leader dies, and nobody waits for the
// rest, so tmux leaves them running; a reclaimed worker pane must not
// leave a CLI's children behind. They get the same SIGHUP, SIGTERM,
// SIGKILL escalation as a live program (proc.Steps), each only while the
// group has a live (non-zombie) member (proc.Group). The group id cannot
// be reused while any process holds it, so signalling -pid never reaches
// a stranger.
func (p *Pane) sweepGroup() {
	proc.Escalate(context.Background(), proc.Group(p.pid), proc.Steps(p.grace, killWait))
}
