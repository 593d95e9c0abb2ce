package control

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/runtime/view"
)

// countingHandler serves nothing and counts the requests that reach it.
type countingHandler struct{ calls atomic.Int32 }

func (h *countingHandler) OpenPane(OpenPaneParams) (OpenPaneResult, error) {
	h.calls.Add(1)
	return OpenPaneResult{}, nil
}

func (h *countingHandler) ClosePanes(ClosePanesParams) (ClosePanesResult, error) {
	h.calls.Add(1)
	return ClosePanesResult{}, nil
}

func (h *countingHandler) ListPanes() ListPanesResult {
	h.calls.Add(1)
	return ListPanesResult{Panes: []PaneInfo{}}
}

func (h *countingHandler) Gate(context.Context, GateParams) (GateResult, error) {
	h.calls.Add(1)
	return GateResult{}, nil
}

func (h *countingHandler) Subscribe() (func(context.Context) ([]EventMessage, error), func()) {
	h.calls.Add(1)
	return func(ctx context.Context) ([]EventMessage, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, func() {}
}

func (h *countingHandler) View() view.RunView {
	h.calls.Add(1)
	return view.RunView{}
}

func (h *countingHandler) Attach(json.RawMessage) (AttachResult, ServeScreen, error) {
	h.calls.Add(1)
	return AttachResult{}, nil, &RPCError{Code: CodeFailed, Message: "no screens here"}
}

func (h *countingHandler) Status() StatusResult {
	h.calls.Add(1)
	return StatusResult{}
}

func (h *countingHandler) Stop() { h.calls.Add(1) }

// TestForgedPeerUIDIsRefused runs the real accept path with a server that
// serves another uid than the test's: the connecting process (this one) is
// then "another user", and must be refused before any request is served.
func TestForgedPeerUIDIsRefused(t *testing.T) {
	sock := filepath.Join(runtest.ShortDir(t), "priv", "cockpit.sock")
	h := &countingHandler{}
	s, err := Listen(sock, h, HelloResult{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.uid.Store(uint32(os.Getuid()) + 4242)
	_, err = Dial(context.Background(), sock, "test")
	if err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), "serves uid") {
		t.Fatalf("want the peer check to refuse the connection, got %v", err)
	}
	if h.calls.Load() != 0 {
		t.Fatal("a refused peer reached the handler")
	}
	if err := checkPeer(1000, 1000); err != nil {
		t.Fatalf("same uid refused: %v", err)
	}
}

// TestNoCockpitSaysTheCallersAlternative: with no cockpit serving the run,
// the error says what the caller said it can do instead, whatever its
// name; without one, how to start a cockpit without a terminal.
func TestNoCockpitSaysTheCallersAlternative(t *testing.T) {
	run := runtest.FixtureRun(t, "cockpit-pane")
	t.Setenv("COCKPIT_SOCKET", filepath.Join(runtest.ShortDir(t), "none.sock"))
	ctx := context.Background()
	_, err := DialRunAs(ctx, run, RunDial{Client: "anything", WithoutPanes: "do it by hand"})
	var nc *NoCockpitError
	if !errors.As(err, &nc) || !strings.HasSuffix(err.Error(), ", or do it by hand") {
		t.Fatalf("no cockpit, with an alternative: %v", err)
	}
	_, err = DialRunAs(ctx, run, RunDial{Client: "team dispatch"})
	if !errors.As(err, &nc) || !strings.Contains(err.Error(), "or without a terminal `cockpit serve") {
		t.Fatalf("no cockpit, without an alternative: %v", err)
	}
}
