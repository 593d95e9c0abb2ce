package lifecycle

import (
	"context"
	"errors"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/state"
)

// PaneHost is the cockpit the lifecycle opens and closes panes in: the
// three calls StartInPanes, ReclaimOn and TeardownOn make of it. The lead's
// commands reach it through the run's control socket (*control.Client,
// or RunSocket, which dials only when a call is made); the engine serves
// the same calls in-process (engine.(*Engine).Host), so the lifecycle is
// tested against a real engine with no socket in the path.
//
// ListPanes failing with a *control.NoCockpitError means no cockpit serves
// the run: then no pane is open, and reclaim and teardown close nothing.
type PaneHost interface {
	OpenPane(ctx context.Context, p control.OpenPaneParams) (control.OpenPaneResult, error)
	ClosePanes(ctx context.Context, p control.ClosePanesParams) (control.ClosePanesResult, error)
	ListPanes(ctx context.Context) (control.ListPanesResult, error)
}

var _ PaneHost = (*control.Client)(nil)

// RunSocket is the cockpit serving a run, through its control socket,
// dialled at the first call (a reclaim with nothing to close dials
// nothing) and named Client in the engine's log. With no cockpit serving
// the run, every call fails with *control.NoCockpitError. Close hangs up.
type RunSocket struct {
	Run    *state.Run
	Client string
	cl     *control.Client
}

func (s *RunSocket) client(ctx context.Context) (*control.Client, error) {
	if s.cl != nil {
		return s.cl, nil
	}
	cl, err := control.DialRunAs(ctx, s.Run, control.RunDial{Client: s.Client})
	if err != nil {
		return nil, err
	}
	s.cl = cl
	return cl, nil
}

// OpenPane is PaneHost's.
func (s *RunSocket) OpenPane(ctx context.Context, p control.OpenPaneParams) (control.OpenPaneResult, error) {
	cl, err := s.client(ctx)
	if err != nil {
		return control.OpenPaneResult{}, err
	}
	return cl.OpenPane(ctx, p)
}

// ClosePanes is PaneHost's.
func (s *RunSocket) ClosePanes(ctx context.Context, p control.ClosePanesParams) (control.ClosePanesResult, error) {
	cl, err := s.client(ctx)
	if err != nil {
		return control.ClosePanesResult{}, err
	}
	return cl.ClosePanes(ctx, p)
}

// ListPanes is PaneHost's.
func (s *RunSocket) ListPanes(ctx context.Context) (control.ListPanesResult, error) {
	cl, err := s.client(ctx)
	if err != nil {
		return control.ListPanesResult{}, err
	}
	return cl.ListPanes(ctx)
}

// Close hangs up, when it dialled.
func (s *RunSocket) Close() error {
	if s.cl == nil {
		return nil
	}
	err := s.cl.Close()
	s.cl = nil
	return err
}

// openPanes lists the panes host has open; none when no cockpit serves
// the run.
func openPanes(ctx context.Context, host PaneHost) ([]control.PaneInfo, error) {
	open, err := host.ListPanes(ctx)
	var nc *control.NoCockpitError
	if errors.As(err, &nc) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return open.Panes, nil
}
