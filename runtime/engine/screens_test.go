package engine

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/state"
)

// TestAttachStatusStop runs a real engine with an attach hook: an attached
// screen gets the connection and the params as sent and counts in status
// while it is served; a panicking screen ends alone (the engine still
// answers); stop closes Stopping.
func TestAttachStatusStop(t *testing.T) {
	run := runtest.FixtureRun(t, state.BackendCockpitPane)
	sock := filepath.Join(runtest.ShortDir(t), "priv", "cockpit.sock")
	got := make(chan json.RawMessage, 2)
	c, err := Start(Config{Run: run, Socket: sock, CloseGrace: 200 * time.Millisecond,
		Attach: func(_ context.Context, conn io.ReadWriteCloser, params json.RawMessage) error {
			defer conn.Close()
			got <- params
			var p control.AttachParams
			_ = json.Unmarshal(params, &p)
			if p.ReadOnly {
				panic("a screen that panics")
			}
			_, err := io.Copy(conn, conn) // until the client closes
			return err
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, r, _, res, err := control.DialAttach(ctx, sock, "test", control.AttachParams{Cols: 100, Rows: 30})
	if err != nil {
		t.Fatal(err)
	}
	if res.ScreenID != "screen-1" {
		t.Fatalf("screen id %q", res.ScreenID)
	}
	var p control.AttachParams
	if err := json.Unmarshal(<-got, &p); err != nil || p.Cols != 100 || p.Rows != 30 {
		t.Fatalf("the hook got %+v (%v)", p, err)
	}
	if _, err := conn.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	if _, err := io.ReadFull(r, b); err != nil || b[0] != 'x' {
		t.Fatalf("the screen's connection: %q %v", b, err)
	}
	cl, err := control.Dial(ctx, sock, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	status := func() control.StatusResult {
		st, err := control.Status.Call(ctx, cl, control.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := status(); st.Screens != 1 || st.Gates == nil || st.RunManifest != run.Manifest.Display || st.Started.IsZero() {
		t.Fatalf("status with one screen: %+v", st)
	}
	// A screen that panics ends alone.
	c2, _, _, _, err := control.DialAttach(ctx, sock, "test", control.AttachParams{Cols: 80, Rows: 24, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	<-got
	if n, err := c2.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("the panicking screen's connection: %d, %v", n, err)
	}
	conn.Close()
	deadline := time.Now().Add(testenv.Scale(10 * time.Second))
	for status().Screens != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the screens are still counted after they ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-c.Stopping():
		t.Fatal("stopping before stop")
	default:
	}
	if _, err := control.Stop.Call(ctx, cl, control.Empty{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Stopping():
	case <-ctx.Done():
		t.Fatal("stop did not reach the engine")
	}
	if _, _, _, _, err := control.DialAttach(ctx, sock, "test", control.AttachParams{}); err == nil {
		t.Fatal("a screen attached to a stopping engine")
	}
}
