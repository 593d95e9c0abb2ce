package attach_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"

	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/tui/attach"
)

type screen struct{ readOnly bool }

func (s screen) Init() tea.Cmd { return nil }
func (s screen) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "ctrl+b" {
		return s, attach.Detach // or attach.End(attach.ReasonRunEnded, "the run ended")
	}
	return s, nil
}
func (s screen) View() tea.View { v := tea.NewView("a screen"); v.AltScreen = true; return v }

// The engine's side of an attach request, once the control socket has read
// the request's params with a bufio.Reader br on conn and replied.
func ExampleServe() {
	engine := func(ctx context.Context, conn net.Conn, br *bufio.Reader, raw json.RawMessage) {
		var p attach.Params
		if err := json.Unmarshal(raw, &p); err != nil {
			return // reply bad-request instead
		}
		s := attach.NewSession(attach.Buffered(conn, br), p, screen{readOnly: p.ReadOnly}, tea.WithFPS(30))
		// go func() { for ev := range events { s.Send(ev) } }() — the run's events
		outcome, err := s.Run(ctx) // ctx cancelled with an Outcome cause ends it with that outcome
		fmt.Fprintln(os.Stderr, "screen ended:", outcome, err)
	}
	_ = engine
}

// The client's side: `cockpit attach` after its attach request was answered.
func ExampleRun() {
	client := func(conn net.Conn, br *bufio.Reader, sent attach.Params) int {
		outcome, err := attach.Run(attach.Buffered(conn, br), os.Stdin, os.Stdout,
			attach.ClientOptions{Cols: sent.Cols, Rows: sent.Rows})
		if err != nil {
			fmt.Fprintln(os.Stderr, "cockpit attach:", err)
			return 1
		}
		switch outcome.Reason {
		case attach.ReasonDetached:
			fmt.Println("detached; `cockpit attach` to come back")
		case attach.ReasonLost:
			fmt.Fprintln(os.Stderr, "cockpit attach: the engine died; `cockpit open` reconciles the run")
		default:
			fmt.Fprintln(os.Stderr, "cockpit attach:", outcome.Message)
		}
		if !outcome.Reason.OK() {
			return 1
		}
		return 0
	}
	_ = client
}
